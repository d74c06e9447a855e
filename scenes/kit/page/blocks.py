"""Blocks for the page engine and the ways they relate: grids in a row with their first rows
on one line, stacks, a pair beside or above, labels over a grid's columns, a heat legend, bars
over columns, two blocks linked by an arrow, row names that come and go, headed grids in rows,
and empty boxes the size of a grid (to choose a layout before drawing it).

The relations return (group, ways): the page engine (scenes/kit/page/page.py) tries the ways.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UL, UP, UR, Mobject, Rectangle, VGroup

from scenes.kit.text import stands, style
from scenes.kit.draw.arrays import batch_columns, headed, in_grid
from scenes.kit.text.glyphs import NumberText
from scenes.kit.draw.grids import MatrixGrid, heat_color
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area, Way, choose


def row_of(grids: list[MatrixGrid], buff: float = 0.3) -> VGroup:
    """Grids placed left to right with their first rows on one line."""
    group = VGroup(*grids)
    for left, right in zip(grids, grids[1:]):
        right.shift(left.boxes[0][-1].get_right() + RIGHT * buff - right.boxes[0][0].get_left())
        right.shift(UP * (left.boxes[0][0].get_center()[1] - right.boxes[0][0].get_center()[1]))
        # A header or column label wider than a narrow grid must not run into its neighbour's.
        texts = [[m for m in (g.header, g.col_labels) if m is not None and len(m)] for g in (left, right)]
        if texts[0] and texts[1]:
            clash = VGroup(*texts[0]).get_right()[0] + buff - VGroup(*texts[1]).get_left()[0]
            if clash > 0:
                right.shift(RIGHT * clash)
    return group


def stack(*parts: Mobject, buff: float = 0.4) -> VGroup:
    """Parts one under another, centred; empty parts take no room."""
    return VGroup(*[p for p in parts if p.family_members_with_points()]).arrange(DOWN, buff=buff)


def pair(first: Mobject, second: Mobject, gap: float = 0.8, edge=UP) -> tuple[VGroup, list[Way]]:
    """(group, [beside, above]) for two blocks, beside with their `edge` (tops) aligned, or stacked."""
    group = VGroup(first, second)
    return group, [lambda: group.arrange(RIGHT, buff=gap, aligned_edge=edge),
                   lambda: group.arrange(DOWN, buff=gap * 0.6)]


def linked(first: Mobject, link: Mobject, second: Mobject, names: "RowNames | None" = None,
           gap: float = 1.2) -> tuple[VGroup, list[Way]]:
    """(group, [beside, above]): `second` right of `first` with the link (an arrow) between,
    or below it (then with its own row names, when given)."""
    group = VGroup(first, link, second)
    link.turned = False

    def turn(down: bool) -> None:
        if link.turned != down:
            link.rotate(-PI / 2 if down else PI / 2)
            link.turned = down
        if names is not None:
            (names.attach if down else names.detach)(second)

    def beside() -> None:
        turn(False)
        VGroup(first, second).arrange(RIGHT, buff=gap)
        link.move_to((first.box_group.get_right() + second.get_left()) / 2).match_y(first.box_group)

    def above() -> None:
        turn(True)
        VGroup(first, second).arrange(DOWN, buff=gap * 0.75)
        link.move_to((first.get_bottom() + second.get_top()) / 2).match_x(first.box_group)
    return group, [beside, above]


def over_columns(grid: MatrixGrid, labels: Sequence[Mobject], s: float = 1.0) -> MatrixGrid:
    """Put `labels` over the grid's columns (replacing any), all a quarter turn up when one is
    wider than its cell, so that neighbours never touch. Safe to call again (a page's scale s)."""
    grid.col_labels.remove(*list(grid.col_labels.submobjects))
    width = grid.boxes[0][0].width
    turn = any((lab.height if getattr(lab, "turned", False) else lab.width) > width * 0.92
               for lab in labels)
    for j, lab in enumerate(labels):
        if turn != getattr(lab, "turned", False):
            lab.rotate(PI / 2 if turn else -PI / 2)
            setattr(lab, "turned", turn)
        grid.col_labels.add(lab.next_to(grid.boxes[0][j], UP, buff=(0.12 if turn else 0.15) * s))
    return grid


def heat_legend(book: NumberBook, name: str, low: float, high: float, decimals: int,
           height: float = 2.6, steps: int = 12) -> VGroup:
    """A vertical heat bar from low (bottom) to high (top), its two ends numbered."""
    cells = VGroup(*[Rectangle(width=0.3, height=height / steps, stroke_width=0,
                               fill_color=heat_color(low + (high - low) * n / (steps - 1), low, high),
                               fill_opacity=0.9) for n in range(steps)]).arrange(UP, buff=0)
    top = book.num(f"{name}.high", high, decimals).next_to(cells, UP, buff=0.12)
    bottom = book.num(f"{name}.low", low, decimals).next_to(cells, DOWN, buff=0.12)
    return VGroup(cells, top, bottom)


def grouped_bars(series, colors, n_cols: int, height: float = 1.8, labels=None) -> VGroup:
    """Bars for each column: one per series, side by side, the tallest `height` (place_bars
    puts them over a grid's columns); labels[n][j]: what each stands for (the layout's `pictures`)."""
    top = max(float(np.max(s)) for s in series) or 1.0
    group = VGroup()
    for j in range(n_cols):
        for n, (values, color) in enumerate(zip(series, colors)):
            bar = Rectangle(width=0.3, height=max(float(values[j]), 0.0) / top * height + 1e-3,
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            bar.col, bar.offset, bar.share = j, n - (len(series) - 1) / 2, 0.8 / len(series)
            if labels is not None:
                stands.bar(bar, labels[n][j], height / top)
            group.add(bar)
    return group


def place_bars(bars: VGroup, grid: MatrixGrid, s: float = 1.0) -> VGroup:
    """Stand the bars on the grid's column labels, each group over its column."""
    width = grid.boxes[0][0].width
    floor = max([grid.box_group.get_top()[1]] + [lab.get_top()[1] for lab in grid.col_labels]) + 0.15 * s
    for bar in bars:
        thin = bar.width
        bar.stretch_to_fit_width(width * bar.share)
        if getattr(bar, "stands", None):       # a narrower bar, not a smaller chart: its scale holds
            bar.stands["thick"] *= bar.width / thin
        bar.move_to([grid.boxes[0][bar.col].get_x() + bar.offset * bar.width, floor, 0], aligned_edge=DOWN)
    return bars


def arrow(book: NumberBook) -> Mobject:
    """The link between a block and the one made from it."""
    return book.label("→", size=style.TITLE_SIZE, color=style.MUTED)


class RowNames(VGroup):
    """Row labels for a grid that needs them only when it stands alone or below another."""

    def __init__(self, book: NumberBook, target: MatrixGrid, names, color: str) -> None:
        super().__init__(*[book.label(n, color=color, size=style.LABEL_SIZE) for n in names])
        self.target = target

    def attach(self, owner: Mobject) -> None:
        for i, mob in enumerate(self):
            mob.next_to(self.target.boxes[i][0], LEFT, buff=0.15)
        owner.add(self)

    def detach(self, owner: Mobject) -> None:
        owner.remove(self)


def proxy(values, decimals: int, label_w: float = 0.0, head: bool = True) -> Mobject:
    """An empty box the size a grid of these values will take: for choosing a layout before
    drawing the grid (a grid's numbers are recorded as soon as it is made)."""
    values = np.atleast_2d(np.asarray(values, float))
    longest = max(len(style.format_number(x, decimals)) for x in values.flat)
    cell = max(longest * char_width() + style.CELL_PAD, style.MIN_CELL_W)
    height = len(values) * style.MIN_CELL_H + (0.5 if head else 0.0)
    return Rectangle(width=values.shape[1] * cell + label_w, height=height, stroke_opacity=0, fill_opacity=0)


_CHAR: list[float] = []


def char_width() -> float:
    """The advance of one character of the number font (monospaced)."""
    if not _CHAR:
        _CHAR.append(NumberText("0" * 10).width / 10)
    return _CHAR[0]


def batches(mobs: Sequence[Mobject], width: float, height: float, buff: float,
            min_scale: float) -> list[list[Mobject]]:
    """Split a row of mobjects, in order, into runs that each fit at min_scale or more."""
    out: list[list[Mobject]] = []
    run: list[Mobject] = []
    for mob in mobs:
        trial = run + [mob]
        w = sum(m.width for m in trial) + buff * (len(trial) - 1)
        h = max(m.height for m in trial)
        if run and min(width / w, height / h) < min_scale:
            out.append(run)
            trial = [mob]
        run = trial
    return out + [run]


def share(left: Mobject, right: Mobject, area: "Area", split: float = 0.5, most: tuple = (1.0, 1.0),
          gap: float = 0.6, edge=UP) -> VGroup:
    """Two blocks beside each other in the area: the first scaled into `split` of its width, the
    second into the rest (neither grown past its `most`), their `edge`s aligned, centred there."""
    for mob, part, top in ((left, split, most[0]), (right, 1 - split, most[1])):
        mob.scale(Area(area.width * part - gap / 2, height=area.tall(), most=top).room(mob))
    return VGroup(left, right).arrange(RIGHT, buff=gap, aligned_edge=edge).move_to(area.center())


def tiles(blocks: Sequence[tuple[Mobject, MatrixGrid]], area: Area, need: float, batch: int = 0,
          pad: float = 0.18, gaps: tuple[float, float] = (0.35, 0.14), extra: float = 0.0) -> float:
    """Headed grids (header, grid) in rows, placed in the area: for each number of columns that keeps
    a batch (`batch` blocks) in whole rows, or whole batches in a row, the header side (left of the
    first row, or above) that lets the cells be larger; the fewest columns whose cells keep `need`,
    else the roomiest. Measured by the headers and corner cells (the entries follow once chosen);
    `extra` room after each batch of rows. Returns the scale."""
    outlines = [VGroup(header, grid.box_group) for header, grid in blocks]
    homes = [grid.boxes[0][0].get_center() for _, grid in blocks]
    whole = VGroup(*[VGroup(header, grid.boxes[0][0], grid.boxes[-1][-1]) for header, grid in blocks])

    def laid(side: np.ndarray, columns: int) -> None:
        for header, grid in blocks:
            headed(header, grid.box_group, side, pad, grid.boxes[0][0])
        every = batch // columns if batch and batch % columns == 0 else 0
        in_grid(outlines, columns, gaps, UR if side[0] < 0 else UL, every, extra)

    def roomier(columns: int) -> Way:
        sides = [lambda: laid(LEFT, columns), lambda: laid(UP, columns)]
        return lambda: choose(whole, sides, area, prefer=1.0)
    ways = [roomier(c) for c in batch_columns(len(blocks), batch or len(blocks))]
    scale = choose(whole, ways, area, need, prefer=np.inf)     # the fewest columns (a list reads best)
    for (_, grid), home in zip(blocks, homes):
        grid.entry_group.shift(grid.boxes[0][0].get_center() - home)
    area.place(VGroup(*[VGroup(header, grid) for header, grid in blocks]))
    return scale
