"""Builders for the score-grid clip: its role grids and projection blocks (kit/boards.py: named grids,
W above its product), the variance table and the numbers made in front of the viewer (pages:
scenes/kit/page.py; legends and bars: scenes/kit/blocks.py). Numbers only through the NumberBook."""
from __future__ import annotations

from manim import DOWN, RIGHT, UP, Mobject, VGroup

from scenes.kit import boards, derive, expressions as ex, style
from scenes.kit.anim import Appear
from scenes.kit.derive import Band
from scenes.kit.expressions import Derivation, Term
from scenes.kit.grids import MatrixGrid
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area
from scenes.kit.style import decimals_cut_by_digits

MIN_SCALE = 0.6      # keeps every number above the contract's least height
FULL_SCALE = 0.8     # below this, long column labels are abbreviated (the rows keep them whole)
WIDTH = 13.2         # the width a drawing may take
AREA = Area(WIDTH)


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
