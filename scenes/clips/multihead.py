"""4.7 加上批次和多个头: follow one element through reshape, transpose and the merge. The drawing
(the id tensor, its moves, the error card) is the kit's (scenes/kit/page/tensors.py, cards.py)."""
from __future__ import annotations

import re
from typing import Any

from scenes.compute import heads as compute
from scenes.kit.text import lang, style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.draw.cards import error_card
from scenes.kit.text.numbers import Shown
from scenes.kit.scene.inputs import InputError, flag, integer
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.page.tensors import Stage, TensorView, shape_line

AXES = {"start": ("B", "T", "D"), "split": ("B", "T", "H", "d"), "transposed": ("B", "H", "T", "d"),
        "back": ("B", "T", "H", "d"), "merged": ("B", "T", "D"), "wrong": ("B", "T", "D")}
# Transposing back restores the split layout exactly (the point of step 4), and the step ends on
# the merge: the passing "back" layout is recorded under the split's labels, shown in step 2.
RECORDED_AS = {"back": "split"}

# What each drawn block is: its name's colour (name tag, shape tag, header) and its frames' (the
# entries' cells), or one role for both; read by tests/support/contract.block_problems from what is drawn.
BLOCKS = {"start*": ("text", "grid"), "split*": ("text", "grid"), "transposed*": ("text", "grid"),
          "merged*": ("text", "grid"), "wrong*": ("text", "grid")}        # one block a batch (start[0], ...)
# What the lecturer says in each step (the caption is its one-line summary), from the book's 4.7,
# keyed by step and case ("wrong.moves.count"): assets/lang/zh/multihead.json. Its slots
# ({track}, {merged}, ...) are filled by the book with numbers the step draws.
NARRATION = lang.words("multihead")["narration"]


NOT_DIVISIBLE = "D = {d_model} is not divisible by H = {heads}: each head needs D/H features"


def rules(raw: dict) -> dict:
    text = str(raw.get("shape", "1,3,4"))
    parts = [s for s in re.split(r"[,\s]+", text.strip()) if s]
    if len(parts) != 3:
        raise InputError("shape", text, "is B,T,D: three whole numbers")
    b, t, d = (integer(part, "shape", 1, most) for part, most in zip(parts, (2, 4, 12)))
    heads = integer(raw.get("heads", 2), "heads", 1, 4)
    if d % heads:
        raise InputError("heads", str(raw.get("heads")), NOT_DIVISIBLE.format(d_model=d, heads=heads))
    name = str(raw.get("track", "e2")).strip()
    track = integer(name[1:] if name[:1] in "eE" and len(name) > 1 else name, "track", 0, b * t * d - 1)
    # The error card's example (the book: D = 5, H = 2): it must be a D that H does not divide.
    error_d = integer(raw.get("error_d", 5), "error_d", 1, 12)
    error_heads = integer(raw.get("error_heads", 2), "error_heads", 2, 4)
    if error_d % error_heads == 0:
        raise InputError("error_d", str(raw.get("error_d", 5)),
                         f"the error example needs a D that H = {error_heads} does not divide")
    return {"shape": (b, t, d), "heads": heads, "track": track,
            "wrong_merge": flag(raw.get("wrong_merge")),
            "error_d": error_d, "error_heads": error_heads}


class Multihead(ClipScene):
    spec = Clip(
        name="multihead", section="4.7", title="加上批次和多个头",
        summary="4.7 多头：跟踪一个元素经过 reshape、transpose 与合并",
        rules=rules,
        defaults={"shape": "1,3,4", "heads": 2, "track": "e2", "error_d": 5, "error_heads": 2},
        options=(
            Option('shape', 'B,T,D'),
            Option('heads', 'H (D divisible by H)'),
            Option('track', 'element, eN or N'),
            Option('wrong-merge', 'emphasise the wrong merge: preview it at the merge, '
                   'mark every misplaced id', flag=True),
            Option('error-d', "the last step's example: a D that --error-heads does not divide"),
            Option('error-heads', "the last step's example: H, from 2 to 4"),
        ),
    )

    def provenance(self) -> dict:
        return compute.drawn_sources(self.result.layouts)

    def kinds(self) -> dict:
        return compute.KINDS

    def compute(self) -> compute.HeadTrack:
        i = self.inputs
        self.stage = Stage(self)              # the tensor layout on screen, its tracking frame, info lines
        self.misplaced = compute.misplaced_by_wrong_merge(i["shape"], i["heads"])
        self.split_check = compute.head_split(i["error_d"], i["error_heads"])
        self.error = self.validator_error()
        return compute.track_element(i["shape"], i["heads"], i["track"])

    def validator_error(self) -> InputError:
        """The error the real input rules give for the book's D = 5, H = 2 (or the inputs')."""
        b, t, _ = self.inputs["shape"]
        raw = {"shape": ",".join(map(str, (b, t, self.inputs["error_d"]))),
               "heads": self.inputs["error_heads"], "track": 0}
        try:
            rules(raw)
        except InputError as err:
            return err
        raise RuntimeError("the error example passed the input rules")

    def construct(self) -> None:
        self.storyboard(
            self.projected,
            self.split_heads,
            self.transpose_heads,
            self.merge_heads,
            self.wrong_merge,
            self.not_divisible,
        )

    # -- helpers
    def eid(self) -> Shown:
        return self.book.compose("e{}", self.book.index("track", self.result.element))

    def at(self, step: str) -> Shown:
        return self.book.coords(f"track.{step}", getattr(self.result, step))

    def slots(self, *steps: str) -> dict[str, Shown]:
        """The tracked id (track) and its coordinates at these steps, as named slots."""
        return {"track": self.eid(), **{s: self.at(s) for s in steps}}

    def index(self, name: str) -> Shown:
        """heads, head_dim, count, misplaced: the sizes a sentence may name."""
        r = self.result
        value = {"heads": r.heads, "head_dim": r.head_dim, "count": r.layouts["start"].size,
                 "misplaced": len(self.misplaced)}[name]
        return self.book.index(name, value)

    def shape(self, step: str) -> Shown:
        return shape_line(self.book, f"{RECORDED_AS.get(step, step)}.shape", AXES[step],
                          self.result.layouts[step].shape)

    def keeps_order(self) -> bool:
        """With one head or one position, transpose(1, 2) leaves the element order as it is."""
        return self.result.heads == 1 or self.inputs["shape"][1] == 1

    def unit_axes(self) -> Shown:
        """'H = 1', 'T = 1' or both: the axes of length one that keep the order."""
        book, (_, t, _) = self.book, self.inputs["shape"]
        parts = ([book.compose("H = {}", self.index("heads"))] if self.result.heads == 1 else []) + (
            [book.compose("T = {}", book.index("start.shape[1]", t))] if t == 1 else [])
        return (book.compose("{h}、{t}", h=parts[0], t=parts[1]) if len(parts) == 2
                else book.compose("{}", *parts))

    def show(self, step: str, lines: list, marks: Any = None, passing: bool = False) -> TensorView:
        """Move every id into the layout of `step`, under new info lines (`passing`: the step goes
        on to another layout, where the headers that leave this one may come back)."""
        r = self.result
        return self.stage.show(RECORDED_AS.get(step, step), r.layouts[step], r.element, lines, marks, passing)

    def case(self) -> str:
        """How the wrong merge goes: no element moves (order), the tracked one stays or it moves."""
        r = self.result
        return "order" if not len(self.misplaced) else "stays" if r.wrong == r.merged else "moves"

    # -- steps
    def projected(self) -> None:
        r, book, c = self.result, self.book, self.book.compose
        sizes = {"heads": self.index("heads"), "head_dim": self.index("head_dim")}
        self.step("投影后的张量 [B, T, D]：每个元素一个唯一编号，双线框跟踪 {}。", self.eid())
        at = {axis: book.index(f"track.start[{k}]", v) for k, (axis, v) in enumerate(zip("btc", r.start))}
        self.narrate(NARRATION["start.one" if r.heads == 1 else "start"], **self.slots(), **sizes, **at)
        self.show("start", [
            (c("{shape}    H = {heads}，d = D/H = {head_dim}    唯一元素 {count} 个", shape=self.shape("start"),
               **sizes, count=self.index("count")), style.TEXT),
            (c("{track}：[b, t, c] = {start}，原属批次 b、位置 t、特征 c", **self.slots("start")), style.TRACK)])

    def split_heads(self) -> None:
        r, book, c = self.result, self.book, self.book.compose
        self.step("reshape 成 [B, T, H, d]：特征下标 c 拆成 h = floor(c/d) 和 r = c mod d。")
        slots = {**self.slots(), "c": book.index("track.start[2]", r.start[2]),
                 "head_dim": self.index("head_dim"), "h": book.index("track.split[2]", r.split[2]),
                 "r": book.index("track.split[3]", r.split[3])}
        self.narrate(NARRATION["split"], **slots)
        self.show("split", [
            (c("{}    reshape 只拆开最后一维，元素的先后顺序不变", self.shape("split")), style.TEXT),
            (c("{track}：c = {c}，d = {head_dim} → h = floor(c/d) = {h}，r = c mod d = {r} → {split}", **slots,
               split=self.at("split")), style.TRACK)])

    def transpose_heads(self) -> None:
        r, book, c = self.result, self.book, self.book.compose
        t_axis, h_axis = (book.index(f"transpose.dims[{k}]", v) for k, v in enumerate(compute.HEAD_SWAP))
        self.step("transpose({t_axis}, {h_axis}) 交换 T、H 两轴，得到 [B, H, T, d]；每头的分数是 [B, H, T, T]。",
                  t_axis=t_axis, h_axis=h_axis)
        self.narrate(NARRATION["transpose"], book.coords("score_shape", r.score_shape))
        same = r.split[1] == r.split[2]
        if same:
            self.narrate(NARRATION["transpose.same"], **self.slots("transposed"))
        else:
            self.narrate(NARRATION["transpose.swap"], **self.slots("split", "transposed"))
        if self.keeps_order():
            self.narrate(NARRATION["transpose.order"], self.unit_axes())
        swap = ("{track}：{split} → {transposed}，t 与 h 相等，互换后坐标不变；每组 [b, h, :, :] 是一个头的 [T, d]"
                if same else "{track}：{split} → {transposed}，t 与 h 互换；每组 [b, h, :, :] 是一个头的 [T, d]")
        lines = [(c("{shape}    每头 S = Q Kᵀ/√d：[B, H, T, T] = {scores}", shape=self.shape("transposed"),
                    scores=book.coords("score_shape", r.score_shape)), style.TEXT),
                 (c(swap, **self.slots("split", "transposed")), style.TRACK)]
        if self.keeps_order():      # with both axes of length one, not even the groups change
            regroups = r.layouts["split"].shape != r.layouts["transposed"].shape
            lines.append((c("{}：transpose 不改变元素的先后顺序，只改变分组" if regroups
                            else "{}：transpose 不改变元素的先后顺序，形状也不变", self.unit_axes()), style.MUTED))
        self.show("transposed", lines)

    def merge_heads(self) -> None:
        c, emphasis = self.book.compose, self.inputs["wrong_merge"]
        self.step("transpose 换回 [B, T, H, d]，再 reshape 合并成 [B, T, D]：{track} 回到 {merged}。",
                  **self.slots("merged"))
        one = {"heads": self.index("heads")} if self.result.heads == 1 else {}
        self.narrate(NARRATION["merge.one" if one else "merge"], **one, **self.slots("merged"))
        if emphasis:      # the red preview line below
            case = self.case()
            self.narrate(NARRATION["merge." + case], **self.slots("wrong"),
                         **({"axes": self.unit_axes()} if case == "order" else {}))
        back = (c("{}    先换回：同一位置的各头重新相邻", self.shape("back")) if not self.keeps_order()
                else c("{shape}    先换回：{axes}，顺序本来就没变", shape=self.shape("back"), axes=self.unit_axes()))
        moved = c("{track}：{transposed} → {back}", **self.slots("transposed", "back"))
        self.show("back", [(back, style.TEXT), (moved, style.TRACK)], passing=True)
        chain = c("{start} → {split} → {transposed} → {back} → {merged}",
                  **{s: self.at(s) for s in ("start", "split", "transposed", "back", "merged")})
        lines = [(c("{}    再 reshape：各头拼接回每个位置的 D 个特征", self.shape("merged")), style.TEXT),
                 (c("{track}：{chain}", track=self.eid(), chain=chain), style.TRACK)]
        if emphasis:
            lines.append((c("错误对照：不换回就 reshape，{track} 碰巧仍在 {wrong}" if self.case() != "moves"
                            else "错误对照：不换回就 reshape，{track} 会错到 {wrong}", **self.slots("wrong")),
                          style.MASK))
        self.show("merged", lines)

    def wrong_merge(self) -> None:
        r, c, case = self.result, self.book.compose, self.case()
        emphasis = self.inputs["wrong_merge"]
        self.step("{}", self.wrong_caption(emphasis))
        count = {"misplaced": self.index("misplaced")} if emphasis and case != "order" else {}
        if case == "order":
            self.narrate(NARRATION["wrong.order"], self.unit_axes())
        else:
            key = "wrong." + case + (".count" if emphasis else "")
            coords = ("merged", "wrong") if case == "moves" else ()
            self.narrate(NARRATION[key], **self.slots(*coords), **count)
        self.show("transposed", [(c("{}    回到拆头后的布局，跳过 transpose 换回", self.shape("transposed")), style.TEXT),
                                 (c("{track}：{transposed}", **self.slots("transposed")), style.TRACK)],
                  passing=True)       # the [B, T, D] headers ride along and come back with the wrong merge
        lines = [(c("不换回：[B, H, T, d] 按当前顺序直接 reshape 成 {}", self.shape("wrong")), style.TEXT),
                 (c("{track}：碰巧仍在 {wrong}", **self.slots("wrong")) if case != "moves" else
                  c("{track}：正确位置 {merged}（虚线框），错误合并到 {wrong}", **self.slots("merged", "wrong")),
                  style.TRACK)]
        if case == "order":
            lines.append((c("{}：transpose 不改变元素的先后顺序，这里碰巧不出错", self.unit_axes()), style.MUTED))
        elif emphasis:
            lines.append((c("红色：{count} 个元素中 {misplaced} 个不在原位，同一行混入了别的位置的特征",
                            count=self.index("count"), misplaced=self.index("misplaced")), style.MASK))
        view = self.show("wrong", lines, self.misplaced if emphasis else None)
        if case == "moves":
            self.play(Appear(view.ghost(int(r.layouts["wrong"][r.merged]))))

    def wrong_caption(self, emphasis: bool) -> Shown:
        """Step 5's caption: no element moves (order), the tracked one stays, or it moves."""
        c, case = self.book.compose, self.case()
        if case == "order":
            return c("对照：不换回就直接 reshape；这里 {}，顺序不变，碰巧不出错。", self.unit_axes())
        if case == "stays" and emphasis:
            return c("错误合并：不换回就 reshape，{track} 碰巧不动，但有 {misplaced} 个元素错了位。",
                     **self.slots(), misplaced=self.index("misplaced"))
        if case == "stays":
            return c("对照：不换回就直接 reshape，{} 碰巧不动，别的元素却错了位。", self.eid())
        if emphasis:
            return c("错误合并：不换回就 reshape，{track} 从正确的 {merged} 错到 {wrong}。", **self.slots("merged", "wrong"))
        return c("对照：不换回就直接 reshape，{track} 会错到 {wrong}。", **self.slots("wrong"))

    def not_divisible(self) -> None:
        i, r, book, c = self.inputs, self.result, self.book, self.book.compose
        (b, t, d_model), ed, eh = i["shape"], i["error_d"], i["error_heads"]
        d, h = book.index("error.shape[2]", ed), book.index("error.heads", eh)
        if ed == d_model:
            self.step("把 H 改为 {heads}：D = {d_model} 无法均分成 {heads} 个头，计算在拆头之前停止。", heads=h, d_model=d)
        elif eh == r.heads:
            self.step("把 D 改为 {d_model}：无法均分成 {heads} 个头，计算在拆头之前停止。", d_model=d, heads=h)
        else:
            self.step("把 D 改为 {d_model}、H 改为 {heads}：无法均分，计算在拆头之前停止。", d_model=d, heads=h)
        self.clear_stage()
        q, rem = (book.index(f"error.split[{k}]", v) for k, v in enumerate(self.split_check))
        self.narrate(NARRATION["error"], d_model=d, heads=h, quotient=q, remainder=rem)
        sizes = {axis: book.index(f"error.shape[{k}]", v)
                 for k, (axis, v) in enumerate(zip("btd", (b, t, ed)))}
        error = c("Error: --heads '{heads}': " + NOT_DIVISIBLE, heads=h, d_model=d)
        if str(error) != f"Error: {self.error}":
            raise RuntimeError(f"the card would misquote the input rules: {self.error}")
        card = error_card(book, [
            ("D 不能被 H 整除：无法拆成多个头", style.MASK),
            (c("[B, T, D] = {shape}，H = {heads}：D ÷ H = {quotient} 余 {remainder}",
               shape=book.coords("error.shape", (b, t, ed)), heads=h, quotient=q, remainder=rem), style.TEXT),
            ("每头宽度 d = D/H 必须是整数，否则无法把 D 均分给 H 个头", style.MUTED)], [
            (c("$ python render.py " + self.spec.name + " --shape {b},{t},{d} --heads {heads}",
               **sizes, heads=h), style.MUTED),
            (error, style.MASK)])
        self.play(Appear(card))
