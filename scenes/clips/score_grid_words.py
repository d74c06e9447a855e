"""The score-grid clip's words: captions and narration chosen by the data (the book's
sentences, with their numbers in named slots)."""
from __future__ import annotations

from typing import Sequence

from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Said, join, named, phrase, said
from scenes.kit.style import decimals_cut_by_digits

SAYS = {"Q": "Q = X W_Q：查询，当前位置怎样查找相关信息。", "K": "K = X W_K：键，决定位置 j 在什么查询下得到高分。",
        "V": "V = X W_V：值，承载要汇总的特征。"}
GIVEN_SAYS = {"Q": "Q：每行一个查询", "K": "K：与 Q 一样宽，才能点积", "V": "V：与 K 行数相同，每个键配一个值"}
GIVEN_FIRST = {2: "直接给定 Q、K：查询与键的宽度必须相同，才能做点积。",
               3: "直接给定 Q、K、V：查询与键的宽度必须相同，才能做点积。"}
GIVEN_MORE = {1: "直接给定的 {first}。", 2: "直接给定的 {first}；{second}。"}     # a later page: one or two grids
ROW_CAPTIONS = {      # step 4, by row_case
    "one_key": "只有一个键：softmax 把全部权重给它，缩放与否都一样（查询 {query}）。",
    "dk_one": "本例 dₖ = {d_k}：除以 √dₖ 不改变分数，两行权重相同（查询 {query}）。",
    "flat": "这一行的分数全相同：缩放前后权重都均匀（查询 {query}）。",
    "peaks_equal": "同一行 softmax：不缩放时分数差距更大，但最大权重在显示精度下相同（查询 {query}）。",
    "sharper": "同一行 softmax：不缩放时分数差距更大，权重更集中（查询 {query}）。"}
SQUARE = {True: "QKᵀ 是 [T, T]：第 i 行第 j 列 = qᵢ · kⱼ；行是查询，列是键。",
          False: "QKᵀ 是 [T_q, T_k]：第 i 行第 j 列 = qᵢ · kⱼ；行是查询，列是键。"}


def row_case(r, peaks) -> str:
    """What the compared row shows: one key, d_k = 1, a flat row, peaks equal as drawn, or sharper."""
    if len(r.k) == 1:
        return "one_key"
    if r.d_k == 1:
        return "dk_one"
    if r.query_flat:
        return "flat"
    return "peaks_equal" if str(peaks[0]) == str(peaks[1]) else "sharper"


def row_caption(book: NumberBook, r, name: Shown, peaks) -> Said:
    """What this row shows, chosen by the data (and by the texts drawn), with its narration."""
    case = row_case(r, peaks)
    slots = dict(query=name, d_k=book.index("d_k", r.d_k), peak=peaks[0], raw=peaks[0], scaled=peaks[1])
    caption, says = ROW_CAPTIONS[case], NARRATION["row." + case]
    return said(phrase(caption, **named(caption, slots)), phrase(says, **named(says, slots)))


def w_page(book: NumberBook, r, name: str) -> Said:
    """W_Q, W_K or W_V shown alone: its caption and narration, with this input's widths."""
    d_in, d_k = (book.index(f"wq.shape[{a}]", r.wq.shape[a]) for a in (0, 1))
    d_v = book.index("wv.shape[1]", r.wv.shape[1])
    if name == "Q":
        return said(phrase("W_Q 把每行从 D_in = {d_in} 维投影到 dₖ = {d_k} 维。", d_in=d_in, d_k=d_k),
                    phrase(NARRATION["w.Q"], d_in=d_in, d_k=d_k))
    if name == "K":
        return said(phrase("W_K 与 W_Q 同形：键与查询一样宽（dₖ = {}），才能做点积。", d_k),
                    phrase(NARRATION["w.K"], book.index("wk.shape[1]", r.wk.shape[1])))
    if r.wv.shape[1] == r.wq.shape[1]:
        return said(phrase("W_V 把每行投影到 d_v = {} 维：本例与 dₖ 相同，一般定义中两者可以不同。", d_v),
                    phrase(NARRATION["w.V.same"], d_v))
    return said(phrase("W_V 把每行投影到 d_v = {d_v} 维：值的宽度可以与 dₖ = {d_k} 不同。", d_v=d_v, d_k=d_k),
                phrase(NARRATION["w.V.diff"], d_v=d_v, d_k=book.index("d_k", r.d_k)))


def sizes(book: NumberBook, name: str, values) -> list[Shown]:
    """Rows and width of a drawn matrix (the same records as its shape tag)."""
    return [book.index(f"{name}.shape[{a}]", values.shape[a]) for a in (0, 1)]


def projection_says(book: NumberBook, r, page: str) -> tuple:
    """Step 1 from X: 'all' (one board), 'x' (X alone), 'first' (X and Q), or a role 'Q', 'K', 'V'
    (its product; W alone: w_page)."""
    d_k, d_v = book.index("q.shape[1]", r.q.shape[1]), book.index("v.shape[1]", r.v.shape[1])
    if page in ("all", "x"):
        rows, d_in = sizes(book, "x", r.x)
        return (phrase(NARRATION["proj.all"], rows=rows, d_in=d_in, d_k=d_k, d_v=d_v) if page == "all"
                else phrase(NARRATION["proj.x"], rows=rows, d_in=d_in))
    if page == "first":
        return join(phrase(NARRATION["proj.first"]), projection_says(book, r, "Q"))
    rows, width = sizes(book, page.lower(), getattr(r, page.lower()))
    return phrase(NARRATION["role." + page], rows=rows, width=width)


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


def scores_says(book: NumberBook, r, query: Shown, key: Shown) -> tuple:
    """Step 2: the loop QK^T replaces, what one cell is, the first one made, the grid's axes and its range."""
    low, high = (book.fmt(f"scores_legend.{end}", v, decimals_cut_by_digits(r.scores))
                 for end, v in zip(("low", "high"), r.scores_range))
    dot = phrase(NARRATION["scores.dot.one"] if r.d_k == 1 else NARRATION["scores.dot"],
                 book.index("d_k", r.d_k))
    rows, cols = sizes(book, "scores", r.scores)
    grid = (phrase(NARRATION["scores.grid.flat"], rows=rows, cols=cols, score=low)
            if r.scores_flat else
            phrase(NARRATION["scores.grid"], rows=rows, cols=cols, low=low, high=high))
    first = phrase(NARRATION["scores.first"], query=query, key=key,
                   score=book.fmt("scores[0][0]", r.scores[0, 0], decimals_cut_by_digits(r.scores)))
    return join(phrase(NARRATION["scores.loop"]), dot, first, grid)


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


def scaled_says(book: NumberBook, r, made) -> tuple:
    """Step 3, while the first scaled score is made: the division, or that dividing by one changes nothing."""
    score, scale = (book.fmt(t.label, t.value, t.decimals) for t in made.terms())
    scaled = book.fmt(made.result.label, made.result.value, made.result.decimals)
    return phrase(NARRATION["scale.first." + ("unit" if r.d_k == 1 else "wide")], score=score, scale=scale,
                  scaled=scaled)


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
    "scores.first": "第一格是 {query} 的查询与 {key} 的键逐项相乘再相加，得到 {score}；其余各格同样计算。",
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
    "scale.first.wide": "以第一格为例：分数 {score} 除以 {scale}，得到 {scaled}。",
    "scale.first.unit": "以第一格为例：分数 {score} 除以 {scale} 仍是 {scaled}，缩放不改变它。",
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
