"""The captions the data chooses, without Manim: for a clip's checked inputs and its compute
result, each storyboard step's caption as the still shows it when the step is one board, in
the page's language, filled as the NumberBook fills its slots (style.format_number, the
catalogues: lab/captions_slots.py). POST /api/compute answers with them, so the caption changes
with the numbers.

Each chooser mirrors the choice its clip makes (named as the clip, "_" for "-"): the book's three
labs below, 4.1 and 4.2–4.3 in captions_lessons.py, 4.5 and 4.8 in captions_checks.py, 4.9 in
captions_exercises.py. Their templates are the clip's words, assets/lang/zh/<clip>.json, or its
inline ones, written as there: tests/pipeline/test_lab_captions.py compares them with the built
clips' captions and finds every inline one in its clip. A step whose board is split over pages
shows its parts' captions in the still; this one is the whole board's (and its first page's, but
for causal-mask's third step, score-grid's first and weighted-average's last).
"""
from __future__ import annotations

from typing import Any

from scenes.compute.heads import HEAD_SWAP, misplaced_by_wrong_merge
from scenes.compute.masking import route_agreement
from scenes.kit.text.lang import words
from scenes.pipeline.lab import captions_checks, captions_exercises, captions_lessons
from scenes.pipeline.lab.captions_slots import CHOOSERS, Slots, chooses

MIRRORED = (captions_lessons, captions_checks, captions_exercises)    # their clips' choosers join CHOOSERS


def captions(clip: str, inputs: dict, result: Any, lang: str, measured: dict | None = None) -> list[str] | None:
    """Each step's caption for these checked inputs and compute result (and what the clip's
    compute() measured beside it); None for a clip whose choice is not mirrored here."""
    chooser = CHOOSERS.get(clip)
    return chooser(inputs, result, words(clip.replace("-", "_")), Slots(lang, measured)) if chooser else None


# ---------------------------------------------------------------- 4.4 causal mask (its parts.py, check.py)
@chooses
def causal_mask(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    causal, t = i["causal"], r.track
    tokens, p = i["tokens"], r.positions[r.track]
    query = str(tokens[p]) if tokens and r.aligned else s.compose("q{}", s.index(int(p) if r.aligned else t))
    one = s.index(1)
    five = said["five"]["scale" if i["scale"] else "raw"]["causal" if causal else "open"]
    case = "open" if not causal else "nan" if len(r.nan_rows) else "some" if r.steps.hides_any else "none"
    mask = said["mask"][case][0]
    mask_slots = {"row": s.index(r.nan_rows[0])} if case == "nan" else {"one": one}
    verdict = s.compose(said["verdict"][r.verdict_on[t]][r.verdict_off[t]], query)
    cache = s.compose(said["cache"]["causal" if causal else "open"], cached=s.index(r.cache.cached),
                      seen=s.index(r.cache.visible[0]))
    return [s.compose(five, query), s.compose(mask, **mask_slots), route(r, said, s, causal, one),
            diagonal(r, said, s, causal), padding(r, s, causal),
            s.compose("因果性检查：只改 K、V 的最后一行；{}。", verdict), cache]


def padding(r: Any, s: Slots, causal: bool) -> str:
    """Step 5 (its padding.py): which keys are pads, and which rows are left with no key."""
    p, said = r.padding.shown, words("causal_mask_padding")
    rows = p.empty_rows
    case = "none" if not len(rows) else "row" if len(rows) == 1 else "rows"
    slots = ({"row": s.index(rows[0])} if len(rows) == 1 else
             {"first": s.index(rows[0]), "last": s.index(rows[-1])} if len(rows) else {})
    side = s.compose(said["side"]["zero" if p.pads == 0 else p.side + ("1" if p.pads == 1 else "")],
                     pads=s.index(p.pads))
    result = s.compose(said["result"]["causal" if causal else "open"][case], **slots)
    return s.compose("{side}；{result}。", side=side, result=result)


def route(r: Any, said: dict, s: Slots, causal: bool, one: str) -> str:
    """Step 3: nothing to zero, or how the renormalised route compares with the −∞ one."""
    if not r.steps.hides_any:
        return s.compose(said["route_none"]["causal" if causal else "open"])
    cut = s.compose(said["shrink"][r.shrink_case], one=one)
    gap = r.route_gap
    agreement = route_agreement(gap)
    if len(r.post.underflow_rows):
        rows = r.post.underflow_rows
        named = (s.compose("第 {} 行", s.index(rows[0])) if len(rows) == 1 else s.compose("{}行", s.word(len(rows))))
        words_ = s.compose(said["route_words"]["underflow"], named)
    elif agreement == "lost":
        words_ = s.compose(said["route_words"]["lost"], s.num(gap))
    else:
        words_ = s.compose(said["route_words"][agreement])
    return s.compose("另一条路：先 softmax 再把未来置零，{cut}；{route}。", cut=cut, route=words_)


def diagonal(r: Any, said: dict, s: Slots, causal: bool) -> str:
    """Step 4: the other choice of diagonal, and the row it leaves with no visible key."""
    d = r.variant_diagonal
    rows = r.variant_nan_rows if d == 0 else r.nan_rows
    case = "nan" if len(rows) else "cached"
    slots = {"diagonal": s.index(d), **({"row": s.index(rows[0])} if len(rows) else {})}
    return s.compose(said["diagonal"][("open" if not causal else f"d{d}") + "." + case], **slots)


# ---------------------------------------------------------------- 4.6 dropout (its scene.py, words.py)
SIX = 6             # the dropout table's decimals


@chooses
def dropout(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    one, zero = s.num(1, 0), s.num(0, 0)
    total = s.num(r.table.expected_sum, SIX)
    p_eff = s.num(r.p_eff, 0)
    if r.mode == "eval":
        masks = s.compose("评估模式有效 p = {}：不丢弃任何项，所选掩码不起作用，行保持原样。", p_eff)
        every = s.compose("有效 p = {p_eff}：只有全保留的掩码概率为 {prob}，行和期望为 {expected_sum}。",
                          p_eff=p_eff, expected_sum=total, prob=s.num(r.table.probs[0], SIX))
    else:
        masks = s.compose("保留项乘以 {one}/({one}−p)，丢弃项为 {zero}：{sums}", one=one, zero=zero,
                          sums=sums_against_one(r, said, s, one))
        every = s.compose("全部 {count} 个掩码按概率加权：每项的期望等于原权重，行和的期望为 {expected_sum}。",
                          count=s.index(len(r.table.masks)), expected_sum=total)
    eval_p = s.num(r.eval_p, 0)
    last = (s.compose("评估模式关闭 dropout：有效 p = {p_eff}，权重保持原样；原先为 {zero} 的权重仍为 {zero}。",
                      p_eff=eval_p, zero=zero) if r.zeros else
            s.compose("评估模式关闭 dropout：有效 p = {p_eff}，权重保持原样，行和仍为 {eval_sum}。", p_eff=eval_p,
                      eval_sum=s.num(r.eval_sum, SIX)))
    return [s.compose("softmax 之后的一行权重：dropout 之前，行和为 {}。", s.num(r.weight_sum, SIX)), masks, every,
            sampling(r, said, s), last]


def sums_against_one(r: Any, said: dict, s: Slots, one: str) -> str:
    drawn = [float(s.num(v, SIX).replace("\u2212", "-")) for v in r.sums]
    kinds = tuple(w for w, hit in (("above", any(v > 1 for v in drawn)), ("below", any(v < 1 for v in drawn)),
                                   ("equal", any(v == 1 for v in drawn))) if hit)
    key = ",".join(kinds if len(kinds) > 1 else kinds + ("many" if len(drawn) > 1 else "one",))
    return s.compose(said["sums"][key], one=one)


def sampling(r: Any, said: dict, s: Slots) -> str:
    table, last = said["sampling"], s.index(r.checkpoints[-1])
    if r.all_kept:
        return s.compose(table[r.mode + (",many" if len(r.sample_sums) > 1 else ",one")], draws=last)
    if len(r.checkpoints) == 1 or r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
        return s.compose(table["once" if len(r.checkpoints) == 1 else "closer"])
    return s.compose(table["gap"], draws=last, gap=s.num(r.checkpoint_gaps[-1], 4))


# ---------------------------------------------------------------- 4.7 multihead (its multihead.py)
@chooses
def multihead(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    (_, t, d_model), c = i["shape"], s.compose
    track = c("e{}", s.index(r.element))

    def at(values: Any) -> str:
        return c("[" + ", ".join("{}" for _ in values) + "]", *(s.index(v) for v in values))
    misplaced = len(misplaced_by_wrong_merge(i["shape"], i["heads"]))
    case = "order" if not misplaced else "stays" if r.wrong == r.merged else "moves"
    units = ([c("H = {}", s.index(r.heads))] if r.heads == 1 else []) + ([c("T = {}", s.index(t))] if t == 1 else [])
    axes = c("{h}、{t}", h=units[0], t=units[1]) if len(units) == 2 else c("{}", *units) if units else ""
    if case == "order":
        wrong = c("对照：不换回就直接 reshape；这里 {}，顺序不变，碰巧不出错。", axes)
    elif case == "stays" and i["wrong_merge"]:
        wrong = c("错误合并：不换回就 reshape，{track} 碰巧不动，但有 {misplaced} 个元素错了位。", track=track,
                  misplaced=s.index(misplaced))
    elif case == "stays":
        wrong = c("对照：不换回就直接 reshape，{} 碰巧不动，别的元素却错了位。", track)
    elif i["wrong_merge"]:
        wrong = c("错误合并：不换回就 reshape，{track} 从正确的 {merged} 错到 {wrong}。", track=track,
                  merged=at(r.merged), wrong=at(r.wrong))
    else:
        wrong = c("对照：不换回就直接 reshape，{track} 会错到 {wrong}。", track=track, wrong=at(r.wrong))
    d, h = s.index(i["error_d"]), s.index(i["error_heads"])
    stop = ("把 H 改为 {heads}：D = {d_model} 无法均分成 {heads} 个头，计算在拆头之前停止。" if i["error_d"] == d_model
            else "把 D 改为 {d_model}：无法均分成 {heads} 个头，计算在拆头之前停止。" if i["error_heads"] == r.heads
            else "把 D 改为 {d_model}、H 改为 {heads}：无法均分，计算在拆头之前停止。")
    swap = {"t_axis": s.index(HEAD_SWAP[0]), "h_axis": s.index(HEAD_SWAP[1])}
    return [c("投影后的张量 [B, T, D]：每个元素一个唯一编号，双线框跟踪 {}。", track),
            c("reshape 成 [B, T, H, d]：特征下标 c 拆成 h = floor(c/d) 和 r = c mod d。"),
            c("transpose({t_axis}, {h_axis}) 交换 T、H 两轴，得到 [B, H, T, d]；每头的分数是 [B, H, T, T]。", **swap),
            c("transpose 换回 [B, T, H, d]，再 reshape 合并成 [B, T, D]：{track} 回到 {merged}。", track=track,
              merged=at(r.merged)), wrong, c(stop, heads=h, d_model=d)]
