"""Number grids indexed by (i, j): each cell a box and a number (or a text the book made),
with row and column labels, a header, the heat scale and the marks of masked, NaN and
hidden cells.

Grids draw numbers only through the NumberBook, so every one is recorded.
"""
import math
from typing import Any, NamedTuple

import numpy as np
from manim import (LEFT, PI, UP, Group, ManimColor, Rectangle, RoundedRectangle, SurroundingRectangle, VGroup,
                   interpolate_color)

from scenes.kit.text import lang, style
from scenes.kit.text.glyphs import clone, number_text
from scenes.kit.text.inblock import grid_block, in_block
from scenes.kit.text.numbers import Shown, made_text


def heat_color(value, low=0.0, high=1.0):
    """Weights heat scale; -inf is the mask colour, NaN its own grey."""
    if math.isnan(value):
        return ManimColor(style.NAN_FILL)
    if math.isinf(value):
        return ManimColor(style.MASK)
    t = 0.0 if high <= low else (value - low) / (high - low)
    return interpolate_color(ManimColor(style.HEAT_LOW), ManimColor(style.HEAT_HIGH), float(np.clip(t, 0, 1)))


INF_SCALE = 1.6        # "−∞" is set larger than digits so that it reads about as tall as they do
WIDEN_AT_MOST = 1.5    # fit_col_labels: widen cells up to this much, else turn the labels upright


class Look(NamedTuple):
    fill: Any            # None: no fill
    opacity: float
    stroke: str
    stroke_width: float
    text: str
    decimals: int | None  # None: the grid's decimals


def cell_look(value, hidden=False, heat=None, low=0.0, high=1.0, stroke=None,
              hidden_color=None, marks=False) -> Look:
    """How one cell is drawn. With marks: −∞ a mask-coloured cell, NaN a grey cell in a
    mask-coloured frame, a hidden exact zero "0" in hidden_color in a frame of that colour.
    Anything else: the heat scale, or no fill. Frames in the grid colour, hidden zeros in the
    mask colour, unless told."""
    stroke, hidden_color = stroke or style.GRID_LINE, hidden_color or style.MASK
    if marks and math.isnan(value):
        return Look(style.NAN_FILL, 1.0, style.MASK, 4, style.TEXT, None)
    if marks and math.isinf(value):
        return Look(style.MASK, 0.9, style.MASK, 2, style.TEXT, None)
    if marks and hidden and value == 0:
        return Look(None, 0.0, hidden_color, 4, hidden_color, 0)
    fill = heat_color(value, low, high) if heat else None
    return Look(fill, 0.9, stroke, 2, style.TEXT, None)


def mark_kind(value, hidden, hidden_mark="hidden"):
    """The mark a cell's look makes (cell_look with marks): masked −∞, NaN, a hidden zero
    (hidden_mark names what the frame means: "hidden", "unchanged")."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "masked"
    return hidden_mark if hidden and value == 0 else None


def _entry(book, label, value, decimals, color, size, place, text=None, as_number=False):
    """A cell's number, or the text the book made for it, recorded in the cell as `label`."""
    if text is None:
        return book.num(label, value, decimals, color=color, size=size, place=place)
    text = text if isinstance(text, Shown) and book.made(text) else book.compose(str(text))
    if as_number:
        return book.register(number_text(str(text), size, color), "number", text, label, place)
    mob = made_text(str(text), lang.font(style.NUMBER_FONT), size, color)
    return book.register(mob, "label", text, label, place)


_BOX: list = []


def _box() -> Rectangle:
    """The cell every grid copies (a copy is ~15x cheaper than building a Rectangle; the same points)."""
    if not _BOX:
        _BOX.append(Rectangle(width=style.MIN_CELL_W, height=style.MIN_CELL_H))
    return _BOX[0]


_TILES: dict[tuple, Rectangle] = {}


def tile(width: float, height: float, fill: Any, fill_opacity: float = 1, stroke_width: float = 0.5,
         stroke_opacity: float = 1.0) -> Rectangle:
    """Rectangle(width=, height=, stroke_width=, stroke_color=GRID_LINE, stroke_opacity=, fill_color=fill,
    fill_opacity=) for pictures in colour only: a copy of the one Rectangle of that size and stroke
    (building one costs ~15 copies), then filled."""
    key = (width, height, stroke_width, stroke_opacity, fill_opacity)
    if key not in _TILES:
        _TILES[key] = Rectangle(width=width, height=height, stroke_width=stroke_width,
                                stroke_color=style.GRID_LINE, stroke_opacity=stroke_opacity,
                                fill_opacity=fill_opacity)
    return clone(_TILES[key]).set_fill(fill, opacity=fill_opacity)


_FRAMES: dict[tuple, SurroundingRectangle] = {}


def surrounding(spot: Any, color: Any, buff: float, stroke_width: float) -> SurroundingRectangle:
    """SurroundingRectangle(spot, color=, buff=, stroke_width=), the same points and colours, from
    a copy of the one unstretched frame of that look (building one costs ~10 copies): Manim's
    steps after that copy (stretch to the spot's size plus `buff`, move onto it) done as it does them."""
    key = (str(color), buff, stroke_width)
    if key not in _FRAMES:
        first = SurroundingRectangle.__new__(SurroundingRectangle)
        RoundedRectangle.__init__(first, corner_radius=0.0, color=color, width=2.0, height=2.0,
                                  stroke_width=stroke_width)    # the polygon UR UL DL DR, stretched by 1
        first.buff = buff
        _FRAMES[key] = first
    group = Group(spot)
    frame = clone(_FRAMES[key])
    frame.stretch_to_fit_width(group.width + 2 * buff)
    frame.stretch_to_fit_height(group.height + 2 * buff)
    return frame.move_to(group)


class MatrixGrid(VGroup):
    """A grid of cells (a Rectangle and a number each), sized to its widest number.

    name: "A" (entries recorded as A[i][j]) or a 2-D list of labels, one per cell.
    heat: None (plain), "weights" (0..1 scale) or "scores" (scaled to the finite
    min..max). Labels are strings already made by the NumberBook or plain words.

    Optional, for grids that must not mistake a mask for a number:
    marks: −∞ cells filled in the mask colour, NaN cells grey in a mask-coloured frame;
    hidden: 2-D bool, cells drawn as an exact "0" in hidden_color in a frame of that
    colour (implies marks; the layout records each as a mark of kind hidden_mark); header: a
    label above the grid (words, or a mobject the book made: a line of code); cell_w: a fixed
    cell width; fit_col_labels: cells widen to column labels a little wider than them, and labels
    much wider (long tokens) are turned upright so that they never run into each other.

    texts: a 2-D list of texts the book made (a Shown: a fraction "1/3", an id "e5", a word),
    drawn in the cells instead of formatted numbers, each recorded in its cell as the grid's
    label; `values` still give the heat and the marks. As a label in the number font, or
    (as_numbers) as a number set from the number glyphs.
    """

    def __init__(self, book, name, values, decimals=4, row_labels=None, col_labels=None,
                 heat=None, size=style.NUMBER_SIZE, row_color=None, col_color=None,
                 max_width=None, max_height=None, stroke=None, *, hidden=None,
                 hidden_color=None, marks=False, header=None, header_color=None,
                 cell_w=None, fit_col_labels=False, hidden_mark="hidden", texts=None, as_numbers=False):
        super().__init__()
        row_color, col_color = row_color or style.TEXT, col_color or style.TEXT
        header_color = header_color or style.TEXT
        stroke, hidden_color = stroke or style.GRID_LINE, hidden_color or style.MASK
        values = np.atleast_2d(np.asarray(values, float))
        self.values = values
        self.n_rows, self.n_cols = values.shape
        labels = ([[f"{name}[{i}][{j}]" for j in range(self.n_cols)] for i in range(self.n_rows)]
                  if isinstance(name, str) else name)
        marks = marks or hidden is not None
        hidden = np.zeros(values.shape, bool) if hidden is None else np.asarray(hidden, bool)
        finite = values[np.isfinite(values)]
        low, high = (0.0, 1.0) if heat == "weights" else (
            (finite.min(), finite.max()) if finite.size else (0.0, 1.0))
        looks = [[cell_look(values[i, j], hidden[i, j], heat, low, high, stroke, hidden_color, marks)
                  for j in range(self.n_cols)] for i in range(self.n_rows)]
        self.labels = labels
        self.grid = book.new_grid(labels[0][0].split("[", 1)[0] if self.n_rows and self.n_cols else "grid")
        self.block = grid_block(labels[0][0], self.grid) if self.n_rows and self.n_cols else self.grid
        self.boxes = [[clone(_box()) for _ in range(self.n_cols)] for _ in range(self.n_rows)]
        self.entries = [[_entry(book, labels[i][j], values[i, j],
                                decimals if looks[i][j].decimals is None else looks[i][j].decimals,
                                looks[i][j].text,
                                size * INF_SCALE if marks and np.isinf(values[i, j]) else size,
                                {"grid": self.grid, "row": i, "col": j, "cell": self.boxes[i][j],
                                 "block": self.block},
                                None if texts is None else texts[i][j], as_numbers)
                         for j in range(self.n_cols)] for i in range(self.n_rows)]
        flat = [e for row in self.entries for e in row]
        self.col_labels = VGroup(*[book.label(t, color=col_color, size=style.LABEL_SIZE,
                                              place={"grid": self.grid, "axis": "col", "index": j})
                                   for j, t in enumerate(col_labels or [])])
        width = cell_w or max(max(e.width for e in flat) + style.CELL_PAD, style.MIN_CELL_W)
        upright = False
        if fit_col_labels and len(self.col_labels) and not cell_w:
            widest = max(m.width for m in self.col_labels) + style.CELL_PAD
            upright = widest > WIDEN_AT_MOST * width
            width = width if upright else max(width, widest)
        self.cell_w = width
        height = max(max(e.height for e in flat) + style.CELL_PAD, style.MIN_CELL_H)
        for i in range(self.n_rows):
            for j in range(self.n_cols):
                box = self.boxes[i][j]
                box.stretch_to_fit_width(width).stretch_to_fit_height(height)
                box.set_stroke(looks[i][j].stroke, looks[i][j].stroke_width)
                box.move_to([j * width, -i * height, 0])
                if looks[i][j].fill is not None:
                    box.set_fill(looks[i][j].fill, opacity=looks[i][j].opacity)
                self.entries[i][j].move_to(box)
                kind = mark_kind(values[i, j], hidden[i, j], hidden_mark) if marks else None
                if kind:
                    book.mark(box, kind, [labels[i][j]])
        # marked frames drawn last, so that the neighbours' grey lines do not cover them
        order = sorted(((i, j) for i in range(self.n_rows) for j in range(self.n_cols)),
                       key=lambda ij: looks[ij[0]][ij[1]].stroke_width)
        self.box_group = VGroup(*[self.boxes[i][j] for i, j in order])
        self.entry_group = VGroup(*flat)
        self.add(self.box_group, self.entry_group)
        self.row_labels = self._labels(book, row_labels, row_color, LEFT)
        for j, mob in enumerate(self.col_labels):
            if upright:
                mob.rotate(PI / 2)
                mob.next_to(self.boxes[0][j], UP, buff=0.12)
            else:
                mob.next_to(self.boxes[0][j], UP, buff=0.15 if not fit_col_labels else 0.12)
        self.add(self.row_labels, self.col_labels)
        self.book = book
        self.header = None
        if header is not None and (not isinstance(header, str) or header):
            self.header = (book.label(header, color=header_color, size=style.LABEL_SIZE)
                           if isinstance(header, str) else header)
            self.header.next_to(VGroup(self.box_group, self.col_labels), UP, buff=0.15)
            in_block(book, self.header, self.block)      # drawn in the block's role (the clip's BLOCKS)
            self.add(self.header)
        if max_width and self.width > max_width:
            self.scale_to_fit_width(max_width)
        if max_height and self.height > max_height:
            self.scale_to_fit_height(max_height)

    def _labels(self, book, labels, color, side):
        group = VGroup()
        for n, text in enumerate(labels or []):
            mob = book.label(text, color=color, size=style.LABEL_SIZE,
                             place={"grid": self.grid, "axis": "row" if side is LEFT else "col", "index": n})
            anchor = self.boxes[n][0] if side is LEFT else self.boxes[0][n]
            mob.next_to(anchor, side, buff=0.15)
            group.add(mob)
        return group

    def cell(self, i, j):
        return VGroup(self.boxes[i][j], self.entries[i][j])

    def entry(self, i, j):
        return self.entries[i][j]

    def box(self, i, j):
        return self.boxes[i][j]

    def row(self, i):
        return VGroup(*[self.cell(i, j) for j in range(self.n_cols)])

    def col(self, j):
        return VGroup(*[self.cell(i, j) for i in range(self.n_rows)])

    def frame_row(self, i, color, width=5, kind="track"):
        """Outline row i (a tracked query, a changed key), leaving its cells' own frames."""
        frame = SurroundingRectangle(VGroup(*self.boxes[i]), color=color, buff=0.06, stroke_width=width)
        self.add(self.book.mark(frame, kind, self.labels[i]))
        return self

