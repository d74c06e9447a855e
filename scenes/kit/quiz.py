"""A question and its answer on the board: the question as a card with a countdown (one dot a
second), the answer's heading at the top left and its area under it, blocks in a row with their
tops on one line (a line below, a link level with a grid's first row), a block with its tag.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import DOWN, LEFT, RIGHT, UP, Animation, Dot, LaggedStart, Mobject, RoundedRectangle, VGroup

from scenes.kit import style
from scenes.kit.anim import Vanish
from scenes.kit.layout import content_width, fit
from scenes.kit.notes import note
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area

ANSWER_TOP = style.CONTENT_TOP - 0.6      # answers start below their heading
DOT_RADIUS, DOT_GAP = 0.08, 0.14


def question_card(book: NumberBook, header: Shown, lines: Sequence[Mobject], pause: int) -> tuple:
    """The question as a card: header, question lines and (pause > 0) the countdown, one dot a
    second. Returns (card, dots); dots is None without a pause."""
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


def countdown(dots: VGroup) -> Animation:
    """The countdown's dots going out one a second, the last first."""
    return LaggedStart(*[Vanish(d, run_time=1.0) for d in reversed(dots)], lag_ratio=1.0)


def heading(book: NumberBook, header: Shown) -> Mobject:
    """'习题 3.1 · 答案' at the top left of the content area."""
    mob = book.text("{} · 答案", header, color=style.ACCENT, size=style.BODY_SIZE)
    return mob.move_to([0, style.CONTENT_TOP - 0.2, 0]).align_to([-content_width() / 2, 0, 0], LEFT)


def place(group: Mobject, most: float = 1.0) -> Mobject:
    """Fit an answer into the content area under the heading, centred there."""
    area = Area(content_width(), top=ANSWER_TOP, height=ANSWER_TOP - style.CONTENT_BOTTOM - 0.05, most=most)
    return area.place(group)


def tagged(block: Mobject, tag: Mobject) -> VGroup:
    """A block (a grid) with its tag (its shape) under it."""
    return VGroup(block, tag.next_to(block, DOWN, buff=0.15))


def in_a_row(*groups: Mobject, buff: float = 0.5, below: Mobject | None = None, link: Mobject | None = None,
             to: Any = None) -> list:
    """Groups left to right, their tops on one line (and a line below), fitted under the heading;
    the link (an arrow) level with the boxes of `to` (a grid)."""
    row = VGroup(*groups).arrange(RIGHT, buff=buff, aligned_edge=UP)
    if below is not None:
        below.next_to(row, DOWN, buff=0.5)
    place(VGroup(row, below) if below is not None else row, most=1.3)
    if link is not None:
        link.match_y(to.box_group)
    return list(groups) + ([below] if below is not None else [])
