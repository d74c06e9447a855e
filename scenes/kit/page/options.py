"""Declarations the page engine (scenes/kit/page/page.py) turns into plan() options: the choices a
step allows, each listed in the clip's order of preference, and the engine tries every
combination in turn.

    labels = abbreviations(book, names, 7)             # whole names, else cut ones
    options = variants(lambda cols, parts: [Page(caption, lambda s: board(cols, parts, s))],
                       labels, optional(head, band))   # the formula may go first, then the band
    pages = plan(book, options, area, needs(options, FULL, LEAST, last=len(options) // len(labels)))

Nothing here draws or measures: the clip says what may change, plan() decides.
"""
from __future__ import annotations

from itertools import product
from typing import Any, Callable, Sequence

from manim import RIGHT, Mobject, VGroup, VMobject

from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Page, Said

Block = Callable[[float], VMobject]     # a block laid out at a page's scale


def variants(make: Callable[..., Sequence[Page]], *axes: Sequence[Any]) -> list[list[Page]]:
    """plan() options: make(a, b, ...) for every choice along each axis, the first axis varying
    slowest (each axis's first choice is the one preferred)."""
    return [list(make(*choice)) for choice in product(*axes)]


def optional(*parts: Mobject) -> list[list[Mobject]]:
    """Parts a page may leave out, listed in their order on the page: all of them, then without
    the first, without the second, ..., then none (the last listed is kept longest)."""
    keep = product((True, False), repeat=len(parts))          # the last part's choice varies slowest
    return [[p for p, k in zip(parts, reversed(ks)) if k] for ks in keep]


def needs(options: Sequence[Any], full: float, least: float, last: int = 1) -> list[float]:
    """Each option's least scale for plan(): `full`, and `least` for the last `last` options (the
    fallbacks, taken as soon as they read)."""
    return [full] * (len(options) - last) + [least] * last


def abbreviations(book: NumberBook, names: Sequence[Shown], width: int) -> list[list[Shown]]:
    """The label choices for a grid's axis: the whole names, then (where some are longer than
    `width` half-widths) the names cut with "…" (NumberBook.abbreviated: the layout keeps each
    cut name's whole text)."""
    cut = [book.abbreviated(n, width) for n in names]
    return [list(names)] if all(a is b for a, b in zip(cut, names)) else [list(names), cut]


def beside_or_apart(together: Said, apart: Sequence[Said], blocks: Sequence[Block], gap: float = 0.7,
                    most: Sequence[float | None] = ()) -> list[list[Page]]:
    """Two options: the blocks side by side on one board (`together`'s caption), else each on a
    page of its own (the captions `apart`; most: each such page's largest scale)."""
    def board(s: float) -> VGroup:
        return VGroup(*[b(s) for b in blocks]).arrange(RIGHT, buff=gap * s)

    def alone(block: Block) -> Callable[[float], VGroup]:
        return lambda s: VGroup(block(s))
    tops = list(most) + [None] * (len(blocks) - len(most))
    return [[Page(together, board)], [Page(c, alone(b), most=m) for c, b, m in zip(apart, blocks, tops)]]
