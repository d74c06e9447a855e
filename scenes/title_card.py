"""A short title card for a section, shown before its clip in the chapter video."""
from manim import DOWN, Scene, VGroup

from scenes.anim import Appear
from scenes import style
from scenes.numbers import NumberBook

CHAPTER = "第四章　从加权平均推导自注意力与因果掩码"
CARD_SECONDS = 1.5


class TitleCard(Scene):
    def __init__(self, clip_cls, **kwargs):
        self.clip_cls = clip_cls
        super().__init__(**kwargs)

    def construct(self):
        self.camera.background_color = style.BACKGROUND
        book = NumberBook()
        section = book.fmt("section", float(self.clip_cls.section), 1)
        head = book.label(CHAPTER, color=style.MUTED, size=style.BODY_SIZE)
        title = book.label(f"{section}  {self.clip_cls.title}", size=style.TITLE_SIZE + 14)
        self.play(Appear(VGroup(head, title).arrange(DOWN, buff=0.5)), run_time=0.5)
        self.wait(CARD_SECONDS)
