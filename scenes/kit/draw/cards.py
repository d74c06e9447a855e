"""A card for bad input: the rule it breaks in words, then the command and the validator's own
message in a terminal box, on a red-edged card in the middle of the content area."""
from __future__ import annotations

from typing import Sequence

from manim import DOWN, LEFT, RoundedRectangle, SurroundingRectangle, VGroup

from scenes.kit.draw import notes
from scenes.kit.text import style
from scenes.kit.text.layout import content_center, content_width, fit
from scenes.kit.text.numbers import NumberBook, Shown

CARD_PAD = 0.4               # room between the card's edge and its text


def error_card(book: NumberBook, lines: Sequence[tuple[Shown | str, str]],
               terminal: Sequence[tuple[Shown | str, str]]) -> VGroup:
    """A red-edged card: the rule broken (lines) and the validator's own message (terminal)."""
    text = notes.lines(book, lines, size=style.BODY_SIZE, buff=0.22)
    term = notes.lines(book, terminal, size=style.LABEL_SIZE, font=style.NUMBER_FONT, buff=0.12)
    term_box = SurroundingRectangle(term, buff=0.25, color=style.GRID_LINE, stroke_width=1.5)
    term_box.set_fill(style.NAN_FILL, opacity=0.35)
    body = VGroup(text, VGroup(term_box, term)).arrange(DOWN, aligned_edge=LEFT, buff=0.4)
    fit(body, content_width() - 2 * CARD_PAD)
    card = RoundedRectangle(corner_radius=0.15, width=body.width + 2 * CARD_PAD,
                            height=body.height + 2 * CARD_PAD, stroke_color=style.MASK, stroke_width=3)
    card.move_to(body)
    return VGroup(card, body).move_to(content_center())
