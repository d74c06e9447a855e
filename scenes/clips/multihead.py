"""4.7 加上批次和多个头: follow one element through reshape, transpose and the merge."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for plain `manim` runs


from scenes.kit.anim import Appear, Vanish
from scenes.compute import heads as compute
from scenes.kit import style
from scenes.kit.base import ClipScene
from scenes.pipeline.inputs import InputError, flag, integer
from scenes.pipeline.registry import Clip, Option
from scenes.clips.multihead_parts import TensorView, error_card, info_lines, morph, shape_line

AXES = {"start": ("B", "T", "D"), "split": ("B", "T", "H", "d"), "transposed": ("B", "H", "T", "d"),
        "back": ("B", "T", "H", "d"), "merged": ("B", "T", "D"), "wrong": ("B", "T", "D")}


def rules(raw: dict) -> dict:
    text = str(raw.get("shape", "1,3,4"))
    parts = [s for s in re.split(r"[,\s]+", text.strip()) if s]
    if len(parts) != 3:
        raise InputError("shape", text, "is B,T,D: three whole numbers")
    b = integer(parts[0], "shape", 1, 2)
    t = integer(parts[1], "shape", 1, 4)
    d = integer(parts[2], "shape", 1, 12)
    heads = integer(raw.get("heads", 2), "heads", 1, 4)
    if d % heads:
        raise InputError("heads", str(raw.get("heads")),
                         f"D = {d} is not divisible by H = {heads}: each head needs D/H features")
    track = str(raw.get("track", "e2")).strip()
    track = integer(track[1:] if track[:1] in "eE" and len(track) > 1 else track,
                    "track", 0, b * t * d - 1)
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
            Option('wrong-merge', 'emphasise the wrong merge: preview it at the merge, mark every misplaced id', flag=True),
        ),
    )
    legacy_text = True   # still composes f-strings: to be moved to book.text templates

    def compute(self):
        i = self.inputs
        self.glyphs = {}                      # id -> its Text, made once, copied per layout
        self.view = self.frame = self.info = None
        self.misplaced = compute.misplaced_by_wrong_merge(i["shape"], i["heads"])
        self.split_check = compute.head_split(i["error_d"], i["error_heads"])
        self.error = self.validator_error()
        return compute.track_element(i["shape"], i["heads"], i["track"])

    def validator_error(self):
        """The error the real input rules give for the book's D = 5, H = 2 (or the preset's)."""
        b, t, _ = self.inputs["shape"]
        raw = {"shape": f"{b},{t},{self.inputs['error_d']}", "heads": self.inputs["error_heads"],
               "track": 0}
        try:
            rules(raw)
        except InputError as err:
            return err
        raise RuntimeError("the error example passed the input rules")

    def construct(self):
        self.projected()
        self.split_heads()
        self.transpose_heads()
        self.merge_heads()
        self.wrong_merge()
        self.not_divisible()
        self.end()

    # -- helpers
    def eid(self):
        return "e" + self.book.index("track", self.result.element)

    def at(self, step):
        return self.book.coords(f"track.{step}", getattr(self.result, step))

    def shape(self, step):
        return shape_line(self.book, f"{step}.shape", AXES[step], self.result.layouts[step].shape)

    def show(self, step, lines, marks=None):
        """Move every id into the layout of `step`, under new info lines."""
        r = self.result
        info = info_lines(self.book, lines)
        view = TensorView(self.book, step, r.layouts[step], self.glyphs, r.element, marks,
                          top=info.get_bottom()[1] - 0.25)
        frame = view.frame(r.element)
        if self.view is None:
            self.play(*[Appear(p) for p in view.parts()], Appear(frame), Appear(info))
        else:
            self.play(*morph(self.view, view, [(self.frame, frame)]), Vanish(self.info), Appear(info),
                      run_time=style.RUN_TIME * 1.5)
        self.view, self.frame, self.info = view, frame, info
        return view

    def stays(self):
        """The tracked element lands where it belongs even without transposing back."""
        return self.result.wrong == self.result.merged

    def wrong_caption(self, emphasis):
        e, wrong = self.eid(), self.at("wrong")
        if not len(self.misplaced):
            return "对照：不换回就直接 reshape；只有一个头或一个位置时碰巧不出错。"
        if self.stays():
            count = self.book.index("misplaced", len(self.misplaced))
            return (f"错误合并：不换回就 reshape，{e} 碰巧不动，但有 {count} 个元素错了位。" if emphasis
                    else f"对照：不换回就直接 reshape，{e} 碰巧不动，别的元素却错了位。")
        return (f"错误合并：不换回就 reshape，{e} 从正确的 {self.at('merged')} 错到 {wrong}。" if emphasis
                else f"对照：不换回就直接 reshape，{e} 会错到 {wrong}。")

    # -- steps
    def projected(self):
        r, book = self.result, self.book
        self.step(f"投影后的张量 [B, T, D]：每个元素一个唯一编号，双线框跟踪 {self.eid()}。")
        count = book.index("count", r.layouts["start"].size)
        self.show("start", [
            (f"{self.shape('start')}    H = {book.index('heads', r.heads)}，"
             f"d = D/H = {book.index('head_dim', r.head_dim)}    唯一元素 {count} 个", style.TEXT),
            (f"{self.eid()}：[b, t, c] = {self.at('start')}，原属批次 b、位置 t、特征 c", style.TRACK)])

    def split_heads(self):
        r, book = self.result, self.book
        self.step("reshape 成 [B, T, H, d]：特征下标 c 拆成 h = floor(c/d) 和 r = c mod d。")
        c = book.index("track.start[2]", r.start[2])
        h, rr = book.index("track.split[2]", r.split[2]), book.index("track.split[3]", r.split[3])
        self.show("split", [
            (f"{self.shape('split')}    reshape 只拆开最后一维，元素的先后顺序不变", style.TEXT),
            (f"{self.eid()}：c = {c}，d = {book.index('head_dim', r.head_dim)} → h = floor(c/d) = {h}，"
             f"r = c mod d = {rr} → {self.at('split')}", style.TRACK)])

    def transpose_heads(self):
        r, book = self.result, self.book
        a, b = (book.index(f"transpose.dims[{k}]", v) for k, v in enumerate(compute.HEAD_SWAP))
        self.step(f"transpose({a}, {b}) 交换 T、H 两轴，得到 [B, H, T, d]；每头的分数是 [B, H, T, T]。")
        scores = book.coords("score_shape", r.score_shape)
        self.show("transposed", [
            (f"{self.shape('transposed')}    每头 S = Q Kᵀ/√d：[B, H, T, T] = {scores}", style.TEXT),
            (f"{self.eid()}：{self.at('split')} → {self.at('transposed')}，t 与 h 互换；"
             "每组 [b, h, :, :] 是一个头的 [T, d]", style.TRACK)])

    def merge_heads(self):
        self.step(f"transpose 换回 [B, T, H, d]，再 reshape 合并成 [B, T, D]：{self.eid()} 回到 "
                  f"{self.at('merged')}。")
        self.show("back", [(f"{self.shape('back')}    先换回：同一位置的各头重新相邻", style.TEXT),
                           (f"{self.eid()}：{self.at('transposed')} → {self.at('back')}", style.TRACK)])
        chain = " → ".join(self.at(s) for s in ("start", "split", "transposed", "back", "merged"))
        lines = [(f"{self.shape('merged')}    再 reshape：各头拼接回每个位置的 D 个特征", style.TEXT),
                 (f"{self.eid()}：{chain}", style.TRACK)]
        if self.inputs["wrong_merge"]:
            verb = "碰巧仍在" if self.stays() else "会错到"
            lines.append((f"错误对照：不换回就 reshape，{self.eid()} {verb} {self.at('wrong')}", style.MASK))
        self.show("merged", lines)

    def wrong_merge(self):
        r, book = self.result, self.book
        emphasis = self.inputs["wrong_merge"]
        self.step(self.wrong_caption(emphasis))
        self.show("transposed", [(f"{self.shape('transposed')}    回到拆头后的布局，跳过 transpose 换回",
                                  style.TEXT),
                                 (f"{self.eid()}：{self.at('transposed')}", style.TRACK)])
        lines = [(f"不换回：[B, H, T, d] 按当前顺序直接 reshape 成 {self.shape('wrong')}", style.TEXT),
                 (f"{self.eid()}：碰巧仍在 {self.at('wrong')}" if self.stays() else
                  f"{self.eid()}：正确位置 {self.at('merged')}（虚线框），错误合并到 {self.at('wrong')}",
                  style.TRACK)]
        if not len(self.misplaced):
            lines.append(("只有一个头或一个位置时 transpose 不改变顺序：这里碰巧不出错", style.MUTED))
        elif emphasis:
            count = book.index("count", r.layouts["start"].size)
            lines.append((f"红色：{count} 个元素中 {book.index('misplaced', len(self.misplaced))} 个"
                          "不在原位，同一行混入了别的位置的特征", style.MASK))
        view = self.show("wrong", lines, self.misplaced if emphasis else None)
        if not self.stays():
            self.play(Appear(view.ghost(int(r.layouts["wrong"][r.merged]))))

    def not_divisible(self):
        i, book = self.inputs, self.book
        b, t, _ = i["shape"]
        d, h = book.index("error.shape[2]", i["error_d"]), book.index("error.heads", i["error_heads"])
        self.step(f"把 D 改为 {d}：无法均分成 {h} 个头，计算在拆头之前停止。")
        self.clear_stage()
        shape = book.coords("error.shape", (b, t, i["error_d"]))
        q, rem = (book.index(f"error.split[{k}]", v) for k, v in enumerate(self.split_check))
        card = error_card(book, [
            ("D 不能被 H 整除：无法拆成多个头", style.MASK),
            (f"[B, T, D] = {shape}，H = {h}：D ÷ H = {q} 余 {rem}", style.TEXT),
            ("每头宽度 d = D/H 必须是整数，否则无法把 D 均分给 H 个头", style.MUTED)], [
            (f"$ python render.py multihead --shape {shape[1:-1].replace(' ', '')} --heads {h}",
             style.MUTED),
            (f"Error: {self.error}", style.MASK)])
        self.play(Appear(card))
