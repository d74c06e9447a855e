"""Builders for the score-grid clip: named grids with shape tags, a heat legend,
column-aligned number rows and grouped bars (pages: scenes/kit/page.py). Numbers only
through the NumberBook."""
from __future__ import annotations

import unicodedata
from typing import Sequence

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Mobject, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.grids import MatrixGrid, heat_color
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area, Said, join, phrase, said  # noqa: F401  (phrases: used by the clip too)

MIN_SCALE = 0.6      # keeps every number above the contract's least height
FULL_SCALE = 0.8     # below this, long column labels are abbreviated (the rows keep them whole)
SHORT_NAME = 7       # an abbreviated column label: this many half-widths, the ellipsis included
SHORT = 7            # a grid's numbers aim at this many characters (fewer decimals when large)
WIDTH = 13.2         # the width a drawing may take
AREA = Area(WIDTH)


def grid_decimals(values) -> int:
    """The book's exact decimals (0.43 stays 0.43), fewer for large magnitudes: a grid of
    values up to 80000 is drawn as whole numbers, not as ten-character strings."""
    arr = np.asarray(values, float)
    top = float(np.max(np.abs(arr))) if arr.size else 0.0
    digits = len(str(int(top))) if top >= 1 else 1
    return min(style.decimals_for(arr), max(0, SHORT - 2 - digits))


def axis_names(book: NumberBook, tokens: list[str] | None, prefix: str, count: int) -> list[Shown]:
    """Token labels when given, else q0, q1, ... (indices recorded)."""
    if tokens:
        return [book.user_text(t) for t in tokens]
    return [book.compose(prefix + "{}", book.index(f"{prefix}.index[{j}]", j)) for j in range(count)]


def labelled_grid(book: NumberBook, name: str, values, decimals: int, row_labels=None,
                  col_labels=None, row_color: str = style.TEXT, col_color: str = style.TEXT,
                  **kw) -> MatrixGrid:
    """A MatrixGrid whose axis labels keep the book's provenance (labels such as q0 are Shown)."""
    mob = MatrixGrid(book, name, values, decimals, **kw)
    for n, text in enumerate(row_labels or []):
        mob.row_labels.add(book.label(text, color=row_color, size=style.LABEL_SIZE)
                           .next_to(mob.boxes[n][0], LEFT, buff=0.15))
    for n, text in enumerate(col_labels or []):
        mob.col_labels.add(book.label(text, color=col_color, size=style.LABEL_SIZE)
                           .next_to(mob.boxes[0][n], UP, buff=0.15))
    return mob


def name_tag(book: NumberBook, tex: str, name: str, shape, color: str) -> VGroup:
    """'W_Q [3, 2]': the matrix's name (LaTeX) and its shape, each size recorded."""
    head = book.math(tex, color=color, size=style.BODY_SIZE)
    dims = book.label(book.coords(f"{name}.shape", shape), color=color, size=style.LABEL_SIZE)
    return VGroup(head, dims).arrange(RIGHT, buff=0.15)


def role_grid(book: NumberBook, name: str, values, color: str, tex: str, side=DOWN, **kw) -> VGroup:
    """A grid drawn in its role's colour with 'name [shape]' beside it."""
    mob = labelled_grid(book, name, values, grid_decimals(values), stroke=color, **kw)
    tag = name_tag(book, tex, name, values.shape, color).next_to(mob.box_group, side, buff=0.15)
    group = VGroup(mob, tag)
    group.grid, group.tag, group.side = mob, tag, side
    return group


def same_columns(*groups: VGroup) -> None:
    """Give role grids stacked column over column one cell width (the widest), tags re-placed."""
    width = max(g.grid.boxes[0][0].width for g in groups)
    for g in groups:
        grid = g.grid
        for i, row in enumerate(grid.boxes):
            for j, box in enumerate(row):
                box.stretch_to_fit_width(width).move_to(grid.boxes[0][0].get_center()
                                                        + [j * width, -i * box.height, 0])
                grid.entries[i][j].move_to(box)
        g.tag.next_to(grid.box_group, g.side, buff=0.15)


def short_names(book: NumberBook, names: Sequence[Shown]) -> list[Shown]:
    """Long token labels cut to SHORT_NAME half-widths with an ellipsis (names q0, k1 stay)."""
    half = lambda ch: 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    out = []
    for name in names:
        if sum(map(half, name)) <= SHORT_NAME:
            out.append(name)
            continue
        cut, used = "", 0
        for ch in name:
            if used + half(ch) > SHORT_NAME - 1:
                break
            cut, used = cut + ch, used + half(ch)
        out.append(book.user_text(cut + "…"))
    return out


def column_labels(book: NumberBook, names: Sequence[Shown], color: str) -> list[Mobject]:
    return [book.label(name, color=color, size=style.LABEL_SIZE) for name in names]


def set_columns(grid: MatrixGrid, labels: Sequence[Mobject], s: float = 1.0) -> MatrixGrid:
    """Put `labels` over the grid's columns (replacing any), all a quarter turn up when one is
    wider than its cell, so that neighbours never touch. Safe to call again."""
    grid.col_labels.remove(*list(grid.col_labels.submobjects))
    width = grid.boxes[0][0].width
    turn = any((lab.height if getattr(lab, "turned", False) else lab.width) > width * 0.92
               for lab in labels)
    for j, lab in enumerate(labels):
        if turn != getattr(lab, "turned", False):
            lab.rotate(PI / 2 if turn else -PI / 2)
            lab.turned = turn
        grid.col_labels.add(lab.next_to(grid.boxes[0][j], UP, buff=(0.12 if turn else 0.15) * s))
    return grid


def legend(book: NumberBook, name: str, low: float, high: float, decimals: int,
           height: float = 2.6, steps: int = 12) -> VGroup:
    """A vertical heat bar from low (bottom) to high (top), its two ends numbered."""
    cells = VGroup(*[Rectangle(width=0.3, height=height / steps, stroke_width=0,
                               fill_color=heat_color(low + (high - low) * n / (steps - 1), low, high),
                               fill_opacity=0.9) for n in range(steps)]).arrange(UP, buff=0)
    top = book.num(f"{name}.high", high, decimals).next_to(cells, UP, buff=0.12)
    bottom = book.num(f"{name}.low", low, decimals).next_to(cells, DOWN, buff=0.12)
    return VGroup(cells, top, bottom)


def align_columns(grids: Sequence[MatrixGrid], buff: float = 0.0) -> VGroup:
    """Give every grid the widest cell, then stack them so that column j lines up."""
    width = max(g.boxes[0][0].width for g in grids)
    y = 0.0
    for g in grids:
        height = g.boxes[0][0].height
        for i, row in enumerate(g.boxes):
            for j, box in enumerate(row):
                box.stretch_to_fit_width(width).move_to([j * width, y - i * height, 0])
                g.entries[i][j].move_to(box)
        for n, lab in enumerate(g.row_labels):
            lab.next_to(g.boxes[n][0], LEFT, buff=0.15)
        for n, lab in enumerate(g.col_labels):
            lab.next_to(g.boxes[0][n], UP, buff=0.12)
        y -= g.n_rows * height + buff
    return VGroup(*grids)


def grouped_bars(series, colors, n_cols: int, height: float = 1.8) -> VGroup:
    """Bars for each column: one per series, side by side, the tallest `height` (place_bars
    puts them over a grid's columns)."""
    top = max(float(np.max(s)) for s in series) or 1.0
    group = VGroup()
    for j in range(n_cols):
        for n, (values, color) in enumerate(zip(series, colors)):
            bar = Rectangle(width=0.3, height=max(float(values[j]), 0.0) / top * height + 1e-3,
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            bar.col, bar.offset, bar.share = j, n - (len(series) - 1) / 2, 0.8 / len(series)
            group.add(bar)
    return group


def place_bars(bars: VGroup, grid: MatrixGrid, s: float = 1.0) -> VGroup:
    """Stand the bars on the grid's column labels, each group over its column."""
    width = grid.boxes[0][0].width
    floor = max([grid.box_group.get_top()[1]] + [lab.get_top()[1] for lab in grid.col_labels]) + 0.15 * s
    for bar in bars:
        bar.stretch_to_fit_width(width * bar.share)
        bar.move_to([grid.boxes[0][bar.col].get_x() + bar.offset * bar.width, floor, 0], aligned_edge=DOWN)
    return bars


def variance_table(book: NumberBook, v, own: int) -> VGroup:
    """d_k | Var(q.k) | Var(q.k / sqrt(d_k)), the clip's own d_k in the tracked colour."""
    cols = [labelled_grid(book, "variance.d_k", [[d] for d in v.d_ks], 0, col_labels=["dₖ"]),
            labelled_grid(book, "variance.var", v.var[:, None], 4, col_labels=["Var(q·k)"]),
            labelled_grid(book, "variance.var_scaled", v.var_scaled[:, None], 4,
                          col_labels=["Var(q·k/√dₖ)"])]
    table = VGroup(*cols).arrange(RIGHT, buff=0.1, aligned_edge=DOWN)
    for g in cols:
        g.entry(own, 0).set_color(style.TRACK)
        g.box(own, 0).set_stroke(style.TRACK, width=3)
    table.header = VGroup(*[g.col_labels for g in cols], *[g.box_group for g in cols])
    table.rows = [VGroup(*[g.entry(i, 0) for g in cols]) for i in range(len(v.d_ks))]
    return table


def row_case(r, peaks) -> str:
    """What the compared row shows: one key, d_k = 1, a flat row, peaks equal as drawn, or sharper."""
    if len(r.k) == 1:
        return "one_key"
    if r.d_k == 1:
        return "dk_one"
    if np.ptp(r.scores[r.query]) == 0:
        return "flat"
    return "peaks_equal" if str(peaks[0]) == str(peaks[1]) else "sharper"


def row_caption(book: NumberBook, r, name: Shown, peaks) -> Said:
    """What this row shows, chosen by the data (and by the texts drawn), with its narration."""
    case, d_k = row_case(r, peaks), book.index("d_k", r.d_k)
    caption = {
        "one_key": phrase("只有一个键：softmax 把全部权重给它，缩放与否都一样（查询 {}）。", name),
        "dk_one": phrase("本例 dₖ = {d_k}：除以 √dₖ 不改变分数，两行权重相同（查询 {query}）。", d_k=d_k, query=name),
        "flat": phrase("这一行的分数全相同：缩放前后权重都均匀（查询 {}）。", name),
        "peaks_equal": phrase("同一行 softmax：不缩放时分数差距更大，但最大权重在显示精度下相同（查询 {}）。", name),
        "sharper": phrase("同一行 softmax：不缩放时分数差距更大，权重更集中（查询 {}）。", name)}[case]
    slots = {"one_key": dict(query=name, peak=peaks[0]), "dk_one": dict(d_k=d_k, query=name), "flat": dict(query=name),
             "peaks_equal": dict(query=name, peak=peaks[0]),
             "sharper": dict(query=name, raw=peaks[0], scaled=peaks[1])}[case]
    return said(caption, phrase(NARRATION["row." + case], **slots))


# ---------------------------------------------------------------- pages
def falk(x: VGroup, blocks: Sequence[VGroup], s: float = 1.0) -> VGroup:
    """X to the left of the products, each W above its product, X's rows beside theirs."""
    row = VGroup(*blocks).arrange(RIGHT, buff=0.45 * s, aligned_edge=UP)
    VGroup(x, row).arrange(RIGHT, buff=0.45 * s)
    x.shift(UP * (blocks[-1].grid.box_group.get_y() - x.grid.box_group.get_y()))
    return VGroup(x, *blocks)


# ---------------------------------------------------------------- narration (issue 17)
def sizes(book: NumberBook, name: str, values) -> list[Shown]:
    """Rows and width of a drawn matrix (the same records as its shape tag)."""
    return [book.index(f"{name}.shape[{a}]", values.shape[a]) for a in (0, 1)]


def projection_says(book: NumberBook, r, page: str) -> tuple:
    """Step 1 from X: 'all' (one board), 'x' (X alone), 'first' (X and Q), a role 'Q', 'K', 'V'
    (its product), or 'W_Q', 'W_K', 'W_V' (the matrix alone)."""
    d_k, d_v = book.index("q.shape[1]", r.q.shape[1]), book.index("v.shape[1]", r.v.shape[1])
    if page in ("all", "x"):
        rows, d_in = sizes(book, "x", r.x)
        return (phrase(NARRATION["proj.all"], rows=rows, d_in=d_in, d_k=d_k, d_v=d_v) if page == "all"
                else phrase(NARRATION["proj.x"], rows=rows, d_in=d_in))
    if page == "first":
        return join(phrase(NARRATION["proj.first"]), projection_says(book, r, "Q"))
    if page in "QKV":
        rows, width = sizes(book, page.lower(), getattr(r, page.lower()))
        return phrase(NARRATION["role." + page], rows=rows, width=width)
    if page == "W_Q":
        return phrase(NARRATION["w.Q"], d_in=book.index("wq.shape[0]", r.wq.shape[0]),
                      d_k=book.index("wq.shape[1]", r.wq.shape[1]))
    if page == "W_K":
        return phrase(NARRATION["w.K"], book.index("wk.shape[1]", r.wk.shape[1]))
    same = r.wv.shape[1] == r.wq.shape[1]
    return (phrase(NARRATION["w.V.same"], book.index("wv.shape[1]", r.wv.shape[1])) if same else
            phrase(NARRATION["w.V.diff"], d_v=book.index("wv.shape[1]", r.wv.shape[1]), d_k=book.index("d_k", r.d_k)))


def direct_says(book: NumberBook, r, names: Sequence[str], first: bool) -> tuple:
    """Step 1 with Q, K (V) given: the grids on this page, after the opening on the first."""
    pieces = [phrase(NARRATION["direct.intro." + ("qkv" if r.v is not None else "qk")])] if first else []
    for name in names:
        key = "direct.K.rows" if name == "K" and len(r.k) != len(r.q) else "direct." + name
        rows, width = sizes(book, name.lower(), getattr(r, name.lower()))
        pieces.append(phrase(NARRATION[key], rows=rows, width=width))
    if len(names) == 1:
        pieces.append(phrase(NARRATION["direct." + names[0] + ".more"]))
    return join(*pieces)


def scores_says(book: NumberBook, r) -> tuple:
    """Step 2: the loop QK^T replaces, what one cell is, the grid's axes and its range."""
    low, high = (book.fmt(f"scores_legend.{end}", v, grid_decimals(r.scores))
                 for end, v in zip(("low", "high"), r.scores_range))
    dot = phrase(NARRATION["scores.dot.one"] if r.d_k == 1 else NARRATION["scores.dot"], book.index("d_k", r.d_k))
    rows, cols = sizes(book, "scores", r.scores)
    grid = (phrase(NARRATION["scores.grid.flat"], rows=rows, cols=cols, score=low)
            if r.scores_range[0] == r.scores_range[1] else
            phrase(NARRATION["scores.grid"], rows=rows, cols=cols, low=low, high=high))
    return join(phrase(NARRATION["scores.loop"]), dot, grid)


def scaling_says(book: NumberBook, r, page: str) -> tuple:
    """Step 3: 'one' (table and scaled grid on one board), 'table' or 'grid' (two boards)."""
    v, own = r.variance, r.own
    d_k, scale = book.index("d_k", r.d_k), book.fmt("scale", r.scale)
    var = book.fmt(f"variance.var[{own}][0]", v.var[own], 4)
    var_scaled = book.fmt(f"variance.var_scaled[{own}][0]", v.var_scaled[own], 4)
    unit = "unit" if r.d_k == 1 else "wide"
    if page == "grid":
        return phrase(NARRATION["scale.grid." + unit], d_k=d_k, scale=scale)
    why = phrase(NARRATION["scale.why"], samples=book.index("variance.samples", v.samples), d_k=d_k, var=var)
    if page == "table":
        return join(why, phrase(NARRATION["scale.table.end"]))
    return join(why, phrase(NARRATION["scale.one." + unit], scale=scale, var=var_scaled))


NARRATION = {
    # step 1 from X and W_Q, W_K, W_V
    "proj.all": "前面的例子用同一个输入向量既做匹配又传递内容。为了分别学习怎样查找、怎样被匹配、传递什么，"
                "引入三个可训练矩阵。X 有 {rows} 行、每行 {d_in} 维，经 W_Q、W_K 投影成每行 {d_k} 维的查询和键，"
                "经 W_V 投影成每行 {d_v} 维的值。三者来自同一个输入，因此称作自注意力。",
    "proj.x": "前面的例子用同一个输入向量既做匹配又传递内容。为了分别学习怎样查找、怎样被匹配、传递什么，"
              "引入三个可训练矩阵，它们都作用在同一个输入 X 上，因此称作自注意力。"
              "X 有 {rows} 行，每行是一个位置的 {d_in} 维向量。",
    "proj.first": "为了分别学习怎样查找、怎样被匹配、传递什么，引入三个可训练矩阵，先看第一个。",
    "role.Q": "X 的每一行乘以 W_Q，得到这个位置的查询 qᵢ；Q 共 {rows} 行，每行 {width} 维。"
              "qᵢ 可以理解为当前位置怎样查找相关信息。",
    "role.K": "同一个 X 乘以 W_K 得到键，K 也是 {rows} 行，每行 {width} 维，与查询一样宽，后面才能点积。"
              "kⱼ 决定位置 j 在什么查询下得到高分。",
    "role.V": "再乘以 W_V 得到值，V 有 {rows} 行，每行 {width} 维。vⱼ 承载要汇总的特征，打分之后按权重汇总的正是这些值。"
              "这些名称只为方便追踪计算，不能据此认为每一维都对应人工定义的语义。",
    "w.Q": "W_Q 是可训练的矩阵，形状 [D_in, dₖ]：行数 {d_in} 必须等于 X 每行的宽度，列数 {d_k} 就是查询的宽度 dₖ。"
           "训练调整它的每一项，让查询学会怎样查找相关信息。",
    "w.K": "W_K 与 W_Q 同形，也把每行投影到 {} 维。键与查询必须一样宽，否则无法点积；"
           "训练让它学会每个位置怎样被匹配。",
    "w.V.same": "W_V 的形状是 [D_in, d_v]，把每行投影到 {} 维的值。值的宽度在一般定义中可以与 dₖ 不同；"
                "本例两者相同，本书的多头实现也让它们相同，以简化布局。",
    "w.V.diff": "W_V 的形状是 [D_in, d_v]，把每行投影到 {d_v} 维的值。查询与键必须同宽，值却不必：本例 dₖ = {d_k}，两者不同。"
                "本书的多头实现让它们相同，只为简化布局。",
    # step 1 with Q, K (V) given directly: sentences joined by the grids on the page
    "direct.intro.qk": "这次不经投影，直接给定查询和键。",
    "direct.intro.qkv": "这次不经投影，直接给定查询、键和值。",
    "direct.Q": "Q 有 {rows} 行，每行是一个 {width} 维的查询。",
    "direct.K": "K 有 {rows} 行，每行一个键，也是 {width} 维：键与查询一样宽，才能点积。",
    "direct.K.rows": "K 有 {rows} 行，可以与 Q 不同，交叉注意力的键值就来自另一个序列；但每行同样 {width} 维，才能与查询点积。",
    "direct.V": "V 有 {rows} 行、每行 {width} 维：每个键配一个值，值承载要汇总的特征。",
    "direct.Q.more": "qᵢ 可以理解为当前位置怎样查找相关信息。",
    "direct.K.more": "kⱼ 决定位置 j 在什么查询下得到高分。",
    "direct.V.more": "值的宽度在一般定义中可以与查询、键不同。",
    # step 2
    "scores.loop": "一次矩阵乘法 QKᵀ 就取代了逐对打分的两层循环。",
    "scores.dot": "第 i 行第 j 列是查询 qᵢ 与键 kⱼ 的点积：{} 对分量逐项相乘，再相加。",
    "scores.dot.one": "本例 dₖ = {}，查询和键都只有一个分量，点积就是两数相乘。",
    "scores.grid": "网格 {rows} 行 {cols} 列，行是提出查询的位置，列是提供信息的位置；"
                   "分数从 {low} 到 {high}，颜色对照右边的色条。",
    "scores.grid.flat": "网格 {rows} 行 {cols} 列，行是提出查询的位置，列是提供信息的位置；"
                        "这里每个分数都是 {score}，整张网格一个颜色。",
    # step 3
    "scale.why": "先作一个便于分析的假设：查询和键的每个分量独立、均值为零、方差为一。"
                 "这时每个乘积方差为一，dₖ 个相加，方差约为 dₖ；表中 {samples} 对随机向量的采样印证了这一点，"
                 "宽度 {d_k} 时为 {var}。",
    "scale.table.end": "向量越宽，分数波动越大，softmax 的权重便容易集中到少数位置，部分梯度也会变小。",
    "scale.one.wide": "除以 √dₖ = {scale} 后方差回到 {var}，量级拉回一，右边是缩放后的分数网格。",
    "scale.one.unit": "除以 √dₖ = {scale} 后方差仍是 {var}：本例缩放不改变分数，右边的网格与原网格相同。",
    "scale.grid.wide": "于是每个分数都除以 √dₖ，本例 dₖ = {d_k}，除数是 {scale}，方差的量级拉回一。"
                       "这里的 dₖ 是一个头的宽度，不是合并所有头后的总宽度 D。"
                       "这个推导说明为什么要控制初始化时的尺度，并不保证训练中各分量始终独立。",
    "scale.grid.unit": "本例 dₖ = {d_k}，除以 √dₖ = {scale} 不改变任何分数，缩放后的网格与原网格相同。"
                       "宽度更大时点积方差随之变大，缩放的作用才显现出来；这里的 dₖ 始终指一个头的宽度。",
    # step 4, by row_case
    "row.sharper": "拿查询 {query} 这一行，比较缩放前后的 softmax。不缩放时分数差距更大，权重更多地压到高分的键上，"
                   "最大权重是 {raw}；缩放后是 {scaled}，分布更平缓。分数差得太多，权重就集中到少数位置，部分梯度也会变小。",
    "row.peaks_equal": "拿查询 {query} 这一行，比较缩放前后的 softmax。不缩放时分数差距更大，权重本应更集中；"
                       "但这一行缩放前后的最大权重在显示精度下相同，都是 {peak}。"
                       "分数差距极大或极小时，同除 √dₖ 带来的变化可能小到看不出来。",
    "row.one_key": "查询 {query} 只能看到一个键，softmax 把全部权重给它，缩放前后都是 {peak}。"
                   "缩放只改变分数之间的差距，只有一个分数时没有差距可改。",
    "row.dk_one": "本例 dₖ = {d_k}，除以 √dₖ 不改变查询 {query} 这一行的分数，两行权重完全相同。"
                  "宽度越大，点积的方差越大，缩放的作用才显现出来。",
    "row.flat": "查询 {query} 这一行的分数全都相同，softmax 给每个键同样的权重。"
                "缩放只是把所有分数同除以 √dₖ，它们仍然相同，所以缩放前后都是均匀分布。",
}
