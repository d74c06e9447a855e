"""A short title card for a section, shown before its clip in the chapter video.
It draws the section id through the NumberBook and writes a manifest like a clip."""
from __future__ import annotations

from typing import Any, cast

from manim import DOWN, Camera, Group, ManimColor, Scene

from scenes.kit.text import lang, style
from scenes.kit.draw.anim import Appear
from scenes.kit.text.layout import snapshot
from scenes.kit.text.numbers import NumberBook
from scenes.pipeline.jobs.registry import Clip

CARD_SECONDS = 1.5


class TitleCard(Scene):
    def __init__(self, spec: Clip, **kwargs: Any) -> None:
        self.spec = spec
        self.book = NumberBook()
        self.layout: list[dict[str, Any]] = []
        super().__init__(**kwargs)

    def construct(self) -> None:
        cast(Camera, self.camera).background_color = ManimColor(style.BACKGROUND)
        book = self.book
        chapter = book.compose(style.BOOK_TITLE,
                               book.index("chapter", style.CHAPTER))
        head = book.text(chapter, color=style.MUTED, size=style.BODY_SIZE, kind="title")
        title = book.text("{}  " + lang.tr(self.spec.title), book.section("section", self.spec.section),
                          *[book.const(c) for c in self.spec.title_consts],
                          size=style.TITLE_SIZE + 14, kind="title")
        self.play(Appear(Group(head, title).arrange(DOWN, buff=0.5)), run_time=0.5)
        self.wait(CARD_SECONDS)
        self.layout.append(snapshot(self, book, 1))
