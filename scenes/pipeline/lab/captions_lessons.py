"""The captions of 4.1 weighted-average and 4.2–4.3 score-grid, without Manim (lab/captions.py):
the cases as each clip chooses them, its words read from its catalogue, its inline captions
written here as in its scene.py (tests/pipeline/test_lab_captions.py holds the two equal)."""
from __future__ import annotations

from typing import Any

from scenes.kit.text.style import decimals_cut_to_width
from scenes.pipeline.lab.captions_slots import Slots, chooses


# ---------------------------------------------------------------- 4.1 weighted average (its scene.py)
@chooses
def weighted_average(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    tokens, long = i["tokens"], bool(s.measured.get("long"))
    n_rows, n_cols = r.x.shape
    tag = lambda j: s.compose("x{}", s.index(j))               # noqa: E731
    name = lambda j: str(tokens[j]) if tokens else tag(j)       # noqa: E731
    short = lambda j: tag(j) if long else name(j)               # noqa: E731
    keyed = s.compose("{tag} {token}", tag=tag(r.query), token=str(tokens[r.query])) if tokens else tag(r.query)
    rows, one = s.word(n_rows, measure=True), s.const(1)
    query = keyed if long else name(r.query)
    first = (s.compose("{rows}个输入向量：既是平面上的箭头，也是矩阵 X 的行；查询取 {query}。", rows=rows, query=query)
             if n_cols == 2 else
             s.compose("{rows}个输入向量是矩阵 X 的行，每个有{cols}个分量（不画平面）；查询取 {query}。", rows=rows,
                       query=query, cols=s.word(n_cols, measure=True)))
    softmax = (s.compose("softmax：先减去最大分数m再取e的次方（权重不变、不会溢出），再除以总和；每项非负、总和为 {one}。",
                         one=one) if r.stable else
               s.compose("softmax：取 e 的分数次方再除以总和，每项非负、总和为 {one}。", one=one))
    matrix = {"dim_last": s.index(-1), "dim_rows": s.index(-2), "one": one, "rows": rows}
    return [first, s.compose("查询 {} 与每个向量逐分量相乘再相加，得到点积分数。", short(r.query)),
            s.compose(said["divide"][r.case]), softmax, mix(r, said, s, rows, short),
            s.compose(said["matrix"]["cols_one" if r.cols_sums_one else "cols"], **matrix)]


def mix(r: Any, said: dict, s: Slots, rows: str, short: Any) -> str:
    """Step 5: z picks one input, is the plain mean, or a mix (its components where three or fewer)."""
    case = "picked" if r.picked is not None else "equal" if r.equal else "mixed"
    slots = {"z": s.compose("z{}", s.index(r.query)), "rows": rows,
             "pick": short(r.picked) if r.picked is not None else ""}
    if case == "mixed" and len(r.output) <= 3:
        d = decimals_cut_to_width(r.output)
        slots["output"] = s.compose(", ".join("{}" for _ in r.output), *(s.num(v, d) for v in r.output))
        case = "output"
    return s.compose(said["mix"][case], **slots)


# ---------------------------------------------------------------- 4.2–4.3 score grid (its scene.py, parts.py)
@chooses
def score_grid(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    if r.x is not None:
        first = s.compose("引入三个可训练矩阵：Q = X W_Q，K = X W_K，V = X W_V。")
    else:
        first = s.compose(said["given_first"]["qkv" if r.v is not None else "qk"])
    shape = "square" if r.scores.shape[0] == r.scores.shape[1] else "oblong"
    d_k = s.index(r.d_k)
    scaling = s.compose("点积方差约为 dₖ，除以 √dₖ 把量级拉回 {one}；本例 dₖ = {d_k}，即一个头的宽度。",
                        one=s.const(1), d_k=d_k)
    return [first, s.compose(said["square"][shape]), scaling, row(i, r, said, s, d_k)]


def row(i: dict, r: Any, said: dict, s: Slots, d_k: str) -> str:
    """Step 4: what the compared row shows (parts.row_case), its query named as the grid's rows."""
    tokens = i["tokens"]
    query = str(tokens[r.query]) if tokens else s.compose("q{}", s.index(r.query))
    raw, scaled = s.num(r.peak_raw), s.num(r.peak_scaled)
    case = ("one_key" if len(r.k) == 1 else "dk_one" if r.d_k == 1 else "flat" if r.query_flat else
            "peaks_equal" if raw == scaled else "sharper")
    return s.compose(said["row_captions"][case], query=query, d_k=d_k, peak=raw, raw=raw, scaled=scaled)
