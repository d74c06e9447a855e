"""Builders for the causal-mask clip: grids whose −∞, exact-zero and NaN cells cannot be
mistaken for ordinary numbers, and the words chosen by the data. Layout: scenes/kit/page/page.py.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from manim import DOWN, LEFT, Mobject, VGroup

from scenes.compute import masking as compute
from scenes.kit.text import lang, style
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.page.marked import column, grid
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area, phrase

AREA = Area(width=13.0, height=5.6, most=1.35)   # a step's board; small layouts grow at most 1.35x
NARROW = 4             # a query or output at most this wide is written out in a line

# The clip's words (assets/lang/zh/causal_mask.json): its narration, keyed by step and case (a step
# says a few keys, one narrate() each), and the caption parts the data chooses, keyed by case
WORDS = lang.words("causal_mask")
NARRATION = WORDS["narration"]

# What each drawn block is: its name's colour (name tag, shape tag, header) and its frames' (the
# entries' cells), or one role for both; read by tests/support/contract.block_problems from what is drawn.
BLOCKS = {"k": ("key", "grid"), "k_changed": ("key", "grid"), "v": ("value", "grid"), "v_changed": ("value", "grid"),
          "mask": ("mask", "grid"), "mask_diagonal*": ("mask", "grid"), "weights": ("text", "heat"),
          "weights_diagonal*": ("text", "heat"), "post_probs": ("text", "heat"), "post_zeroed": ("mask", "heat"),
          "post_renormalised": ("value", "heat"), "masked": ("text", "heat"), "fresh": ("text", "heat"),
          "cache_allowed": ("text", "heat"), "causal_before": ("track", "grid"), "shift_causal": ("text", "grid"),
          "shift_open": ("text", "grid"), "open_before": ("track", "grid"),
          "scores": ("text", "grid"), "scaled": ("text", "grid"), "output": ("accent", "grid"), "q": ("query", "grid"),
          "row_sums": ("text", "grid"), "row_sums_diagonal*": ("text", "grid"), "post_row_sums": ("text", "grid"),
          "pad_padding": ("muted", "grid"), "pad_union": ("text", "grid"), "pad_visible": ("text", "grid"),
          "pad_weights": ("text", "heat")}


def input_grid(book: NumberBook, name: str, label: str, values, color: str, names,
               changed=None) -> MatrixGrid:
    """K or V (or K′, V′) with the key names; the changed row framed when given."""
    mob = grid(book, label, values, style.decimals_for(values), row_labels=names, row_color=style.KEY,
               header=name, header_color=color)
    return mob.frame_row(changed, style.ACCENT, kind="changed") if changed is not None else mob


def formula(book: NumberBook, scale: bool) -> Mobject:
    s = r"\frac{QK^{\top}}{\sqrt{d_k}}" if scale else r"QK^{\top}"
    return book.math(r"A = \mathrm{softmax}\left(" + s + r" + M\right)", size=34)


def cache_grids(book: NumberBook, c, diagonal: int, n_c: Shown, first: Shown) -> tuple:
    """The book's figure: 1 where a query may attend, a fresh triangle and the block after a cache."""
    fresh = grid(book, "fresh", c.fresh, 0, hidden=c.fresh_hidden, heat="weights",
                 row_labels=[book.index(f"fresh_row[{i}]", i) for i in range(len(c.fresh))],
                 col_labels=[book.index(f"fresh_key[{j}]", j) for j in range(len(c.fresh))],
                 row_color=style.QUERY, col_color=style.KEY,
                 header="无缓存：每行看见对角线及其左边" if diagonal else "无缓存：每行只看见对角线左边")
    cached = grid(book, "cache_allowed", c.allowed, 0, hidden=c.hidden, heat="weights",
                  row_labels=[book.index(f"cache_row[{n}]", p) for n, p in enumerate(c.positions)],
                  col_labels=[book.index(f"cache_key[{j}]", j) for j in range(c.allowed.shape[1])],
                  row_color=style.QUERY, col_color=style.KEY,
                  header=book.compose("已缓存 {cached} 个位置：新块第一行看见 {seen} 个", cached=n_c, seen=first))
    for j in range(c.cached):
        cached.col_labels[j].set_color(style.MUTED)
    cached.frame_row(0, style.TRACK)
    legend = book.text(WORDS["legend"]["hides" if c.hides_any else "none"],
                       book.index("allowed_legend", 1), size=style.LABEL_SIZE, color=style.MUTED)
    return fresh, cached, legend


# ---------------------------------------------------------------- words chosen by the data
def shrink_words(book: NumberBook, case: str) -> tuple[Shown, str]:
    """What zeroing the future does to the row sums, as this input has it (some row is hidden; case:
    the lesson's shrink_case): the words, and the key of the sentence that says it."""
    key = "shrink." + ("none" if case == "underflow" else case)
    return book.compose(WORDS["shrink"][case], one=book.const(1)), key


def rows_words(book: NumberBook, rows) -> Shown:
    """"第 3 行", or "七行" when several rows underflowed."""
    if len(rows) == 1:
        return book.compose("第 {} 行", book.index("underflow_row", rows[0]))
    return book.compose("{}行", book.word("underflow_row_count", len(rows)))


def route_words(book: NumberBook, r) -> tuple[Shown, list[tuple]]:
    """How the renormalised rows compare with the −∞ route: the caption's words, and step 3's
    last sentences (the same, the rows NaN on both ({nan}), why the book masks first)."""
    nan = (book.compose(WORDS["route_nan"], book.index("nan_row", r.nan_rows[0])) if len(r.nan_rows)
           else book.compose(""))
    agreement = compute.route_agreement(r.route_gap)
    if len(r.post.underflow_rows):
        rows = rows_words(book, r.post.underflow_rows)
        words = book.compose(WORDS["route_words"]["underflow"], rows)
        part = said("route.underflow", rows=rows, nan=nan)
    elif agreement == "lost":
        gap = book.fmt("route_gap", r.route_gap)
        words, part = book.compose(WORDS["route_words"]["lost"], gap), said("route.lost", gap=gap, nan=nan)
    else:
        words, part = book.compose(WORDS["route_words"][agreement]), said("route." + agreement, nan=nan)
    return words, [part, said("route.why")]


def route_grids(book: NumberBook, post, steps, causal: bool, query_names, key_names) -> tuple:
    """The other route's grids: P = softmax(S) and its row sums; P with the future zeroed and each
    row divided by what is left (None when nothing is hidden)."""
    cols = dict(col_labels=key_names, col_color=style.KEY)
    probs = grid(book, "post_probs", post.probs, heat="weights", row_labels=query_names,
                 row_color=style.QUERY, header="P = softmax(S)", **cols)
    sums = column(book, "post_row_sums", post.row_sums, col_labels=["剩余和" if causal else "行和"],
                  col_color=style.ACCENT)
    if not steps.hides_any:
        return probs, sums, None, None
    zeroed = grid(book, "post_zeroed", post.zeroed, hidden=steps.hidden, heat="weights", header="未来置零",
                  header_color=style.MASK, **cols)
    renorm = grid(book, "post_renormalised", post.renormalised, hidden=steps.hidden, heat="weights",
                  row_labels=query_names, row_color=style.QUERY, header="每行 ÷ 剩余和",
                  header_color=style.VALUE, **cols)
    return probs, sums, zeroed, renorm


def route_note(book: NumberBook, r) -> VGroup:
    """Beside the renormalised grid: underflowed rows, the largest gap, rows NaN on both routes."""
    post, lines = r.post, []
    if len(post.underflow_rows):
        u = post.underflow_rows[0]
        lines += [book.text("{}：可见的概率全部下溢，", rows_words(book, post.underflow_rows), color=style.MASK),
                  book.text("剩余和为 {}，相除得到 NaN", book.fmt(f"post_row_sums[{u}]", post.row_sums[u], 0),
                            color=style.MASK),
                  book.label("−∞ 路线先遮住再 softmax，不会下溢", color=style.VALUE)]
    if r.compared:
        notes = WORDS["route_note_rest" if len(post.underflow_rows) else "route_note"]
        says = notes[compute.route_agreement(r.route_gap)]
        lines += [book.label(says, color=style.VALUE),
                  book.text("最大差：{}", book.fmt("route_gap", r.route_gap), color=style.ACCENT)]
    if len(r.nan_rows):
        lines.append(book.text("第 {} 行没有可见的键：两条路线都得到 NaN", book.index("nan_row", r.nan_rows[0]),
                               color=style.MUTED))
    return VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.2)


def diagonal_words(book: NumberBook, r, causal: bool) -> tuple[str, dict[str, Shown], str]:
    """The step that shows the other choice of diagonal: (template, slots by name, the case:
    'nan' when a row is left with no visible key, else 'cached'): {diagonal}, and that {row}."""
    d = r.variant_diagonal
    rows = r.variant_nan_rows if d == 0 else r.nan_rows
    case = "nan" if len(rows) else "cached"
    slots = {"diagonal": book.index("variant_diagonal", d)}
    if len(rows):
        slots["row"] = book.index("variant_nan_row" if d == 0 else "nan_row", rows[0])
    return WORDS["diagonal"][("open" if not causal else f"d{d}") + "." + case], slots, case


def mask_case(r, causal: bool) -> str:
    """Step 2 as this input has it: no mask, a row left with no key, nothing masked, some masked."""
    if not causal:
        return "open"
    return "nan" if len(r.nan_rows) else "some" if r.steps.hides_any else "none"


def mask_say(case: str, diagonal: int, triu: Shown | None, slots: dict) -> list[tuple]:
    """Step 2's two sentences, on M and on A."""
    if case == "nan":
        return [said("mask.nan.m", triu=triu, **slots), said("mask.nan.a")]
    if case == "some":
        return [said("mask.diag.m" if diagonal == 0 else "mask.some.m", triu), said("mask.some.a")]
    return [said(f"mask.{case}.m", *([triu] if case == "none" else [])), said(f"mask.{case}.a")]


def said(key: str, *slots: Shown, **named: Shown) -> tuple:
    """The NARRATION entry `key` as a phrase (a step says a few, one narrate() each)."""
    return phrase(NARRATION[key], *slots, **named)
