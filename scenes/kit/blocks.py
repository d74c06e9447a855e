"""Blocks for the page engine and the ways they relate: grids in a row with their first rows
on one line, stacks, a pair beside or above, two blocks linked by an arrow, row names that
come and go, and empty boxes the size of a grid (to choose a layout before drawing it).

The relations return (group, ways): the page engine (scenes/kit/page.py) tries the ways.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Mobject, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.glyphs import NumberText
from scenes.kit.grids import MatrixGrid
from scenes.kit.numbers import NumberBook
from scenes.kit.page import Way


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


def arrow(book: NumberBook) -> Mobject:
    """The link between a block and the one made from it."""
    return book.label("→", size=style.TITLE_SIZE, color=style.MUTED)


def left_edge(*mobs: Mobject) -> None:
    """Line up the left edges of stacked blocks."""
    for m in mobs[1:]:
        m.align_to(mobs[0], LEFT)


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


class _TextBook:
    """The book, drawing given texts where a grid draws its numbers (text_grid)."""

    def __init__(self, book: NumberBook, texts) -> None:
        self.book, self.texts = book, texts

    def num(self, label: str, value, decimals: int = 4, color: str = style.TEXT,
            size: float = style.NUMBER_SIZE, place: dict | None = None) -> Mobject:
        mob = self.book.text(self.texts[place["row"]][place["col"]], color=color, size=size,
                             font=style.NUMBER_FONT, place=place)
        self.book.meta[id(mob)]["label"] = label      # named as a grid entry, name[i][j]
        return mob

    def __getattr__(self, name: str):
        return getattr(self.book, name)


def text_grid(book: NumberBook, name: str, texts, values, **options) -> MatrixGrid:
    """A MatrixGrid whose entries are texts the book made (a weight as the fraction "1/3"),
    each recorded in its cell as name[i][j]; `values` give the cells their heat and marks
    (options: MatrixGrid's)."""
    return MatrixGrid(_TextBook(book, texts), name, values, **options)


def share(left: Mobject, right: Mobject, area: "Area", split: float = 0.5, most: tuple = (1.0, 1.0),
          gap: float = 0.6, edge=UP) -> VGroup:
    """Two blocks beside each other in the area: the first scaled into `split` of its width, the
    second into the rest (neither grown past its `most`), their `edge`s aligned, centred there."""
    from scenes.kit.page import Area          # (this module imports page's names at the top too)
    for mob, part, top in ((left, split, most[0]), (right, 1 - split, most[1])):
        mob.scale(Area(area.width * part - gap / 2, height=area.tall(), most=top).room(mob))
    return VGroup(left, right).arrange(RIGHT, buff=gap, aligned_edge=edge).move_to(area.center())
