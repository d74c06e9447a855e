"""Builders for the score-grid clip: named grids with shape tags, a heat legend,
column-aligned number rows and grouped bars (pages: scenes/kit/page.py). Numbers only
through the NumberBook."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Mobject, Rectangle, VGroup

from scenes.kit import derive, expressions as ex, style
from scenes.kit.anim import Appear
from scenes.kit.derive import Band
from scenes.kit.expressions import Derivation, Term
from scenes.kit.grids import MatrixGrid, heat_color
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area, Page

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
    return [book.abbreviated(name, SHORT_NAME) for name in names]


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


# ---------------------------------------------------------------- pages
def falk(x: VGroup, blocks: Sequence[VGroup], s: float = 1.0) -> VGroup:
    """X to the left of the products, each W above its product, X's rows beside theirs."""
    row = VGroup(*blocks).arrange(RIGHT, buff=0.45 * s, aligned_edge=UP)
    VGroup(x, row).arrange(RIGHT, buff=0.45 * s)
    x.shift(UP * (blocks[-1].grid.box_group.get_y() - x.grid.box_group.get_y()))
    return VGroup(x, *blocks)


def shape_rule(book: NumberBook, r) -> VGroup:
    """[T, D_in] . [D_in, d_k] -> [T, d_k], then the same with this input's sizes."""
    x, w, q = (book.coords(f"rule.{n}", a.shape) for n, a in (("x", r.x), ("wq", r.wq), ("q", r.q)))
    return VGroup(book.math(r"[T, D_{in}] \cdot [D_{in}, d_k] \to [T, d_k]", size=34),
                  book.text("：{x} · {w} → {q}", x=x, w=w, q=q, size=style.BODY_SIZE)).arrange(RIGHT, buff=0.2)

def projection_block(book: NumberBook, values, w, name, w_name, color) -> VGroup:
    """W above its product, columns over columns (the product sits under W, beside X)."""
    w_grid = role_grid(book, f"w{name.lower()}", w, color, w_name, side=UP)
    out = role_grid(book, name.lower(), values, color, name)
    out.product = True
    same_columns(w_grid, out)
    block = VGroup(w_grid, out).arrange(DOWN, buff=0.3)
    block.w, block.out, block.grid, block.name, block.w_name = w_grid, out, out.grid, name, w_name
    return block


# ---------------------------------------------------------------- the first cell, from a row of Q and of K
def first_cell(book: NumberBook, r, grid: MatrixGrid) -> Derivation:
    """S₀₀ = Σ_r q₀ᵣ·k₀ᵣ: the products of Q's and K's first rows (each at the precision the grid
    rule gives that number alone; Q and K are not on this page) into the grid's first cell."""
    q, k = ([Term(f"{n}[0][{c}]", float(a[0, c]), grid_decimals([[a[0, c]]])) for c in range(r.d_k)]
            for n, a in (("q", r.q), ("k", r.k)))
    return ex.dot(grid, (0, 0), ex.cell(book, grid, 0, 0), list(zip(q, k)), ex.room_for(grid))


def first_scaled(book: NumberBook, r, grid: MatrixGrid, root: Mobject) -> Derivation:
    """The first scaled score = S₀₀ / √dₖ: the score at the precision its value alone takes (QKᵀ is not
    on this page), √dₖ a constant coming from the line that gives it."""
    score = Term("scores[0][0]", float(r.scores[0, 0]), grid_decimals([[r.scores[0, 0]]]))
    return ex.divide(grid, (0, 0), ex.cell(book, grid, 0, 0), score,
                     Term("scale", float(r.scale), 4, at=root, source=False))


def make_scaled(scene, mob: VGroup, left: VGroup, made: Derivation, band: Band) -> bool:
    """The scaled grid (mob: its factor, the band where this page has it, the grid with its tag and
    legend): its frame, its first cell made from the first score in the page's band, else by the
    caption line, else left out (the record says so), then the rest at once. Whether it was made."""
    shown = VGroup(mob, *([left] if any(m in scene.mobjects for m in left.get_family()) else []))
    room = band if band in mob.submobjects else derive.strip(scene, shown, [made])
    shell, rest = derive.split(scene.book, made.grid, [made.cell] if room is not None else [])
    ((_, tag), bar) = mob[-1]
    scene.play(Appear(shell), Appear(tag), Appear(bar))
    if room is None:
        derive.skip(scene.book, made, "no room")
    else:
        derive.derive(scene, made, room)
    scene.play(Appear(rest), run_time=0.6)
    return room is not None


def lit_from(first: Derivation, grid: MatrixGrid) -> Derivation:
    """The first cell's sources come from its row's name (the query) and its column's (the key)."""
    for t in first.terms():
        t.at = grid.row_labels[0] if t.label.startswith("q") else grid.col_labels[0]
    return first


def with_band(caption, labels, board, head, band, full: float, least: float) -> tuple[list, list]:
    """(options, needs) for plan: per set of column labels (whole first), the grid under the formula
    and the band, under the band alone, under the formula alone, alone; each page knows its parts."""
    options, needs = [], []
    for n, cols in enumerate(labels):
        for parts in ([head, band], [band], [head], []):
            page = Page(caption, lambda s, c=cols, p=parts: board(c, p, s))
            page.parts = parts
            options.append([page])
            needs.append(full if n + 1 < len(labels) else least)
    return options, needs


def scaling_options(one_says, table_says, grid_says, left, right, labels, made) -> tuple[list, list, Band]:
    """(options, needs, band) for step 3's plan: the table beside the scaled grid on one board, else
    the table, then the grid; whole column labels first; each with the band for `made`, then without."""
    band = Band([made])
    one = [[Page(one_says, lambda s, c=c, p=p: VGroup(left, right(c, s, p)).arrange(RIGHT, buff=0.7 * s))]
           for c in labels for p in ([band], [])]
    two = [[Page(table_says, lambda s: VGroup(left), most=1.3),
            Page(grid_says, lambda s, c=c, p=p: VGroup(right(c, s, p)))]
           for c in labels for p in ([band], [])]
    return one + two, [FULL_SCALE] * (len(one) + len(two) - 1) + [MIN_SCALE], band
