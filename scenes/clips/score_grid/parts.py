"""Builders for the score-grid clip: its role grids and projection blocks (kit/compose/boards.py: named grids,
W above its product), the variance table, the numbers made in front of the viewer (pages: kit/page/page.py;
legends and bars: kit/page/blocks.py) and the words the data chooses (the book's sentences, their numbers in
named slots: assets/lang/zh/score_grid.json). Numbers only through the NumberBook."""
from __future__ import annotations

from typing import Sequence

from manim import DOWN, RIGHT, UP, Mobject, VGroup

from scenes.kit.compose import boards
from scenes.kit.motion import derive, expressions as ex
from scenes.kit.text import lang, style
from scenes.kit.draw.anim import Appear
from scenes.kit.motion.derive import Band
from scenes.kit.motion.expressions import Derivation, Term
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area, Said, join, named, phrase, said
from scenes.kit.text.style import decimals_cut_by_digits

WORDS = lang.words("score_grid")
NARRATION, ROW_CAPTIONS, SQUARE = WORDS["narration"], WORDS["row_captions"], WORDS["square"]
GIVEN_SAYS, GIVEN_FIRST, GIVEN_MORE = WORDS["given_says"], WORDS["given_first"], WORDS["given_more"]
MIN_SCALE = 0.6      # keeps every number above the contract's least height
FULL_SCALE = 0.8     # below this, long column labels are abbreviated (the rows keep them whole)
WIDTH = 13.2         # the width a drawing may take
AREA = Area(WIDTH)

# What each drawn block is: its name's colour (name tag, shape tag, header) and its frames' (the
# entries' cells), or one role for both; read by tests/support/contract.block_problems from what is drawn.
BLOCKS = {"x": "text", "q": "query", "wq": "query", "k": "key", "wk": "key", "v": "value", "wv": "value",
          "scores": ("text", "heat"), "scaled": ("text", "heat"), "weights_raw": ("text", "heat"),
          "weights_scaled": ("text", "heat"), "row.scores": ("text", "grid"), "row.scaled": ("text", "grid"),
          "variance.*": ("text", "grid")}


def axis_names(book: NumberBook, tokens: list[str] | None, prefix: str, count: int) -> list[Shown]:
    """Token labels when given, else q0, q1, ... (indices recorded)."""
    if tokens:
        return [book.user_text(t) for t in tokens]
    return [book.compose(prefix + "{}", book.index(f"{prefix}.index[{j}]", j)) for j in range(count)]


def role_grid(book: NumberBook, name: str, values, color: str, tex: str, side=DOWN, **kw) -> VGroup:
    """A grid drawn in its role's colour with 'name [shape]' beside it, at the grid's decimals."""
    return boards.named_grid(book, name, values, decimals_cut_by_digits(values), color, tex, side, **kw)


def variance_table(book: NumberBook, v, own: int) -> VGroup:
    """d_k | Var(q.k) | Var(q.k / sqrt(d_k)), the clip's own d_k in the tracked colour."""
    cols = [MatrixGrid(book, "variance.d_k", [[d] for d in v.d_ks], 0, col_labels=["dₖ"]),
            MatrixGrid(book, "variance.var", v.var[:, None], 4, col_labels=["Var(q·k)"]),
            MatrixGrid(book, "variance.var_scaled", v.var_scaled[:, None], 4, col_labels=["Var(q·k/√dₖ)"])]
    table = VGroup(*cols).arrange(RIGHT, buff=0.1, aligned_edge=DOWN)
    for g in cols:
        g.entry(own, 0).set_color(style.TRACK)
        g.box(own, 0).set_stroke(style.TRACK, width=3)
    table.header = VGroup(*[g.col_labels for g in cols], *[g.box_group for g in cols])
    table.rows = [VGroup(*[g.entry(i, 0) for g in cols]) for i in range(len(v.d_ks))]
    return table


def shape_rule(book: NumberBook, r) -> VGroup:
    """[T, D_in] . [D_in, d_k] -> [T, d_k], then the same with this input's sizes."""
    x, w, q = (book.coords(f"rule.{n}", a.shape) for n, a in (("x", r.x), ("wq", r.wq), ("q", r.q)))
    return VGroup(book.math(r"[T, D_{in}] \cdot [D_{in}, d_k] \to [T, d_k]", size=34),
                  book.text("：{x} · {w} → {q}", x=x, w=w, q=q, size=style.BODY_SIZE)).arrange(RIGHT, buff=0.2)


def projection_block(book: NumberBook, values, w, name, w_name, color) -> VGroup:
    """W above its product, columns over columns (the product sits under W, beside X)."""
    return boards.product(role_grid(book, f"w{name.lower()}", w, color, w_name, side=UP),
                          role_grid(book, name.lower(), values, color, name), name, w_name)


# ---------------------------------------------------------------- the first cell, from a row of Q and of K
def first_cell(book: NumberBook, r, grid: MatrixGrid) -> Derivation:
    """S₀₀ = Σ_r q₀ᵣ·k₀ᵣ: the products of Q's and K's first rows (each at the precision the grid
    rule gives that number alone; Q and K are not on this page) into the grid's first cell."""
    q, k = ([Term(f"{n}[0][{c}]", float(a[0, c]), decimals_cut_by_digits([[a[0, c]]])) for c in range(r.d_k)]
            for n, a in (("q", r.q), ("k", r.k)))
    return ex.dot(grid, (0, 0), ex.cell(book, grid, 0, 0), list(zip(q, k)), ex.room_for(grid))


def first_scaled(book: NumberBook, r, grid: MatrixGrid, root: Mobject) -> Derivation:
    """The first scaled score = S₀₀ / √dₖ: the score at the precision its value alone takes (QKᵀ is not
    on this page), √dₖ a constant coming from the line that gives it."""
    score = Term("scores[0][0]", float(r.scores[0, 0]), decimals_cut_by_digits([[r.scores[0, 0]]]))
    return ex.divide(grid, (0, 0), ex.cell(book, grid, 0, 0), score,
                     Term("scale", float(r.scale), 4, at=root, source=False))


def make_scaled(scene, mob: VGroup, left: VGroup, made: Derivation, band: Band) -> bool:
    """The scaled grid (mob: its factor, the band where this page has it, the grid with its tag and
    legend): its frame, its first cell made from the first score in the page's band, else by the
    caption line, else left out (the record says so), then the rest at once. Whether it was made."""
    shown = VGroup(mob, *([left] if any(m in scene.mobjects for m in left.get_family()) else []))
    band = derive.room(scene, shown, [made], band if band in mob.submobjects else None)
    ((_, tag), bar) = mob[-1]
    boards.fill(scene, made.grid, [made], band, Appear(tag), Appear(bar))
    return band is not None


def lit_from(first: Derivation, grid: MatrixGrid) -> Derivation:
    """The first cell's sources come from its row's name (the query) and its column's (the key)."""
    for t in first.terms():
        t.at = grid.row_labels[0] if t.label.startswith("q") else grid.col_labels[0]
    return first


# ---------------------------------------------------------------- the words the data chooses
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
    d_in, d_k = sizes(book, "wq", r.wq)
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


def direct_says(book: NumberBook, r, names: Sequence[str], first: bool) -> Said:
    """Step 1 with Q, K (V) given: the caption of the page holding these grids (a later page holds one or
    two) and what is said, after the opening on the first page."""
    given = "qkv" if r.v is not None else "qk"
    described = dict(zip(("first", "second"), (book.compose(GIVEN_SAYS[n]) for n in names)))
    caption = phrase(GIVEN_FIRST[given]) if first else phrase(GIVEN_MORE[str(len(names))], **described)
    pieces = [phrase(NARRATION["direct.intro." + given])] if first else []
    for name in names:
        key = "direct.K.rows" if name == "K" and len(r.k) != len(r.q) else "direct." + name
        rows, width = sizes(book, name.lower(), getattr(r, name.lower()))
        pieces.append(phrase(NARRATION[key], rows=rows, width=width))
    if len(names) == 1:
        pieces.append(phrase(NARRATION["direct." + names[0] + ".more"]))
    return said(caption, join(*pieces))


def scores_says(book: NumberBook, r, query: Shown, key: Shown) -> Said:
    """Step 2: QK^T's shape; the loop it replaces, what a cell is, the first one made, the axes and range."""
    low, high = (book.fmt(f"scores_legend.{end}", v, decimals_cut_by_digits(r.scores))
                 for end, v in zip(("low", "high"), r.scores_range))
    dot = phrase(NARRATION["scores.dot.one" if r.d_k == 1 else "scores.dot"], book.index("d_k", r.d_k))
    rows, cols = sizes(book, "scores", r.scores)
    says = NARRATION["scores.grid.flat" if r.scores_flat else "scores.grid"]      # one colour, or a range
    grid = phrase(says, **named(says, dict(rows=rows, cols=cols, score=low, low=low, high=high)))
    first = phrase(NARRATION["scores.first"], query=query, key=key,
                   score=book.fmt("scores[0][0]", r.scores[0, 0], decimals_cut_by_digits(r.scores)))
    shape = "square" if r.scores.shape[0] == r.scores.shape[1] else "oblong"
    return said(phrase(SQUARE[shape]), join(phrase(NARRATION["scores.loop"]), dot, first, grid))


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


def say_scaled(scene, r, made: Derivation) -> None:
    """Step 3, while the first scaled score is made: the division (its score, divisor and result as the
    band shows them), or that dividing by one changes nothing."""
    score, scale, scaled = (scene.book.fmt(t.label, t.value, t.decimals)
                            for t in (*made.terms(), made.result))
    scene.narrate(NARRATION["scale.first." + ("unit" if r.d_k == 1 else "wide")], score=score, scale=scale,
                  scaled=scaled)
