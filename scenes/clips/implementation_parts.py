"""Builders for the implementation clip: a code listing with a shape column (rows on
common baselines), a moving highlight, width bars for d_out, and a results table.

Every number goes through the NumberBook; the texts arrive as Shown (book-made) strings.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from manim import DOWN, LEFT, ORIGIN, RIGHT, Line, Mobject, Rectangle, Text, VectorizedPoint, VGroup

from scenes.kit import style
from scenes.kit.numbers import NumberBook, Shown

CODE_SIZE = 22           # the listing, in the monospaced font
NOTE_SIZE = 20           # the shape column and notes
PITCH = 0.37             # baseline to baseline, before fitting
COLUMN_GAP = 0.55        # between the code and the shape column
SITS_ON_BASELINE = set("abcdefhiklmnorstuvwxzABCDEFGHIKLMNOPRSTUVWXYZ0123456789")


def baseline(mob: Text, text: str) -> float:
    """The y of the text's baseline: the bottom of its first glyph with no descender."""
    chars = [c for c in text if not c.isspace()]
    if len(chars) == len(mob.submobjects):
        for glyph, c in zip(mob.submobjects, chars):
            if c in SITS_ON_BASELINE:
                return float(glyph.get_bottom()[1])
    return float(mob.get_bottom()[1])


@lru_cache(maxsize=None)
def advance(size: int) -> float:
    """The monospaced font's advance per character at `size` (spaces carry no ink to measure)."""
    pair = Text("xx", font=style.NUMBER_FONT, font_size=size)
    return float(pair[1].get_left()[0] - pair[0].get_left()[0])


def on_baseline(mob: Text, text: str, x: float, y: float, size: int) -> Text:
    """Put the text's pen start at x (leading spaces keep their width) and its baseline at y."""
    indent = (len(text) - len(text.lstrip(" "))) * advance(size)
    mob.shift([x + indent - mob.get_left()[0], y - baseline(mob, text), 0])
    return mob


class Listing(VGroup):
    """Code rows (left) and, on the same baselines, the shape each row produces (right).

    rows: (code, colour, note) with note None or a Shown. The notes are built now, so the
    layout never moves, and shown one at a time with `note(i)`.
    """

    def __init__(self, book: NumberBook, rows: Sequence[tuple[Shown, str, Shown | None]]) -> None:
        super().__init__()
        self.codes, self.notes = VGroup(), {}
        for i, (code, color, _) in enumerate(rows):
            mob = book.text(code, font=style.NUMBER_FONT, size=CODE_SIZE, color=color)
            self.codes.add(on_baseline(mob, str(code), 0.0, -i * PITCH, CODE_SIZE))
        x = self.codes.get_right()[0] + COLUMN_GAP
        for i, (_, _, note) in enumerate(rows):
            if note is not None:
                mob = book.text(note, font=style.NUMBER_FONT, size=NOTE_SIZE, color=style.ACCENT)
                self.notes[i] = on_baseline(mob, str(note), x, -i * PITCH, NOTE_SIZE)
        ref = Text("(Hg)", font=style.NUMBER_FONT, font_size=CODE_SIZE)
        self.mid, self.band_h = float(ref.get_center()[1] - baseline(ref, "(Hg)")), ref.height + 0.08
        self.baselines = [VectorizedPoint([0, -i * PITCH, 0]) for i in range(len(rows))]
        self.ruler = Line(ORIGIN, RIGHT).set_opacity(0)     # its length tracks the listing's scale
        self.add(self.codes, *self.notes.values(), *self.baselines, self.ruler)

    def highlight(self, i: int) -> Rectangle:
        """A band behind row i, across the code and the shape column."""
        scale = self.ruler.width
        y = self.baselines[i].get_center()[1] + self.mid * scale
        band = Rectangle(width=self.width + 0.3, height=self.band_h * scale, stroke_color=style.TRACK,
                         stroke_width=2, fill_color=style.NAN_FILL, fill_opacity=0.55)
        return band.move_to([self.get_center()[0], y, 0])

    def note(self, i: int) -> Mobject | None:
        return self.notes.get(i)


def lines(book: NumberBook, items: Sequence[tuple[Shown | str, str]], size: int = NOTE_SIZE,
          font: str = style.FONT, buff: float = 0.16) -> VGroup:
    """Left-aligned lines of text, (text, colour) each."""
    group = VGroup(*[book.text(t, font=font, size=size, color=c) for t, c in items])
    return group.arrange(DOWN, aligned_edge=LEFT, buff=buff)


def width_bar(segments: int, segment_width: float, color: str, unit: float) -> VGroup:
    """A bar of `segments` head blocks, each `segment_width` features wide (unit = scene units per feature)."""
    bar = VGroup(*[Rectangle(width=segment_width * unit, height=0.28, stroke_color=style.BACKGROUND,
                             stroke_width=2, fill_color=color, fill_opacity=0.8) for _ in range(segments)])
    return bar.arrange(RIGHT, buff=0)


def table(rows: Sequence[tuple[Mobject, Mobject]], gap: float = 0.5, row_h: float = 0.5) -> VGroup:
    """Two aligned columns: labels left-aligned, values left-aligned after the widest label."""
    x = max(r[0].width for r in rows) + gap
    group = VGroup()
    for i, (label, value) in enumerate(rows):
        label.move_to([0, -i * row_h, 0], aligned_edge=LEFT)
        value.move_to([x, -i * row_h, 0], aligned_edge=LEFT)
        group.add(label, value)
    return group
