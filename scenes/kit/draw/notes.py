"""Lines of words on a page: a note (muted, label size), a line of code (monospaced), and lines
stacked left-aligned. Each is text the NumberBook made from a digit-free template and its slots."""
from __future__ import annotations

from typing import Sequence

from manim import DOWN, LEFT, Mobject, VGroup

from scenes.kit.text import style
from scenes.kit.text.numbers import NumberBook, Shown


def note(book: NumberBook, template: str, *slots: Shown, color: str | None = None,
         size: float = style.LABEL_SIZE, **named: Shown) -> Mobject:
    """Words beside or under a block: muted and small unless told."""
    return book.text(template, *slots, color=color or style.MUTED, size=size, **named)


def code(book: NumberBook, template: str, *slots: Shown, color: str | None = None,
         size: float = style.LABEL_SIZE, **named: Shown) -> Mobject:
    """A line of code in the monospaced font."""
    return book.text(template, *slots, color=color or style.TEXT, size=size, font=style.NUMBER_FONT, **named)


def lines(book: NumberBook, items: Sequence[tuple[Shown | str, str]], size: float = 20,
          font: str = style.FONT, buff: float = 0.16) -> VGroup:
    """Left-aligned lines of text, (text, colour) each."""
    group = VGroup(*[book.text(t, font=font, size=size, color=c) for t, c in items])
    return group.arrange(DOWN, aligned_edge=LEFT, buff=buff)
