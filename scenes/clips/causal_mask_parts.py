"""Builders for the causal-mask clip: grids whose −∞, exact-zero and NaN cells cannot be
mistaken for ordinary numbers, rows of grids that line up, and the choice of a layout
that keeps every number legible (or the signal to show one block at a time).

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Mobject, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.glyphs import NumberText
from scenes.kit.grids import MatrixGrid
from scenes.kit.layout import content_center, fit
from scenes.kit.numbers import NumberBook, Shown

AREA = (13.0, 5.6)     # width, height a step fills (inside the content area)
GROW = 1.35            # small layouts grow at most this much
MIN_NUMBER_H = 0.155   # every number at least this tall (the contract asks 0.15)
SHORT = 8              # token labels on grids: at most this many half-width characters, then "…"


def grid(book: NumberBook, name, values, decimals: int = 4, **kw) -> MatrixGrid:
    """A MatrixGrid whose −∞, NaN and masked zeros cannot pass for numbers, with room for its labels."""
    return MatrixGrid(book, name, values, decimals, marks=True, fit_col_labels=True, **kw)


def column(book: NumberBook, name: str, values, **kw) -> MatrixGrid:
    """One value per row, recorded as name[i] (row sums, one query's scores)."""
    values = np.asarray(values, float)
    if kw.get("hidden") is not None:
        kw["hidden"] = np.asarray(kw["hidden"], bool)[:, None]
    return grid(book, [[f"{name}[{i}]"] for i in range(len(values))], values[:, None], **kw)


def line(book: NumberBook, name: str, values, **kw) -> MatrixGrid:
    """One row of values, recorded as name[c] (a query, an output)."""
    values = np.asarray(values, float)
    return grid(book, [[f"{name}[{c}]" for c in range(len(values))]], values[None, :], **kw)


def side_by_side(grids: list[MatrixGrid], buff: float = 0.3) -> VGroup:
    """Grids placed left to right with their first rows on one line."""
    group = VGroup(*grids)
    for left, right in zip(grids, grids[1:]):
        right.shift(left.boxes[0][-1].get_right() + RIGHT * buff - right.boxes[0][0].get_left())
        right.shift(UP * (left.boxes[0][0].get_center()[1] - right.boxes[0][0].get_center()[1]))
    return group


def vector_text(book: NumberBook, name: str, values, decimals: int = 4) -> Shown:
    """'(a, b)' with each component recorded as name[c]."""
    parts = [book.fmt(f"{name}[{c}]", v, decimals) for c, v in enumerate(values)]
    return book.compose("(" + ", ".join("{}" for _ in parts) + ")", *parts)


def short(text: str) -> str:
    """A long token cut to fit above a narrow column ("Transformers" -> "Transfo…"); CJK counts twice."""
    weight = [2 if ord(ch) > 0x2E80 else 1 for ch in text]
    if sum(weight) <= SHORT:
        return text
    keep, used = 0, 0
    while used + weight[keep] <= SHORT - 1:
        used += weight[keep]
        keep += 1
    return text[:keep] + "…"


def proxy(values, decimals: int, label_w: float = 0.0, head: bool = True) -> Mobject:
    """An empty box the size a grid of these values will take: for choosing a layout before
    drawing the grid (a grid's numbers are recorded as soon as it is made)."""
    values = np.atleast_2d(np.asarray(values, float))
    longest = max(len(style.format_number(x, decimals)) for x in values.flat)
    cell = max(longest * char_width() + style.CELL_PAD, style.MIN_CELL_W)
    height = len(values) * style.MIN_CELL_H + (0.5 if head else 0.0)
    return Rectangle(width=values.shape[1] * cell + label_w, height=height, stroke_opacity=0, fill_opacity=0)


_CHAR = []


def char_width() -> float:
    """The advance of one character of the number font (monospaced)."""
    if not _CHAR:
        _CHAR.append(NumberText("0" * 10).width / 10)
    return _CHAR[0]


# ---------------------------------------------------------------- layout
def legible(book: NumberBook, mob: Mobject) -> float:
    """The least scale at which every number in `mob` stays MIN_NUMBER_H tall."""
    heights = [m.height for m in mob.get_family() if book.meta.get(id(m), {}).get("kind") == "number"]
    return MIN_NUMBER_H / min(heights) if heights else 0.0


def room(mob: Mobject, most: float = GROW) -> float:
    """The scale at which `mob` fills the step's area."""
    return min(AREA[0] / mob.width, AREA[1] / mob.height, most)


def fits(book: NumberBook, mob: Mobject) -> bool:
    return room(mob) >= legible(book, mob)


def best(group: Mobject, arrangements: list[Callable[[], object]]) -> float:
    """Place the parts of `group` by each arrangement in turn, keep the roomiest; its scale."""
    scales = []
    for arrange in arrangements:
        arrange()
        scales.append(room(group))
    pick = int(np.argmax(scales))
    arrangements[pick]()
    return scales[pick]


def place(mob: Mobject) -> Mobject:
    """Scale into the step's area and centre in the content area."""
    return fit(mob, *AREA, most=GROW).move_to(content_center())


def stack(*parts: Mobject, buff: float = 0.4) -> VGroup:
    """Parts one under another, centred; empty parts take no room."""
    return VGroup(*[p for p in parts if p.family_members_with_points()]).arrange(DOWN, buff=buff)


def arrow(book: NumberBook) -> Mobject:
    return book.label("→", size=style.TITLE_SIZE, color=style.MUTED)


def linked(first: Mobject, link: Mobject, second: Mobject, names: RowNames | None = None,
           gap: float = 1.2) -> tuple[VGroup, list[Callable[[], object]]]:
    """(group, [beside, above]): `second` right of `first` with the arrow between, or below it
    (then with its own row names, when given)."""
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


def pair(first: Mobject, second: Mobject, gap: float = 0.8,
         edge=UP) -> tuple[VGroup, list[Callable[[], object]]]:
    """(group, [beside, above]) for two blocks, beside with their `edge` (tops) aligned, or stacked."""
    group = VGroup(first, second)
    return group, [lambda: group.arrange(RIGHT, buff=gap, aligned_edge=edge),
                   lambda: group.arrange(DOWN, buff=gap * 0.6)]


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
