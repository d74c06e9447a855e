"""Derivations (scenes/kit/motion/derive.py) whose target is a lone number (a table's cell, a board's
number) rather than a MatrixGrid's cell, and the forms the clips need beside
scenes/kit/motion/expressions.py: a sum of numbers, |a − b|, a weighted sum over a list the table
shortened, and a whole count drawn with grouping commas. Every number is the one already drawn
(its book record); nothing is computed here.
"""
from __future__ import annotations

from typing import Sequence

from manim import Mobject, Rectangle, VGroup

from scenes.kit.motion import expressions as ex
from scenes.kit.motion.expressions import Derivation, Term
from scenes.kit.text.numbers import NumberBook


from scenes.kit.text import style


class Lone:
    """One number as derive's grid: entries[0][0] is the number, boxes[0][0] an empty box around
    it, made where the number stands when derive asks (once the page is placed); or, given
    `within` (a table the number is laid out in), made now and added to it."""
    n_rows = n_cols = 1

    def __init__(self, entry: Mobject, within: VGroup | None = None) -> None:
        self.entry = entry
        self.box: Mobject | None = None
        if within is not None:
            self.box = Rectangle(width=entry.width + 0.1, height=entry.height + 0.1, stroke_opacity=0)
            within.add(self.box.move_to(entry))

    @property
    def entries(self) -> list[list[Mobject]]:
        return [[self.entry]]

    @property
    def boxes(self) -> list[list[Mobject]]:
        if self.box is not None:
            return [[self.box]]
        box = Rectangle(width=self.entry.width + 0.1, height=self.entry.height + 0.1, stroke_width=0,
                        stroke_opacity=0, fill_opacity=0)
        return [[box.move_to(self.entry)]]


def term(book: NumberBook, mob: Mobject, source: bool = True) -> Term:
    """The number `mob` as a Term: its label, value and decimals as the book recorded them."""
    meta = book.meta[id(mob)]
    rec = ex.record(book, meta["label"], meta["text"])
    assert rec is not None, meta["label"]
    decimals = 0 if rec["decimals"] is None else int(rec["decimals"])
    return Term(meta["label"], rec["value"], decimals, at=mob, source=source)


def total(book: NumberBook, entry: Mobject, terms: Sequence[Term], room: float,
          op: str = "sum") -> Derivation:
    """entry = a + b + … (a row's sum)"""
    return ex.sum_of(Lone(entry), (0, 0), term(book, entry), terms, room, op)


def gap(book: NumberBook, entry: Mobject, a: Term, b: Term) -> Derivation:
    """entry = |a − b| (b in brackets when it is negative)"""
    right = ["(", b, ")"] if b.text().startswith("−") else [b]
    pieces = ["|", a, "−", *right, "|", "=", term(book, entry)]
    return Derivation(Lone(entry), (0, 0), "max abs difference", pieces)


def listed_sum(book: NumberBook, entry: Mobject, pairs: Sequence[tuple[Term, Term]], room: float,
               every: bool) -> Derivation:
    """entry = p·r + p·r + … over the pairs a table lists; `every`: the list is whole (else "+ …"
    closes it and the derivation says it is shorter)."""
    more = [] if every else ["+", "…"]
    tail = [*more, "=", term(book, entry)]
    body, short = ex.joined([[a, "·", b] for a, b in pairs], room, ex.width(tail) + ex.BUFF)
    return Derivation(Lone(entry), (0, 0), "weighted sum", body + tail, short or not every)


class Grouped(int):
    """A whole number the book prints with grouping commas (2,360,064). As a Term's value the kit's
    expressions draw and record it as the book's grouped text (style.format_number draws an int as
    str(): the same record as book.grouped's)."""

    def __str__(self) -> str:
        return style.format_grouped(int(self))


def counted(label: str, value: int, entry: Mobject) -> Term:
    """A grouped count as a Term, flown from its entry (lit as a text is: a table's entries are no
    grid's cells)."""
    return Term(label, Grouped(value), 0, at=entry)
