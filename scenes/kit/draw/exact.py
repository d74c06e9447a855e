"""Exact numbers as the book writes them: an exact zero as 0, a fraction ('1/3', '1' and '0'
where whole), a grid of fractions on the weights' heat scale, rows of fractions listed, a whole
count with grouping commas (2,360,064), a name with a digit in it (v1, GPT-2) drawn as written.

Every number goes through the NumberBook.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import Mobject, Text

from scenes.kit.text import style
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook, Shown


def zero_or(value: float, decimals: int = 4) -> int:
    """Decimals for a difference a check needs to be exactly zero: an exact 0 drawn as 0, any
    other value with `decimals`."""
    return 0 if value == 0 else decimals


def fraction(book: NumberBook, name: str, i: int, j: int, num: int, den: int) -> Shown:
    """'1/3' ('1' or '0' when the denominator is 1), numerator and denominator recorded."""
    top = book.index(f"{name}.num[{i}][{j}]", num)
    if den == 1:
        return top
    return book.compose("{num}/{den}", num=top, den=book.index(f"{name}.den[{i}][{j}]", den))


def fraction_grid(book: NumberBook, name: str, fractions: Sequence, hidden: Any, header: str) -> MatrixGrid:
    """Weights as fractions ('1/3', or '1' and '0' where exact) on the weights' heat scale, each
    recorded in its cell as name.frac[i][j]."""
    texts = [[fraction(book, name, i, j, *f) for j, f in enumerate(row)] for i, row in enumerate(fractions)]
    values = [[n / d for n, d in row] for row in fractions]
    return MatrixGrid(book, f"{name}.frac", values, texts=texts, hidden=hidden, heat="weights",
                      header=header, header_color=style.MUTED)


def fraction_rows(book: NumberBook, name: str, fractions: Sequence) -> Shown:
    """The rows listed as '(1, 0, 0)、(1/2, 1/2, 0)'."""
    rows = [book.compose("(" + ", ".join("{}" for _ in row) + ")",
                         *[fraction(book, name, i, j, *f) for j, f in enumerate(row)])
            for i, row in enumerate(fractions)]
    listed = rows[0]
    for row in rows[1:]:
        listed = book.compose("{rows}、{row}", rows=listed, row=row)
    return listed


def big_number(book: NumberBook, label: str, value: int, color: str | None = None,
               size: float = style.NUMBER_SIZE) -> Mobject:
    """A grouped whole number as a number mobject (in the number font, kind 'number'; the text colour
    unless told)."""
    color = color or style.TEXT
    text = book.grouped(label, value)
    mob = Text(str(text), font=style.NUMBER_FONT, font_size=size, color=color)
    return book.register(mob, "number", text, label)


def code_name(book: NumberBook, text: str) -> Shown:
    """A code name with a digit in it (v1, v2, GPT-2), drawn as written and recorded."""
    return book.section(f"name.{text}", text)
