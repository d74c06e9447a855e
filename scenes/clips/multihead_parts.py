"""Builders for the multihead clip: one layout of the id tensor, the tracking frames,
the error card. Every id, index and shape is drawn through the NumberBook."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np
from manim import (DOWN, LEFT, UP, Animation, DashedVMobject, Mobject, ReplacementTransform,
                   RoundedRectangle, SurroundingRectangle, VGroup)

from scenes.kit import notes, style
from scenes.kit.anim import Appear, Vanish
from scenes.kit.arrays import spelled_grid
from scenes.kit.blocks import tiles
from scenes.kit.layout import content_center, content_width, fit
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area

# The ids' layout is drawn for cells 0.68 x 0.48 (an id such as e95 plus room for the tracking
# frame) and grown by UNIT to MatrixGrid's cells, at least MIN_CELL_H tall; the ids (set at ID_SIZE)
# and the headers (at label size) grow with it, so every box stays where that layout puts it.
UNIT = style.MIN_CELL_H / 0.48
ID_SIZE = 22
CELL_W = 0.68 * UNIT
GAP_X, GAP_Y, BATCH_GAP = 0.35 * UNIT, 0.14 * UNIT, 0.22 * UNIT
HEADER_PAD = 0.18 * UNIT     # header to its cells: clear of the tracking frame
FRAME_BUFF = 0.06 * UNIT     # the outer line of the double frame, outside the cell
MAX_SCALE = 2.0 / UNIT
LEGIBLE = 0.95 / UNIT        # ids at this scale read well at 480p
CARD_PAD = 0.4               # room between the error card's edge and its text


def coords_text(book: NumberBook, label: str, values: Sequence[int], open_axes: int = 0) -> Shown:
    """'[0, 1, :, :]': fixed indices recorded, then ':' for each open axis."""
    parts = [book.index(f"{label}[{k}]", v) for k, v in enumerate(values)]
    return book.compose("[" + ", ".join(["{}"] * len(parts) + [":"] * open_axes) + "]", *parts)


def shape_line(book: NumberBook, label: str, axes: Sequence[str], shape: Sequence[int]) -> Shown:
    """'[B, T, H, d] = [1, 3, 2, 2]' with each size recorded."""
    return book.compose("[" + ", ".join(axes) + "] = {}", book.coords(label, shape))


class TensorView:
    """One layout of the id tensor, in reading order: a grid per fixed first two indices
    ('[0, 0, :]' is a row of D ids; '[0, 1, :, :]' a small matrix) under its header, the grids
    in rows (blocks.tiles): for each number of columns the roomier header side, and the fewest
    columns that keep the ids at LEGIBLE (else the roomiest).

    Each id is a number ("e5", recorded as the id at that index of this layout, in its cell).
    Not a Mobject itself: add `parts()` to the scene, move ids with `morph`.
    """

    def __init__(self, book: NumberBook, name: str, ids: Any, track: int | None = None,
                 marks: Iterable[int] | None = None, top: float = style.CONTENT_TOP) -> None:
        """The view fills the content area's width between `top` and the content's bottom."""
        self.book, ids = book, np.asarray(ids)
        self.label_of: dict[int, str] = {}
        self.texts: dict[int, Mobject] = {}
        self.boxes: dict[int, Mobject] = {}
        header_of: dict[int, Mobject] = {}
        blocks = []
        for i0, i1 in np.ndindex(ids.shape[:2]):
            sub = np.atleast_2d(ids[i0, i1])
            at = (lambda i, j: (i0, i1, i, j)) if ids.ndim == 4 else (lambda i, j: (i0, i1, j))
            labels = [[name + "".join(f"[{k}]" for k in at(i, j)) for j in range(sub.shape[1])]
                      for i in range(sub.shape[0])]
            grid = spelled_grid(book, "e{}", labels, sub, size=ID_SIZE, cell_w=CELL_W)
            grid.box_group.set_stroke(width=1.5)
            for entry in grid.entry_group:
                entry.scale(UNIT)
            words = coords_text(book, f"{name}.group[{i0}][{i1}]", (i0, i1), ids.ndim - 2)
            header = book.label(words, color=style.MUTED, size=style.LABEL_SIZE).scale(UNIT)
            for (i, j), n in np.ndenumerate(sub):
                n = int(n)
                self.texts[n], self.boxes[n] = grid.entries[i][j], grid.boxes[i][j]
                self.label_of[n], header_of[n] = labels[i][j], header
            blocks.append((header, grid))
        self.headers = VGroup(*[header for header, _ in blocks])
        self.box_group = VGroup(*[grid.box_group for _, grid in blocks])
        area = Area(content_width(), top=top, bottom=style.CONTENT_BOTTOM, most=MAX_SCALE)
        self.scale = tiles(blocks, area, LEGIBLE, ids.shape[1], HEADER_PAD, (GAP_X, GAP_Y), BATCH_GAP)
        for n in (marks if marks is not None else ()):
            self.texts[int(n)].set_color(style.MASK)
        if track is not None:
            self.texts[track].set_color(style.TRACK)
            header_of[track].set_color(style.TRACK)

    def parts(self) -> list[Mobject]:
        return [self.box_group, self.headers, *self.texts.values()]

    def frame(self, n: int) -> VGroup:
        """The double frame around element n (the lab's 双线框)."""
        box = self.boxes[n]
        inner = SurroundingRectangle(box, buff=0.0, color=style.TRACK, stroke_width=3)
        outer = SurroundingRectangle(box, buff=FRAME_BUFF * self.scale, color=style.TRACK, stroke_width=2)
        return self.book.mark(VGroup(inner, outer), "track", [self.label_of[n]])

    def ghost(self, n: int) -> DashedVMobject:
        """A dashed frame: where element n belongs."""
        rect = SurroundingRectangle(self.boxes[n], buff=0.05 * UNIT * self.scale, color=style.TRACK,
                                    stroke_width=2)
        return DashedVMobject(rect, num_dashes=16)


def morph(old: TensorView, new: TensorView,
          frames: Iterable[tuple[Mobject, Mobject]] = ()) -> list[Animation]:
    """Move every id from its place in `old` to its place in `new` (and the frames with it)."""
    anims = [Vanish(old.box_group), Vanish(old.headers), Appear(new.box_group), Appear(new.headers)]
    anims += [ReplacementTransform(old.texts[n], new.texts[n]) for n in old.texts]
    anims += [ReplacementTransform(a, b) for a, b in frames]
    return anims


def moved(book: NumberBook, old: TensorView, new: TensorView, n: int) -> None:
    """The tracked id, moved from its place in `old` to `new`: its record says from which label
    (op "move", as a derivation of scenes/kit/derive.py says it), the first time that layout's id is made."""
    label = new.label_of[n]
    rec = next((r for r in book.records if r["label"] == label), None)
    if rec is not None and "derivation" not in rec and label in book.sources:
        rec["derivation"] = {"step": book.step, "op": "move", "shows": [old.label_of[n]], "motion": "morph"}


def wrong_caption(scene: Any, emphasis: bool) -> Shown:
    """Step 5's caption: no element moves (order), the tracked one stays, or it moves."""
    c, case = scene.book.compose, scene.case()
    if case == "order":
        return c("对照：不换回就直接 reshape；这里 {}，顺序不变，碰巧不出错。", scene.unit_axes())
    if case == "stays" and emphasis:
        return c("错误合并：不换回就 reshape，{track} 碰巧不动，但有 {misplaced} 个元素错了位。",
                 **scene.slots(), misplaced=scene.index("misplaced"))
    if case == "stays":
        return c("对照：不换回就直接 reshape，{} 碰巧不动，别的元素却错了位。", scene.eid())
    if emphasis:
        return c("错误合并：不换回就 reshape，{track} 从正确的 {merged} 错到 {wrong}。",
                 **scene.slots("merged", "wrong"))
    return c("对照：不换回就直接 reshape，{track} 会错到 {wrong}。", **scene.slots("wrong"))


def info_lines(book: NumberBook, lines: Sequence[tuple[str, str]]) -> VGroup:
    """The lines above the tensor: (text, colour) pairs, left-aligned, under the title."""
    group = fit(notes.lines(book, lines, size=style.LABEL_SIZE, buff=0.14), content_width())
    return group.move_to([0, style.CONTENT_TOP, 0], aligned_edge=UP)


def error_card(book: NumberBook, lines: Sequence[tuple[str, str]],
               terminal: Sequence[tuple[str, str]]) -> VGroup:
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


# What the lecturer says in each step (the caption is its one-line summary), from the book's
# 4.7; its slots ({track}, {merged}, ...) are filled by the book with numbers the step draws.
# Keys name the case.
NARRATION = {
    "start": "一批序列可以同时计算，也可以拆成多个注意力头，各头分别算一组权重再合并。"
             "编号只标识元素，不是 Q、K、V 的实际数值，每一步数量和身份都不变。"
             "D 均分给 {heads} 个头，每头宽度 d 为 {head_dim}；{track} 原属批次 {b}、位置 {t}、特征 {c}。",
    "start.one": "一批序列可以同时计算，也可以拆成多个注意力头，各头分别算一组权重再合并。"
                 "编号只标识元素，不是 Q、K、V 的实际数值，每一步数量和身份都不变。"
                 "这里只有 {heads} 个头，d 就是 D，为 {head_dim}；{track} 原属批次 {b}、位置 {t}、特征 {c}。",
    "split": "reshape 只把最后一维 D 拆成 H 和 d 两维，元素的顺序不变。"
             "c 除以 d 的整数部分是头下标 h，余数是头内下标 r：{track} 的 c 为 {c}，d 为 {head_dim}，所以 h 为 {h}、r 为 {r}。"
             "reshape 可能返回视图或副本，这里只看元素的逻辑顺序。",
    "transpose": "交换中间两轴后，每组 [b, h] 是一个头自己的 T 行 d 列矩阵，矩阵乘法对每个批次、每个头独立进行。"
                 "分数形状是 {}，上下文是 [B, H, T, d]。",
    "transpose.swap": "{track} 从 {split} 变成 {transposed}，位置与头的下标互换。",
    "transpose.same": "{track} 的位置下标与头下标相等，互换后坐标仍是 {transposed}。",
    "transpose.order": "这里 {}，transpose 不改变元素的先后顺序。",
    "merge": "算完以后先用 transpose 换回 [B, T, H, d]，同一位置的各头重新相邻；"
             "再 reshape 合并最后两维，把各头拼回每个位置的 D 个特征。"
             "{track} 回到 {merged}，和出发时一样。之后还要用输出投影混合不同头的信息。",
    "merge.one": "算完以后先用 transpose 换回 [B, T, H, d]，再 reshape 合并最后两维，回到 [B, T, D]。"
                 "这里只有 {heads} 个头，两步都不改变元素的先后顺序，{track} 回到 {merged}，和出发时一样。"
                 "之后还要用输出投影混合信息。",
    "merge.moves": "红色一行是错误对照：不换回就 reshape，{track} 会错到 {wrong}。",
    "merge.stays": "红色一行是错误对照：不换回就 reshape，{track} 碰巧仍在 {wrong}，别的元素却会错位。",
    "merge.order": "红色一行是错误对照：不换回就 reshape，{track} 仍在 {wrong}；这里 {axes}，没有元素会错位。",
    "wrong.order": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]。"
                   "这里 {}，transpose 本来没有改变元素顺序，所以碰巧不出错；一般情况下，合并前必须先换回。",
    "wrong.stays": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，{track} 碰巧还在原位。"
                   "别的元素却错了位，有的行混进了别的位置的特征，程序也不报错。"
                   "合并前必须先换回，才能把同一位置的各头拼接起来。",
    "wrong.stays.count": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，{track} 碰巧还在原位。"
                         "红色的 {misplaced} 个元素却错了位，有的行混进了别的位置的特征，程序也不报错。"
                         "合并前必须先换回，才能把同一位置的各头拼接起来。",
    "wrong.moves": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，"
                   "{track} 却从虚线框里的正确位置 {merged} 错到了 {wrong}。有的行混进了别的位置的特征，程序也不报错。"
                   "合并前必须先换回。",
    "wrong.moves.count": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，"
                         "{track} 却从虚线框里的正确位置 {merged} 错到了 {wrong}。红色的 {misplaced} 个元素都不在原位，程序也不报错。"
                         "合并前必须先换回。",
    "error": "多头要求总宽度 D 能被头数 H 整除，每头宽度 D 除以 H 才是整数。"
             "这里 {d_model} 除以 {heads} 得 {quotient} 余 {remainder}，无法均分给每个头。"
             "输入检查在拆头之前就停下，报出这条错误，而不是算出一个形状不对的结果。",
}
