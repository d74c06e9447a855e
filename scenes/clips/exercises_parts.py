"""Builders for the exercises clip: the question card with its countdown, the answers' heading
and area, the kit's grids (−∞, hidden zeros and NaN marked) and tables, fractions and big
numbers with grouping commas; each answer's body is drawn in exercises_answers.py.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Dot, Mobject, RoundedRectangle, Text, VGroup

from scenes.kit import style
from scenes.kit.blocks import text_grid
from scenes.kit.grids import MatrixGrid
from scenes.kit.layout import content_width, fit
from scenes.kit.notes import code, note
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area

ANSWER_TOP = style.CONTENT_TOP - 0.6      # answers start below their heading
DOT_RADIUS, DOT_GAP = 0.08, 0.14


def big_number(book: NumberBook, label: str, value: int, color: str = style.TEXT,
               size: float = style.NUMBER_SIZE) -> Mobject:
    """A grouped whole number as a number mobject (in the number font, kind 'number')."""
    text = book.grouped(label, value)
    mob = Text(str(text), font=style.NUMBER_FONT, font_size=size, color=color)
    return book.register(mob, "number", text, label)


def code_name(book: NumberBook, text: str) -> Shown:
    """A code name with a digit in it (v1, v2, GPT-2), drawn as written and recorded."""
    return book.section(f"name.{text}", text)


def question_card(book: NumberBook, header: Shown, lines: Sequence[Mobject], pause: int) -> tuple:
    """The exercise as a card: header, question lines and (pause > 0) the countdown, one dot a second.

    Returns (card, dots); dots is None without a pause."""
    head = book.text(header, color=style.ACCENT, size=style.TITLE_SIZE)
    body = VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.28)
    parts, dots = [head, body], None
    if pause:
        hold = note(book, "先想一想：停 {} 秒", book.index("pause", pause))
        dots = VGroup(*[Dot(radius=DOT_RADIUS, color=style.TRACK) for _ in range(pause)])
        dots.arrange(RIGHT, buff=DOT_GAP)
        parts.append(VGroup(hold, dots).arrange(DOWN, aligned_edge=LEFT, buff=0.22))
    content = VGroup(*parts).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
    fit(content, width=content_width() - 1.2, height=style.CONTENT_TOP - style.CONTENT_BOTTOM - 1.0)
    frame = RoundedRectangle(corner_radius=0.2, width=content.width + 0.9, height=content.height + 0.8,
                             stroke_color=style.ACCENT, stroke_width=3)
    frame.set_fill(style.NAN_FILL, opacity=0.25).move_to(content)
    card = VGroup(frame, content).move_to([0, (style.CONTENT_TOP + style.CONTENT_BOTTOM) / 2, 0])
    return card, dots


def heading(book: NumberBook, header: Shown) -> Mobject:
    """'习题 3.1 · 答案' at the top left of the content area."""
    mob = book.text("{} · 答案", header, color=style.ACCENT, size=style.BODY_SIZE)
    return mob.move_to([0, style.CONTENT_TOP - 0.2, 0]).align_to([-content_width() / 2, 0, 0], LEFT)


def place(group: Mobject, most: float = 1.0) -> Mobject:
    """Fit an answer into the content area under the heading, centred there."""
    area = Area(content_width(), top=ANSWER_TOP, height=ANSWER_TOP - style.CONTENT_BOTTOM - 0.05, most=most)
    return area.place(group)


# ------------------------------------------------------------------ grids and tables
def grid(book: NumberBook, name: Any, values: Any, decimals: int, header: str | Mobject | None = None,
         header_color: str = style.MUTED, **options: Any) -> MatrixGrid:
    """The kit's grid, entries recorded as name[i][j], −∞ / NaN / hidden zeros (hidden=) marked.
    header: words (the grid's own header), or a line of code drawn above it the same way."""
    words = header if isinstance(header, str) else None
    g = MatrixGrid(book, name, values, decimals, marks=True, header=words, header_color=header_color,
                   **options)
    if header is not None and words is None:
        g.header = header.next_to(VGroup(g.box_group, g.col_labels), UP, buff=0.15)
        g.add(header)
    return g


def column(book: NumberBook, name: str, values: Any, decimals: int, header: str,
           colors: Sequence[str] = ()) -> MatrixGrid:
    """A one-column grid (row sums, visible keys) under a header, recorded as name[i]."""
    g = grid(book, [[f"{name}[{i}]"] for i in range(len(values))], np.asarray(values, float)[:, None],
             decimals, header, header_color=style.ACCENT)
    for row, color in zip(g.entries, colors):
        row[0].set_color(color)
    return g


def row_sums(book: NumberBook, name: str, sums: Any, colors: Sequence[str] = ()) -> MatrixGrid:
    return column(book, name, sums, 4, "行和", colors)


def row_names(book: NumberBook, n: int) -> list[Shown]:
    """'q0', 'q1', ... with each index recorded as row[i] (the grid draws them in the query colour)."""
    return [book.compose("q{}", book.index(f"row[{i}]", i)) for i in range(n)]


def queries(book: NumberBook, n: int) -> dict:
    """A grid's row names as options."""
    return {"row_labels": row_names(book, n), "row_color": style.QUERY}


def fraction_text(book: NumberBook, name: str, i: int, j: int, num: int, den: int) -> Shown:
    """'1/3' ('1' or '0' when the denominator is 1), numerator and denominator recorded."""
    top = book.index(f"{name}.num[{i}][{j}]", num)
    if den == 1:
        return top
    return book.compose("{num}/{den}", num=top, den=book.index(f"{name}.den[{i}][{j}]", den))


def fraction_grid(book: NumberBook, name: str, fractions: Sequence, hidden: Any, header: str) -> MatrixGrid:
    """Weights as fractions ('1/3', or '1' and '0' where exact) on the weights' heat scale."""
    texts = [[fraction_text(book, name, i, j, *f) for j, f in enumerate(row)]
             for i, row in enumerate(fractions)]
    values = [[n / d for n, d in row] for row in fractions]
    return text_grid(book, f"{name}.frac", texts, values, hidden=hidden, heat="weights", header=header,
                     header_color=style.MUTED)


def fraction_rows(book: NumberBook, name: str, fractions: Sequence) -> Shown:
    """The rows listed as '(1, 0, 0)、(1/2, 1/2, 0)'."""
    rows = [book.compose("(" + ", ".join("{}" for _ in row) + ")",
                         *[fraction_text(book, name, i, j, *f) for j, f in enumerate(row)])
            for i, row in enumerate(fractions)]
    listed = rows[0]
    for row in rows[1:]:
        listed = book.compose("{rows}、{row}", rows=listed, row=row)
    return listed


def arrow(book: NumberBook, template: str = "→", *slots: Shown) -> Mobject:
    return code(book, template, *slots, color=style.MUTED, size=style.BODY_SIZE)


def tagged(grid: Mobject, tag: Mobject) -> VGroup:
    """A grid with its shape tag under it."""
    return VGroup(grid, tag.next_to(grid, DOWN, buff=0.15))


def in_a_row(*groups: Mobject, buff: float = 0.5, below: Mobject | None = None, link: Mobject | None = None,
             to: MatrixGrid | None = None) -> list:
    """Groups left to right, their tops on one line (and a line below), fitted under the heading;
    the link (an arrow) level with the first rows of `to`."""
    row = VGroup(*groups).arrange(RIGHT, buff=buff, aligned_edge=UP)
    if below is not None:
        below.next_to(row, DOWN, buff=0.5)
    place(VGroup(row, below) if below is not None else row, most=1.3)
    if link is not None:
        link.match_y(to.box_group)
    return list(groups) + ([below] if below is not None else [])
