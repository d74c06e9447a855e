"""The captions of 4.9 exercises, without Manim (lab/captions.py): each asked exercise's question
and answer steps, in book order. The clip writes them inline in its scene.py, and its exercises'
names there too; they are written here as there
(tests/pipeline/test_lab_captions.py holds the two equal)."""
from __future__ import annotations

from typing import Any, Callable

from scenes.kit.text.style import decimals_for
from scenes.pipeline.lab.captions_slots import Slots, chooses

EXERCISES = ("3.1", "3.2", "3.3", "zeros", "shapes", "dim", "diagonal")   # book order, as the clip's


@chooses
def exercises(i: dict, r: dict, said: dict, s: Slots) -> list[str]:
    return [caption for name in i["only"] for caption in STEPS[name](r[name], s, header(name, s))]


def header(name: str, s: Slots) -> str:
    """'习题 3.1' for the book's exercises, '补充题 1' for the supplementary ones."""
    if name[0].isdigit():
        return s.compose("习题 {}", name)
    return s.compose("补充题 {}", s.index(EXERCISES.index(name) - 2))


def align(r: Any, s: Slots, head: str) -> list[str]:
    v1, v2, c = "v1", "v2", s.compose
    diff = s.num(r.max_diff, decimals_for([r.max_diff]))
    return [c("{exercise}：怎样把 {second} 的权重交给 {first}，让两版的输出相同？", exercise=head, first=v1, second=v2),
            c("答案：nn.Linear 存 [d_out, d_in]，是 W 的转置；转置后交给 {first}。", first=v1),
            c("对齐后两版的输出完全相同：最大差为 {diff}。" if r.max_diff == 0 else
              "对齐后两版的输出只差浮点舍入：最大差 {diff}。", diff=diff)]


def wrapper(r: Any, s: Slots, head: str) -> list[str]:
    width, heads, d_out = s.index(r.width), s.index(r.heads), s.index(r.d_out)
    return [s.compose("{exercise}：两个独立的头拼接后总宽度要为 {width}，每个头的 d_out 应是多少？", exercise=head,
                      width=width),
            s.compose("答案：拼接宽度 = 头数 × 每头 d_out，{width} = {heads} × {d_out}，所以每头 d_out = {d_out}。",
                      width=width, heads=heads, d_out=d_out)]


def params(r: Any, s: Slots, head: str) -> list[str]:
    return [s.compose("{exercise}：D = {d_model}、H = {heads}、QKV 无偏置，这个注意力模块有多少个参数？", exercise=head,
                      d_model=s.index(r.d_model), heads=s.index(r.heads)),
            s.compose("Q、K、V：三个 D×D 投影，无偏置：{projections} × {weight} = {qkv}。",
                      projections=s.index(r.projections), weight=s.grouped(r.weight), qkv=s.grouped(r.qkv)),
            s.compose("加上输出投影的 D×D 权重和 D 个偏置：共 {} 个参数。", s.grouped(r.total))]


def zeros(r: Any, s: Slots, head: str) -> list[str]:
    t, zero = s.word(len(r.scores)), s.num(r.scores[0, 0], 0)
    return [s.compose("{exercise}：{t}个分数全为 {score}，因果掩码后的{t}行权重分别是什么？", exercise=head, t=t,
                      score=zero),
            s.compose("答案：{t}行分别为 {rows}。", t=t, rows=fraction_rows(r.fractions, s))]


def fraction_rows(fractions: Any, s: Slots) -> str:
    """The rows listed as '(1, 0, 0)、(1/2, 1/2, 0)' (as exact.fraction_rows)."""
    def fraction(num: int, den: int) -> str:
        return s.index(num) if den == 1 else s.compose("{num}/{den}", num=s.index(num), den=s.index(den))
    rows = [s.compose("(" + ", ".join("{}" for _ in row) + ")", *[fraction(*f) for f in row]) for row in fractions]
    listed = rows[0]
    for row in rows[1:]:
        listed = s.compose("{rows}、{row}", rows=listed, row=row)
    return listed


def shapes(r: Any, s: Slots, head: str) -> list[str]:
    sizes = {"d_model": s.index(r.d_model), "heads": s.index(r.heads), "t": s.index(r.time), "b": s.index(r.batch)}
    return [s.compose("{exercise}：D_o = {d_model}、H = {heads}、T = {t}、B = {b}，Q、分数、合并输出各是什么形状？",
                      exercise=head, **sizes),
            s.compose("答案：Q 分头后 {per_head}，分数 {scores}，合并后 {merged}。",
                      **{n: s.coords(getattr(r, n)) for n in ("per_head", "scores", "merged")})]


def dim(r: Any, s: Slots, head: str) -> list[str]:
    axes = {"wrong": s.index(r.wrong_axis), "right": s.index(r.right_axis), "one": s.index(1)}
    last = (s.compose("dim={wrong} 不报错，却按列归一化：列和为 {one}，{rows}行的行和都不是 {one}。", **axes,
                      rows=s.word(r.rows_off)) if r.rows_off else
            s.compose("dim={wrong} 不报错，却按列归一化：列和为 {one}，这里行和碰巧也为 {one}。", **axes))
    return [s.compose("{exercise}：为什么 softmax(scores, dim={wrong}) 可能不报错，却不正确？", exercise=head, **axes),
            s.compose("答案：dim={right} 沿每一行（所有的键）归一化，每个查询分出去的权重和为 {one}。", **axes), last]


def diagonal(r: Any, s: Slots, head: str) -> list[str]:
    keep, hide = r
    change = {"old": s.index(keep.diagonal), "new": s.index(hide.diagonal)}
    return [s.compose("{exercise}：把因果掩码的 diagonal={old} 改成 {new}，第一行会发生什么？", exercise=head, **change),
            s.compose("答案：对角线也被遮住，第{row}行没有可见的键，softmax 得到 NaN。", row=s.word(hide.empty_row_number))]


STEPS: dict[str, Callable[[Any, Slots, str], list[str]]] = {
    "3.1": align, "3.2": wrapper, "3.3": params, "zeros": zeros, "shapes": shapes, "dim": dim, "diagonal": diagonal}
