"""Builders for the future-check clip: the worked change and the dropout masks. Strips, boards and
pictures are the kit's (scenes/kit/draw/pictures.py), bars too (bars.py), the changes that must be exactly
zero and the board beside its panel sheets.py's; what the lecturer says is its words (lang.words).

Every number goes through the NumberBook.
"""
from __future__ import annotations

from manim import DOWN, RIGHT, VGroup

from scenes.compute.future import FutureCheck
from scenes.kit.motion.derive_cells import gap, term
from scenes.kit.text import style
from scenes.kit.motion.expressions import Derivation
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import NumberBook
from scenes.kit.draw.pictures import Board, mask_colors, picture


def change_made(book: NumberBook, board: Board, zoom: VGroup, b: int, t: int, c: int) -> Derivation:
    """The board's change at (b, t) from the zoom's two outputs at feature c: |y′ − y|."""
    row = zoom.table.cells[c + 1]
    return gap(book, board.number(b, t), term(book, row[2]), term(book, row[1]))


def mask_pictures(book: NumberBook, r: FutureCheck) -> VGroup:
    """The two runs' dropout masks of batch 0, head 0, each with how many visible weights it drops."""
    visible = book.index("visible", r.visible)
    pics = VGroup()
    for k, name in enumerate(("第一次的掩码", "第二次的掩码")):
        pic = picture(mask_colors(r.keep[k, 0, 0]), room=2.6, most=0.6)
        count = note(book, "丢弃 {dropped} / {visible} 个可见权重",
                     dropped=book.index(f"dropped[{k}]", r.dropped[k]), visible=visible)
        pics.add(VGroup(note(book, name, color=style.TEXT), pic, count).arrange(DOWN, buff=0.2))
    legend = note(book, "批 {batch} · 头 {head}：绿 保留，红 丢弃，灰 未来（本就遮住）",
                  batch=book.index("batch[0]", 0), head=book.index("head[0]", 0))
    return VGroup(pics.arrange(RIGHT, buff=0.5), legend).arrange(DOWN, buff=0.3)

