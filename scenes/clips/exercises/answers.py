"""The exercises' answers as drawn: each function builds one answer's blocks, placed under the
heading (scenes/kit/compose/quiz.py), and returns them in the order they appear; the grids are the kit's
(−∞, hidden zeros and NaN marked), fractions and grouped counts kit/draw/exact.py's.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any

from manim import DOWN, LEFT, RIGHT, UP, VGroup

from scenes.kit.motion import expressions as ex
from scenes.kit.text import style
from scenes.kit.draw.columns import Table
from scenes.kit.motion.derive import Band
from scenes.kit.motion.derive_cells import Lone, counted
from scenes.kit.draw.exact import big_number, fraction_grid
from scenes.kit.motion.expressions import cell, sum_of
from scenes.kit.draw.notes import code, note
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.compose.quiz import in_a_row, place, tagged
from scenes.kit.compose.sheets import code_arrow, column, grid, queries, row_sums, softmax_cell

HEAD_ROLES = ("query", "key", "value", "accent")     # head h in style.ROLES[HEAD_ROLES[h % 4]], read when drawn


def align_weights(book: NumberBook, r: Any, v1: Shown, v2: Shown) -> list:
    """3.1: v2's W_query.weight [d_out, d_in] -> .T -> v1's W_query [d_in, d_out], then the code."""
    lin = grid(book, "align.linear", r.linear[0], 2, code(book, "{}：W_query.weight", v2, color=style.QUERY))
    mine = grid(book, "align.v1", r.v1[0], 2, code(book, "{}：W_query", v1, color=style.QUERY))
    for j in range(lin.n_cols):                        # row 0 of the weight is column 0 of W
        lin.entries[0][j].set_color(style.TRACK)
        mine.entries[j][0].set_color(style.TRACK)
    left = tagged(lin, note(book, "[d_out, d_in] = {}", book.coords("align.linear.shape", r.linear[0].shape)))
    right = tagged(mine, note(book, "[d_in, d_out] = {}", book.coords("align.v1.shape", r.v1[0].shape)))
    link = code_arrow(book, ".T →")
    lines = VGroup(code(book, "{}：x @ W_query", v1), code(book, "{}：W_query(x) = x @ W_query.weight.T", v2),
                   code(book, "sa_{first}.W_query = nn.Parameter(sa_{second}.W_query.weight.T)", first=v1,
                        second=v2, color=style.TRACK),
                   note(book, "W_key、W_value 同样转置后交给 {}", v1)).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
    top = VGroup(left, link, right).arrange(RIGHT, buff=0.8)
    link.match_y(lin.box_group)
    place(VGroup(top, lines).arrange(DOWN, buff=0.6), most=1.4)
    return [left, link, right, lines]


def align_outputs(book: NumberBook, r: Any, tokens: list, v1: Shown, v2: Shown, diff: Shown) -> list:
    """3.1: the same x through both versions: equal outputs, their largest difference."""
    x = grid(book, "align.x", r.x, 2, code(book, "x"), row_labels=tokens, row_color=style.MUTED)
    out1 = grid(book, "align.out_v1", r.out_v1, 4, code(book, "{}(x)", v1, color=style.VALUE))
    out2 = grid(book, "align.out_v2", r.out_v2, 4, code(book, "{}(x)", v2, color=style.VALUE))
    VGroup(x, out1, out2).arrange(RIGHT, buff=0.8, aligned_edge=UP)
    gap = code(book, "max |{first}(x) − {second}(x)| = {diff}", first=v1, second=v2, diff=diff,
               color=style.ACCENT, size=style.BODY_SIZE)
    place(VGroup(VGroup(x, out1, out2), gap).arrange(DOWN, buff=0.6), most=1.2)
    return [x, out1, out2, gap]


def wrapper(book: NumberBook, r: Any) -> list:
    """3.2: each head's [T, d_out] output, concatenated along the last axis."""
    heads, d_out, width = (book.index(f"wrap.{n}", getattr(r, n)) for n in ("heads", "d_out", "width"))
    call = code(book, "MultiHeadAttentionWrapper(d_in={d_in}, d_out={d_out}, num_heads={heads})",
                d_in=book.index("wrap.d_in", r.d_in), d_out=d_out, heads=heads, color=style.TRACK)
    grids = []
    for h, out in enumerate(r.outputs):
        color = style.ROLES[HEAD_ROLES[h % 4]]
        g = grid(book, f"wrap.head[{h}]", out, 4, book.compose("头 {}", book.index(f"wrap.head_id[{h}]", h)),
                 header_color=color)
        g.entry_group.set_color(color)
        grids.append(tagged(g, note(book, "{}", book.coords("wrap.head_shape", out.shape))))
    cat = grid(book, "wrap.concat", r.concat, 4, "拼接", header_color=style.TEXT)
    for row in cat.entries:
        for j, e in enumerate(row):
            e.set_color(style.ROLES[HEAD_ROLES[(j // r.d_out) % 4]])
    link = code_arrow(book, "torch.cat(dim={}) →", book.index("wrap.cat_dim", -1))
    cat_shape = note(book, "{}", book.coords("wrap.concat_shape", r.concat.shape))
    flow = VGroup(*grids, link, tagged(cat, cat_shape)).arrange(RIGHT, buff=0.6, aligned_edge=UP)
    link.match_y(cat.box_group)
    book_d_out = book.index("wrap.book_d_out", r.book_d_out)
    sums = VGroup(book.text("拼接宽度 = num_heads × d_out = {heads} × {d_out} = {width}", heads=heads,
                            d_out=d_out, width=width, color=style.ACCENT),
                  note(book, "原来每头 d_out = {book_d_out}：拼接宽度 {heads} × {book_d_out} = {book_width}",
                       book_d_out=book_d_out, heads=heads,
                       book_width=book.index("wrap.book_width", r.book_width)))
    sums.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
    place(VGroup(call, flow, sums).arrange(DOWN, buff=0.5), most=1.2)
    return [call, flow, sums]


def param_rows(book: NumberBook, r: Any) -> list:
    """3.3 as a table, term by term: [the sizes, W_query, W_key, W_value, Q/K/V subtotal,
    out_proj.weight, out_proj.bias, the total, the note]."""
    square = book.coords("params.square", (r.d_model, r.d_model))
    linear = code(book, "nn.Linear(D, D, bias=False)", color=style.MUTED)
    rows = [[code(book, n, color=style.QUERY), linear.copy() if k else linear, note(book, "{}", square),
             big_number(book, f"params.w_{n[2:]}", r.weight)]
            for k, n in enumerate(("W_query", "W_key", "W_value"))]
    total = book.math(r"@D^{@}+D", book.index("params.coefficient", r.coefficient),
                      book.index("params.power", r.power), color=style.TRACK, size=style.TITLE_SIZE)
    rows += [[book.text("小计", color=style.ACCENT),
              code(book, "{} × D × D", book.index("params.projections", r.projections), color=style.ACCENT),
              None, big_number(book, "params.qkv", r.qkv, color=style.ACCENT)],
             [code(book, "out_proj.weight", color=style.KEY),
              code(book, "nn.Linear(D, D)", color=style.MUTED), note(book, "{}", square),
              big_number(book, "params.out_weight", r.out_weight)],
             [code(book, "out_proj.bias", color=style.KEY), None,
              note(book, "{}", book.coords("params.bias_shape", (r.d_model,))),
              big_number(book, "params.out_bias", r.out_bias)],
             [book.text("合计", color=style.TRACK), total, None,
              big_number(book, "params.total", r.total, style.TRACK)]]
    table = Table(rows, aligns=(LEFT, LEFT, LEFT, RIGHT), gap=0.6, row_h=0.58)
    n = [table.cells[i][3] for i in range(7)]
    parts = {3: [(f"w_{k}", r.weight, i) for i, k in enumerate(("query", "key", "value"))],   # subtotal
             6: [("qkv", r.qkv, 3), ("out_weight", r.out_weight, 4), ("out_bias", r.out_bias, 5)]}   # total
    made = [sum_of(Lone(n[row], within=table), (0, 0), counted(f"params.{name}", value, n[row]),
                  [counted(f"params.{k}", v, n[i]) for k, v, i in parts[row]], ex.room_for(table))
            for row, name, value in ((3, "qkv", r.qkv), (6, "total", r.total))]
    band = Band(made)
    sizes = book.text("D = {d_model}，H = {heads}，每头 d = D/H = {head_dim}：拆头只改变形状，不改变参数个数",
                      d_model=book.index("params.d", r.d_model), heads=book.index("params.heads", r.heads),
                      head_dim=book.index("params.head_dim", r.head_dim), size=style.LABEL_SIZE)
    warning = book.text("这只是一个注意力模块的参数，不是整个模型。", color=style.MASK)
    place(VGroup(sizes, table, band, warning).arrange(DOWN, buff=0.4, aligned_edge=LEFT), most=1.15)
    return [sizes, *table.rows(), warning], made, band


def shape_chain(book: NumberBook, r: Any) -> list:
    """The shapes exercise: each line of the forward pass with the shape it makes; the three
    asked for in the tracked colour."""
    swap = {f"dim{k}": book.index(f"shapes.swap[{k}]", v) for k, v in enumerate(r.swap)}
    keys = {f"dim{k}": book.index(f"shapes.key_swap[{k}]", v) for k, v in enumerate(r.key_swap)}
    steps = [(code(book, "q = W_query(x)"), "[B, T, D_o]", "projected", None),
             (code(book, "q = q.view(B, T, H, d)"), "[B, T, H, d]", "split", None),
             (code(book, "q = q.transpose({dim0}, {dim1})", **swap), "[B, H, T, d]", "per_head", "← Q 分头后"),
             (code(book, "s = q @ k.transpose({dim0}, {dim1})", **keys), "[B, H, T, T]", "scores", "← 分数"),
             (code(book, "z = (a @ v).transpose({dim0}, {dim1})", **swap), "[B, T, H, d]", "back", None),
             (code(book, "z = z.reshape(B, T, D_o)"), "[B, T, D_o]", "merged", "← 合并后")]
    rows = []
    for line, axes, name, answer in steps:
        color = style.TRACK if answer else style.TEXT
        shape = book.text("{}", book.coords(f"shapes.{name}", getattr(r, name)), color=color)
        rows.append([line, note(book, axes), shape, book.text(answer, color=color) if answer else None])
    table = Table(rows, aligns=(LEFT,) * 4, gap=0.6, row_h=0.62)
    sizes = book.text("每头 d = D_o / H = {d_model} / {heads} = {head_dim}",
                      d_model=book.index("shapes.d_model", r.d_model),
                      heads=book.index("shapes.heads", r.heads),
                      head_dim=book.index("shapes.head_dim", r.head_dim), color=style.ACCENT)
    place(VGroup(sizes, table).arrange(DOWN, buff=0.45, aligned_edge=LEFT), most=1.15)
    return sizes, list(table.rows()), table


# ------------------------------------------------------------------ the supplementary answers
def zero_answer(book: NumberBook, r: Any) -> list:
    """S + M, then the weights as fractions over the same weights as decimals with the row sums."""
    masked = grid(book, "zeros.masked", r.masked, 0, "S + M", **queries(book, len(r.masked)))
    fracs = fraction_grid(book, "zeros", r.fractions, r.hidden, "softmax：分数")
    decimals = grid(book, "zeros.weights", r.weights, 4, "小数", hidden=r.hidden, heat="weights")
    sums = VGroup(decimals, row_sums(book, "zeros.sums", r.sums)).arrange(RIGHT, buff=0.2, aligned_edge=UP)
    made = softmax_cell(book, decimals, masked, r.hidden)
    band, link = Band([made]), code_arrow(book)
    in_a_row(masked, link, VGroup(fracs, sums).arrange(DOWN, buff=0.4, aligned_edge=LEFT), buff=0.6,
             link=link, to=masked, below=band)
    return [masked, link, fracs, *sums], made, band


def dim_right(book: NumberBook, r: Any, right: Shown) -> list:
    scores = grid(book, "dim.scores", r.scores, style.decimals_for(r.scores), "scores = X Xᵀ",
                  **queries(book, len(r.scores)))
    link = code_arrow(book, "softmax(dim={}) →", right)
    weights = grid(book, "dim.right", r.right, 4, book.compose("dim={}", right), heat="weights")
    sums = row_sums(book, "dim.right_rows", r.right_rows)
    made = softmax_cell(book, weights, scores, r.hidden)
    band = Band([made])
    return in_a_row(scores, link, weights, sums, link=link, to=scores, below=band)[:-1], made, band


def dim_wrong(book: NumberBook, r: Any, right: Shown, wrong: Shown) -> list:
    good = grid(book, "dim.right", r.right, 4, book.compose("dim={}", right), heat="weights",
                **queries(book, len(r.right)))
    bad = grid(book, "dim.wrong", r.wrong, 4, book.compose("dim={}", wrong), header_color=style.MASK,
               heat="weights")
    colors = [style.MASK if off else style.TEXT for off in r.row_is_off]
    cols = grid(book, [[f"dim.wrong_cols[{j}]" for j in range(len(r.wrong_cols))]], [r.wrong_cols], 4,
                cell_w=bad.cell_w, row_labels=["列和"], row_color=style.VALUE)
    cols.entry_group.set_color(style.VALUE)
    left = VGroup(good, row_sums(book, "dim.right_rows", r.right_rows))
    left.arrange(RIGHT, buff=0.2, aligned_edge=UP)
    right = VGroup(bad, row_sums(book, "dim.wrong_rows", r.wrong_rows, colors))
    right.arrange(RIGHT, buff=0.2, aligned_edge=UP)
    cols.next_to(bad.box_group, DOWN, buff=0.2).align_to(bad.box_group, LEFT)
    made = sum_of(cols, (0, 0), cell(book, cols, 0, 0), [cell(book, bad, k, 0) for k in range(bad.n_rows)],
                 ex.room_for(bad))
    band = Band([made])
    in_a_row(left, VGroup(right, cols), buff=1.2, below=band)
    return [left, right, cols], made, band


def diagonal_answer(book: NumberBook, keep: Any, hide: Any, d1: Shown, d0: Shown) -> list:
    masked = grid(book, "diag.masked", hide.masked, style.decimals_for(hide.scores),
                  book.compose("S + M（diagonal={}）", d0), **queries(book, len(hide.masked)))
    weights = grid(book, "diag.weights", hide.weights, 4, "A = softmax", hidden=hide.hidden,
                   heat="weights")
    seen = column(book, "diag.visible", hide.visible, 0, "可见键")
    link = code_arrow(book)
    compare = note(book, "对照 diagonal={old}：第一行可见 {keep_visible} 个键（它自己），权重为 {keep_weight}",
                   old=d1, keep_visible=book.index("diag.keep_visible", keep.visible[0]),
                   keep_weight=book.fmt("diag.keep_weight", keep.weights[0][0]))
    made = softmax_cell(book, weights, masked, hide.hidden, nan_first=True)
    band = Band([made])
    in_a_row(masked, link, weights, seen, below=VGroup(compare, band).arrange(DOWN, buff=0.4), link=link,
             to=masked)
    return [masked, link, weights, seen, compare], made, band
