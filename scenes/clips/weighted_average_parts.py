"""Builders for the weighted-average clip: tables whose rows are the input positions,
horizontal weight bars, step 6's board (the engine chooses its arrangement), and the numbers
made in front of the viewer (a score, a weight, a component of z: scenes/kit/derive.py).

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Line, Mobject, Rectangle, VGroup

from scenes.kit import derive, expressions as ex, style
from scenes.kit.arrays import colour_grid
from scenes.kit.blocks import proxy
from scenes.kit.derive import Band
from scenes.kit.expressions import Derivation, Term
from scenes.kit.grids import MatrixGrid
from scenes.kit.layout import content_center, content_height, content_width, fit
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area, drawn

GAP = 0.22            # between columns of numbers
HEAD_GAP = 0.4        # between the heads of a table's columns
DECIMAL_STEPS = (0, 1, 2, 4)
FULL_SCALE = 0.7      # step 6 shows every softmax number while its grids fit at this scale
COMPACT_SCALE = 0.62  # else the weights in colour only, cells as wide as keep the scores at this scale
HEAT_W, HEAT_MIN = 0.3, 0.12   # a weights cell drawn in colour only
STACK_ROOM = 0.15     # step 6 keeps this far from the title and caption bands


def places(values: Any, widest: int = 7) -> int:
    """Decimals for a grid: the fewest that show every value exactly (0, 1, 2 or else 4),
    cut while the widest drawn value is longer than `widest` characters (five decimals cut to none).
    Where some value is longer at every cut (a tiny one in the scientific form), the cells are that
    wide anyway: the most decimals that fit in them."""
    arr = np.asarray(values, float).ravel()
    arr = arr[np.isfinite(arr)]
    first = style.decimals_for(arr)
    if not arr.size:
        return first
    options = [d for d in DECIMAL_STEPS if d <= first][::-1]
    longest = {d: max(len(style.format_number(float(v), d)) for v in arr) for d in options}
    limit = max(widest, min(longest.values()))
    return next(d for d in options if longest[d] <= limit)


class Table(VGroup):
    """Columns of one number per position, side by side, sharing rows; a header above each
    column and, optionally, a Σ row below. columns: (name, values, decimals, header, heat)."""

    def __init__(self, book, columns: Sequence[tuple], row_labels: Sequence[str],
                 row_colors: Sequence[str], sums: Sequence[tuple | None] | None = None,
                 sum_label: Mobject | None = None, sum_color: str = style.ACCENT) -> None:
        super().__init__()
        self.grids, self.sums, x = [], [], 0.0
        for k, (name, values, decimals, header, heat) in enumerate(columns):
            grid = MatrixGrid(book, name, np.asarray(values, float)[:, None], decimals, heat=heat,
                              row_labels=None if k else row_labels)
            wide = header.width + HEAD_GAP > grid.box_group.width + GAP    # the head sets the spacing
            width = header.width + HEAD_GAP if wide else grid.box_group.width + GAP
            grid.shift(np.array([x + width / 2, 0, 0]) - grid.box_group.get_top())   # cells, not names
            header.next_to(grid.box_group, UP, buff=0.15)
            self.grids.append(grid)
            self.add(grid, header)
            x += width
        for label, color in zip(self.grids[0].row_labels, row_colors):
            label.set_color(color)
        for k, spec in enumerate(sums or []):
            if spec is None:
                continue
            name, value, decimals = spec
            cell = MatrixGrid(book, name, [[value]], decimals)
            cell.entries[0][0].set_color(sum_color)
            cell.next_to(self.grids[k].box_group, DOWN, buff=0.12)
            self.sums.append(cell)
            self.add(cell)
        if self.sums and sum_label is not None:
            self.add(sum_label.next_to(self.sums[0], LEFT, buff=0.15).align_to(
                self.grids[0].row_labels, RIGHT))



def divide_table(book: NumberBook, r: Any, names: Sequence, colors: Sequence[str], head: Any) -> Table:
    """Step 3's table: s_j and Σ, s / Σs where Σ is not zero (negative shares in red), and where it
    works, the counter-example s − mean(s)."""
    d = places(r.scores)
    columns, sums = [("scores", r.scores, d, head(r"s_j"), None)], [("scores_sum", r.scores_sum, d)]
    if r.ratios is not None:
        columns.append(("ratios", r.ratios, places(r.ratios), head(r"s_j \,/ \textstyle\sum_k s_k"), None))
        sums.append(("ratios_sum", r.ratios_sum, places(r.ratios)))
    if r.case == "works":
        columns.append(("shifted", r.shifted, places(r.shifted), head(r"s_j - \mathrm{mean}(s)"), None))
        sums.append(("shifted_sum", r.shifted_sum, 0))
    table = Table(book, columns, names, colors, sums, sigma(book))
    for j, v in enumerate(r.ratios if r.ratios is not None else ()):
        if v < 0:
            table.grids[1].entry(j, 0).set_color(style.MASK)
    return table


def softmax_table(book: NumberBook, r: Any, names: Sequence, colors: Sequence[str], head: Any) -> Table:
    """Step 4's table: s_j (and s_j − m), e^s with its sum, the weights with theirs."""
    exp_name = "exps_shifted" if r.stable else "exps"
    columns = [("scores", r.scores, places(r.scores), head(r"s_j"), None)]
    if r.stable:
        shifted = r.scores - r.shift
        columns.append(("scores_shifted", shifted, places(shifted), head(r"s_j - m"), None))
    columns += [(exp_name, r.exps, 4, head(r"e^{s_j - m}" if r.stable else r"e^{s_j}"), None),
                ("weights", r.weights, 4, head(r"\alpha_j"), "weights")]
    sums = [None] * (len(columns) - 2) + [(f"{exp_name}_sum", r.exps_sum, 4),
                                          ("weights_sum", r.weights_sum, 4)]
    return Table(book, columns, names, colors, sums, sigma(book))


def sigma(book: NumberBook) -> Mobject:
    """The Σ that names a table's row of sums."""
    return book.label("Σ", color=style.ACCENT, size=style.LABEL_SIZE)


def weight_bars(table: Table, weights: Sequence[float], colors: Sequence[str],
                length: float = 2.2) -> VGroup:
    """A horizontal bar per row, right of the table, as long as the row's weight."""
    bars = VGroup()
    left = max(g.box_group.get_right()[0] for g in table.grids) + GAP * 2
    for i, w in enumerate(weights):
        row = table.grids[-1].boxes[i][0]
        bar = Rectangle(width=max(float(w), 0.0) * length + 1e-3, height=row.height * 0.6,
                        fill_color=colors[i % len(colors)], fill_opacity=0.85, stroke_width=0)
        bars.add(bar.move_to([left, row.get_center()[1], 0], aligned_edge=LEFT))
    column = table.grids[-1].box_group
    axis = Line([left, column.get_top()[1], 0], [left, column.get_bottom()[1], 0],
                stroke_color=style.GRID_LINE, stroke_width=2)
    return VGroup(axis, bars)


def softmax_board(book: NumberBook, gram: MatrixGrid, tags: Sequence[Mobject], sums: Sequence[MatrixGrid],
                  weights: Sequence[np.ndarray]) -> VGroup:
    """Step 6's board, placed: X Xᵀ, the two softmaxes and their row sums (each under its tag),
    in a row while every number reads at FULL_SCALE; else X Xᵀ above the two softmaxes; else in
    a row with the softmaxes in colour only (cells as wide as keep COMPACT_SCALE), their row sums
    still in numbers. The softmax grids are drawn once the board is chosen (boxes their size first)."""
    def blocks(grids: Sequence[Mobject]) -> list[VGroup]:
        beside = [VGroup(g, col).arrange(RIGHT, buff=0.15, aligned_edge=DOWN) for g, col in zip(grids, sums)]
        return [VGroup(tag, block).arrange(DOWN, buff=0.2) for tag, block in zip(tags, [gram, *beside])]

    def row(grids: Sequence[Mobject]) -> VGroup:
        return VGroup(*blocks(grids)).arrange(RIGHT, buff=0.5, aligned_edge=DOWN)

    def stacked(grids: Sequence[Mobject]) -> VGroup:
        first, *pair = blocks(grids)
        VGroup(first, VGroup(*pair).arrange(RIGHT, buff=0.8, aligned_edge=DOWN)).arrange(DOWN, buff=0.3)
        return VGroup(first, *pair)

    sizes = [proxy(w, 4, head=False) for w in weights]
    sums_w = sum(style.CELL_PAD + col.box_group.width for col in sums)
    room = content_width() / COMPACT_SCALE - gram.width - sums_w - 1.0     # for the two softmaxes' cells
    colours = [colour_grid(w, float(np.clip(room / (2 * len(w)), HEAT_MIN, HEAT_W))) for w in weights]

    def grids() -> list[MatrixGrid]:
        return [MatrixGrid(book, name, w, 4, heat="weights")
                for name, w in zip(("softmax_rows", "softmax_cols"), weights)]
    area = Area(content_width(), height=content_height() - 2 * STACK_ROOM)
    return drawn(book, area, [(lambda: row(sizes), lambda: row(grids())), (lambda: stacked(sizes),
                              lambda: stacked(grids())), (lambda: row(colours), lambda: row(colours))],
                 [FULL_SCALE, FULL_SCALE, 0.0])


# ---------------------------------------------------------------- numbers made in front of the viewer
def reserve(book: NumberBook, group: VGroup, band: Band, width: float | None = None,
            buff: float = 0.4) -> Band | None:
    """Put `band` under the group's pieces when, fitted into width x the content height with it,
    every number still keeps the contract; else None and the group as it was."""
    area = Area(content_width() if width is None else width, height=content_height())
    group.add(band)
    return derive.on_page(book, group, band, area, lambda: group.arrange(DOWN, buff=buff))


def laid_out(scene: Any, group: VGroup, made: Sequence[Derivation]) -> Band | None:
    """Room for `made`: a band under the group where it keeps the contract (the group then fitted in
    the content area), else room by the caption line, else none."""
    band = reserve(scene.book, group, Band(made))
    return derive.room(scene, fit(group).move_to(content_center()), made, band)


def spoken(book: NumberBook, t: Term) -> Shown:
    """A number of an expression, for the narration (the same record as drawn)."""
    return book.fmt(t.label, t.value, t.decimals)


def alone(label: str, value: float, at: Mobject) -> Term:
    """A number whose grid is not on this board: at the precision its value alone takes, coming from `at`."""
    return Term(label, float(value), places([value]), at=at)


def first_score(book: NumberBook, r: Any, products: MatrixGrid, scores: MatrixGrid,
                width: float) -> Derivation:
    """s₀ = x_q · x₀: the query's and the first key's components, from the names of their rows."""
    names, q = products.row_labels, r.query
    pairs = [(alone(f"x[{q}][{c}]", r.x[q, c], names[q]), alone(f"x[0][{c}]", r.x[0, c], names[0]))
             for c in range(r.x.shape[1])]
    return ex.dot(scores, (0, 0), ex.cell(book, scores, 0, 0), pairs, max(width, ex.LEAST_ROOM))


def first_weight(book: NumberBook, table: Table) -> list[Derivation]:
    """e^{s₀} (or e^{s₀ − m}) from its score, then α₀ = e^{s₀} / Σ from the e^s column and its sum."""
    s, e, w = table.grids[-3], table.grids[-2], table.grids[-1]
    exp = Derivation(e, (0, 0), "exp", ["exp(", ex.cell(book, s, 0, 0), ")", "=", ex.cell(book, e, 0, 0)])
    return [exp, ex.divide(w, (0, 0), ex.cell(book, w, 0, 0), ex.cell(book, e, 0, 0),
                           ex.cell(book, table.sums[0], 0, 0))]


def first_mix(book: NumberBook, r: Any, parts: MatrixGrid, total: MatrixGrid, width: float) -> Derivation:
    """z's first component = Σⱼ αⱼ · xⱼ[0], each pair coming from its row of α · xⱼ; where the sum is
    too wide to show whole, the heaviest weights first, so that the terms left out weigh least."""
    pairs = [(Term(f"weights[{j}][0]", float(r.weights[j]), 4, at=parts.row_labels[j]),
              alone(f"x[{j}][0]", r.x[j, 0], parts.row_labels[j])) for j in range(len(r.x))]
    made = ex.weighted(total, (0, 0), ex.cell(book, total, 0, 0), pairs, width)
    if made.shorter:
        heavy = sorted(range(len(pairs)), key=lambda j: -r.weights[j])
        made = ex.weighted(total, (0, 0), made.result, [pairs[j] for j in heavy], width)
    return made
