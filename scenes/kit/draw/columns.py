"""Words and numbers in aligned columns: a table (each column as wide as its widest cell, its
cells left- or right-aligned or centred, with rules between rows and bands around them), grids
stacked column over column, one-column grids side by side sharing rows (Columns) with bars
beside them, and a code listing whose rows and notes share baselines, with a
band to walk it line by line.

Cells are mobjects the NumberBook made; nothing here draws a number.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, ORIGIN, RIGHT, UP, Line, Mobject, Rectangle, Text, VectorizedPoint, VGroup

from scenes.kit.text import stands, style
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook, Shown

GAP = 0.22            # between a table's columns of numbers
HEAD_GAP = 0.4        # between the heads of a table's columns


class Table(VGroup):
    """Rows of cells (None leaves a slot empty) in columns, one row height. aligns[k]: LEFT,
    RIGHT or ORIGIN (centred, the default) for column k; widths: the columns' widths when
    cells that arrive later are wider than these. A table scaled after it is made keeps
    its rules and bands in step (`zoom`)."""

    def __init__(self, rows: Sequence[Sequence[Mobject | None]], aligns: Sequence = (), gap: float = 0.45,
                 row_h: float = 0.5, widths: Sequence[float] | None = None) -> None:
        super().__init__()
        n_cols = max(len(r) for r in rows)
        widths = list(widths or [max((r[k].width for r in rows if k < len(r) and r[k] is not None),
                                     default=0.0) for k in range(n_cols)])
        lefts = [sum(widths[:k]) + gap * k for k in range(n_cols)]
        self.widths, self.col_gap, self.row_h = widths, gap, row_h
        self.n_rows, self.n_cols = len(rows), n_cols
        self.anchors = [[VectorizedPoint([lefts[c] + widths[c] / 2, -i * row_h, 0]) for c in range(n_cols)]
                        for i in range(len(rows))]
        self.ruler = Line(ORIGIN, RIGHT).set_opacity(0)      # its length tracks the table's scale
        self.add(self.ruler, *[a for row in self.anchors for a in row])
        self.cells: list[list[Mobject | None]] = [[None] * n_cols for _ in rows]
        for i, row in enumerate(rows):
            for c, mob in enumerate(row):
                if mob is None:
                    continue
                edge = aligns[c] if c < len(aligns) else ORIGIN
                x = lefts[c] + widths[c] * (0.5 + 0.5 * float(edge[0]))
                self.cells[i][c] = mob.move_to([x, -i * row_h, 0], aligned_edge=edge)
                self.add(mob)

    def zoom(self) -> float:
        return self.ruler.get_length()

    def row(self, i: int) -> VGroup:
        return VGroup(*[m for m in self.cells[i] if m is not None])

    def rows(self, first: int = 0, last: int | None = None) -> VGroup:
        """Rows first..last-1, each a VGroup of its cells."""
        return VGroup(*[self.row(i) for i in range(first, self.n_rows if last is None else last)])

    def col(self, c: int, rows: Sequence[int] | None = None) -> VGroup:
        rows = range(self.n_rows) if rows is None else rows
        return VGroup(*[self.cells[i][c] for i in rows if self.cells[i][c] is not None])

    def x(self, c: int) -> float:
        return float(self.anchors[0][c].get_center()[0])

    def y(self, i: int) -> float:
        return float(self.anchors[i][0].get_center()[1])

    def _edges(self, first: int, last: int) -> tuple[float, float]:
        z = self.zoom()
        return (self.x(first) - (self.widths[first] + self.col_gap) * z / 2,
                self.x(last) + (self.widths[last] + self.col_gap) * z / 2)

    def rule(self, i: int, first: int = 0, last: int | None = None, color: str | None = None) -> Line:
        """A line between row i-1 and row i, under columns first..last (grid colour unless told)."""
        color = color or style.GRID_LINE
        left, right = self._edges(first, self.n_cols - 1 if last is None else last)
        y = self.y(i) + self.row_h * self.zoom() / 2
        return Line([left, y, 0], [right, y, 0], color=color, stroke_width=2)

    def band(self, rows: Sequence[int], color: str | None = None) -> Rectangle:
        """A frame around whole rows (e.g. the expectation and the original row), tracked colour unless told."""
        color = color or style.TRACK
        half = self.row_h * self.zoom() / 2
        top, bottom = self.y(rows[0]) + half, self.y(rows[-1]) - half
        left, right = self._edges(0, self.n_cols - 1)
        box = Rectangle(width=right - left, height=top - bottom, stroke_color=color, stroke_width=3)
        return box.move_to([(left + right) / 2, (top + bottom) / 2, 0])


# ---------------------------------------------------------------- grids column over column
def widen(grid: MatrixGrid, width: float, origin: np.ndarray) -> MatrixGrid:
    """Give every cell of the grid `width`, cell (i, j) centred at origin + (j, -i) cells, each
    entry in its cell."""
    for i, row in enumerate(grid.boxes):
        for j, box in enumerate(row):
            box.stretch_to_fit_width(width).move_to(origin + np.array([j * width, -i * box.height, 0.0]))
            grid.entries[i][j].move_to(box)
    return grid


def same_columns(*groups: VGroup) -> None:
    """Grids with a tag (group.grid, group.tag beside it on group.side) stacked column over column:
    one cell width (the widest), each grid's first cell where it was, the tags re-placed."""
    width = max(g.grid.boxes[0][0].width for g in groups)
    for g in groups:
        widen(g.grid, width, g.grid.boxes[0][0].get_center())
        g.tag.next_to(g.grid.box_group, g.side, buff=0.15)


def align_columns(grids: Sequence[MatrixGrid], buff: float = 0.0) -> VGroup:
    """Give every grid the widest cell, then stack them (`buff` apart) so that column j lines up;
    their row and column labels re-placed."""
    width = max(g.boxes[0][0].width for g in grids)
    y = 0.0
    for g in grids:
        widen(g, width, np.array([0.0, y, 0.0]))
        for n, lab in enumerate(g.row_labels):
            lab.next_to(g.boxes[n][0], LEFT, buff=0.15)
        for n, lab in enumerate(g.col_labels):
            lab.next_to(g.boxes[0][n], UP, buff=0.12)
        y -= g.n_rows * g.boxes[0][0].height + buff
    return VGroup(*grids)


# ---------------------------------------------------------------- a code listing
SITS_ON_BASELINE = set("abcdefhiklmnorstuvwxzABCDEFGHIKLMNOPRSTUVWXYZ0123456789")


def baseline(mob: Text, text: str) -> float:
    """The y of the text's baseline: the bottom of its first glyph with no descender."""
    chars = [c for c in text if not c.isspace()]
    if len(chars) == len(mob.submobjects):
        for glyph, c in zip(mob.submobjects, chars):
            if c in SITS_ON_BASELINE:
                return float(glyph.get_bottom()[1])
    return float(mob.get_bottom()[1])


@lru_cache(maxsize=None)
def advance(size: float) -> float:
    """The monospaced font's advance per character at `size` (spaces carry no ink to measure)."""
    pair = Text("xx", font=style.NUMBER_FONT, font_size=size)
    return float(pair[1].get_left()[0] - pair[0].get_left()[0])


def on_baseline(mob: Text, text: str, x: float, y: float, size: float) -> Text:
    """Put the text's pen start at x (leading spaces keep their width) and its baseline at y."""
    indent = (len(text) - len(text.lstrip(" "))) * advance(size)
    mob.shift([x + indent - mob.get_left()[0], y - baseline(mob, text), 0])
    return mob


class Listing(VGroup):
    """Code rows (left) and, on the same baselines, a note for each row (right: the shape it makes).

    rows: (code, colour, note) with note None or a Shown. The notes are built now, so the
    layout never moves, and shown one at a time with `note(i)`; `highlight(i)` is a band
    behind row i."""

    def __init__(self, book: NumberBook, rows: Sequence[tuple[Shown, str, Shown | None]], size: float = 22,
                 note_size: float = 20, pitch: float = 0.37, gap: float = 0.55,
                 note_color: str | None = None) -> None:
        super().__init__()
        note_color = note_color or style.ACCENT
        self.codes, self.notes = VGroup(), {}
        for i, (code, color, _) in enumerate(rows):
            mob = book.text(code, font=style.NUMBER_FONT, size=size, color=color)
            self.codes.add(on_baseline(mob, str(code), 0.0, -i * pitch, size))
        x = self.codes.get_right()[0] + gap
        for i, (_, _, note) in enumerate(rows):
            if note is not None:
                mob = book.text(note, font=style.NUMBER_FONT, size=note_size, color=note_color)
                self.notes[i] = on_baseline(mob, str(note), x, -i * pitch, note_size)
        ref = Text("(Hg)", font=style.NUMBER_FONT, font_size=size)
        self.mid, self.band_h = float(ref.get_center()[1] - baseline(ref, "(Hg)")), ref.height + 0.08
        self.baselines = [VectorizedPoint([0, -i * pitch, 0]) for i in range(len(rows))]
        self.ruler = Line(ORIGIN, RIGHT).set_opacity(0)     # its length tracks the listing's scale
        self.add(self.codes, *self.notes.values(), *self.baselines, self.ruler)

    def highlight(self, i: int) -> Rectangle:
        """A band behind row i, across the code and the note column."""
        scale = self.ruler.width
        y = self.baselines[i].get_center()[1] + self.mid * scale
        band = Rectangle(width=self.width + 0.3, height=self.band_h * scale, stroke_color=style.TRACK,
                         stroke_width=2, fill_color=style.NAN_FILL, fill_opacity=0.55)
        return band.move_to([self.get_center()[0], y, 0])

    def note(self, i: int) -> Mobject | None:
        return self.notes.get(i)


class Columns(VGroup):
    """One-column grids side by side, sharing rows; a head above each column and, optionally,
    a Σ row below. columns: (name, values, decimals, head, heat); sums: (name, value, decimals)
    or None, one per column from the first."""

    def __init__(self, book: NumberBook, columns: Sequence[tuple], row_labels: Sequence[Any],
                 row_colors: Sequence[str], sums: Sequence[tuple | None] | None = None,
                 sum_label: Mobject | None = None, sum_color: str | None = None) -> None:
        super().__init__()
        sum_color = sum_color or style.ACCENT
        self.grids, self.sums, x = [], [], 0.0
        for k, (name, values, decimals, header, heat) in enumerate(columns):
            grid = MatrixGrid(book, name, np.asarray(values, float)[:, None], decimals, heat=heat,
                              row_labels=None if k else row_labels)
            wide = header.width + HEAD_GAP > grid.box_group.width + GAP    # the head sets the spacing
            width = header.width + HEAD_GAP if wide else grid.box_group.width + GAP
            grid.shift(np.array([x + width / 2, 0, 0]) - grid.box_group.get_top())   # cells, not names
            header.next_to(grid.box_group, UP, buff=0.15)
            self.grids.append(grid)
            self.add(grid, header)
            x += width
        for label, color in zip(self.grids[0].row_labels, row_colors):
            label.set_color(color)
        for k, spec in enumerate(sums or []):
            if spec is None:
                continue
            name, value, decimals = spec
            cell = MatrixGrid(book, name, [[value]], decimals)
            cell.entries[0][0].set_color(sum_color)
            cell.next_to(self.grids[k].box_group, DOWN, buff=0.12)
            self.sums.append(cell)
            self.add(cell)
        if self.sums and sum_label is not None:
            self.add(sum_label.next_to(self.sums[0], LEFT, buff=0.15).align_to(
                self.grids[0].row_labels, RIGHT))


def side_bars(table: Columns, values: Sequence[float], colors: Sequence[str], length: float = 2.2,
              labels: Sequence[str] | None = None) -> VGroup:
    """A horizontal bar per row right of the table, as long as the row's value (0 to 1), on an axis;
    each stands for its label's value where `labels` are given (the layout's `pictures`)."""
    bars = VGroup()
    left = max(g.box_group.get_right()[0] for g in table.grids) + GAP * 2
    for i, w in enumerate(values):
        row = table.grids[-1].boxes[i][0]
        bar = Rectangle(width=max(float(w), 0.0) * length + 1e-3, height=row.height * 0.6,
                        fill_color=colors[i % len(colors)], fill_opacity=0.85, stroke_width=0)
        bars.add(bar.move_to([left, row.get_center()[1], 0], aligned_edge=LEFT))
        if labels:
            stands.bar(bar, labels[i], length, along="x")
    column = table.grids[-1].box_group
    axis = Line([left, column.get_top()[1], 0], [left, column.get_bottom()[1], 0],
                stroke_color=style.GRID_LINE, stroke_width=2)
    return VGroup(axis, bars)
