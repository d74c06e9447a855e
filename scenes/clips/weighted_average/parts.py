"""Builders for the weighted-average clip: its tables (kit/draw/columns.Columns: rows are the input
positions), step 6's boards (kit/compose/boards.row_stacked_or_apart chooses their arrangement), and the numbers
made in front of the viewer (a score, a weight, a component of z: scenes/kit/motion/derive.py).

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import DOWN, RIGHT, Mobject, VGroup

from scenes.kit.compose import boards
from scenes.kit.motion import expressions as ex
from scenes.kit.text import style
from scenes.kit.draw.arrays import colour_grid
from scenes.kit.page.blocks import proxy
from scenes.kit.draw.columns import Columns
from scenes.kit.motion.expressions import Derivation, Term
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import content_height, content_width
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area
from scenes.kit.text.style import decimals_cut_to_width

FULL_SCALE = 0.7      # step 6 shows every softmax number while its grids fit at this scale
COMPACT_SCALE = 0.62  # else the weights in colour only, cells as wide as keep the scores at this scale
HEAT_W, HEAT_MIN = 0.3, 0.12   # a weights cell drawn in colour only
STACK_ROOM = 0.15     # step 6 keeps this far from the title and caption bands

# What each drawn block is: its name's colour (name tag, shape tag, header) and its frames' (the
# entries' cells), or one role for both; read by tests/support/contract.block_problems from what is drawn.
BLOCKS = {"x": ("text", "grid"), "products": ("text", "grid"), "scores": ("text", "grid"), "ratios": ("text", "grid"),
          "shifted": ("text", "grid"), "exps": ("text", "grid"), "parts": ("text", "grid"), "output": ("text", "grid"),
          "scores_sum": ("text", "grid"), "ratios_sum": ("text", "grid"), "shifted_sum": ("text", "grid"),
          "exps_sum": ("text", "grid"), "weights_sum": ("text", "grid"), "weights": ("text", "heat"),
          "gram": ("text", "heat"), "softmax_rows": ("text", "heat"), "softmax_cols": ("text", "heat"),
          "softmax_rows_sums": ("text", "grid"), "softmax_cols_sums": ("text", "grid"),
          "scores_shifted": ("text", "grid"), "exps_shifted": ("text", "grid"), "exps_shifted_sum": ("text", "grid")}


def divide_table(book: NumberBook, r: Any, names: Sequence, colors: Sequence[str], head: Any) -> Columns:
    """Step 3's table: s_j and Σ, s / Σs where Σ is not zero (negative shares in red), and where it
    works, the counter-example s − mean(s)."""
    d = decimals_cut_to_width(r.scores)
    columns, sums = [("scores", r.scores, d, head(r"s_j"), None)], [("scores_sum", r.scores_sum, d)]
    if r.ratios is not None:
        d = decimals_cut_to_width(r.ratios)
        columns.append(("ratios", r.ratios, d, head(r"s_j \,/ \textstyle\sum_k s_k"), None))
        sums.append(("ratios_sum", r.ratios_sum, d))
    if r.case == "works":
        d = decimals_cut_to_width(r.shifted)
        columns.append(("shifted", r.shifted, d, head(r"s_j - \mathrm{mean}(s)"), None))
        sums.append(("shifted_sum", r.shifted_sum, 0))
    table = Columns(book, columns, names, colors, sums, sigma(book))
    for j in r.negative:
        table.grids[1].entry(j, 0).set_color(style.MASK)
    return table


def softmax_table(book: NumberBook, r: Any, names: Sequence, colors: Sequence[str], head: Any) -> Columns:
    """Step 4's table: s_j (and s_j − m), e^s with its sum, the weights with theirs."""
    exp_name = "exps_shifted" if r.stable else "exps"
    columns = [("scores", r.scores, decimals_cut_to_width(r.scores), head(r"s_j"), None)]
    if r.stable:
        d = decimals_cut_to_width(r.scores_shifted)
        columns.append(("scores_shifted", r.scores_shifted, d, head(r"s_j - m"), None))
    columns += [(exp_name, r.exps, 4, head(r"e^{s_j - m}" if r.stable else r"e^{s_j}"), None),
                ("weights", r.weights, 4, head(r"\alpha_j"), "weights")]
    sums = [None] * (len(columns) - 2) + [(f"{exp_name}_sum", r.exps_sum, 4),
                                          ("weights_sum", r.weights_sum, 4)]
    return Columns(book, columns, names, colors, sums, sigma(book))


def sigma(book: NumberBook) -> Mobject:
    """The Σ that names a table's row of sums."""
    return book.label("Σ", color=style.ACCENT, size=style.LABEL_SIZE)


def softmax_board(book: NumberBook, gram: MatrixGrid, tags: Sequence[Mobject], sums: Sequence[MatrixGrid],
                  weights: Sequence[Any]) -> tuple[Area, list[VGroup]]:
    """Step 6's boards and their area: X Xᵀ, the two softmaxes and their row sums (each under its tag),
    in a row while every number reads at FULL_SCALE; else X Xᵀ above the softmaxes; else in a row with the
    softmaxes in colour only (cells as wide as keep COMPACT_SCALE), row sums in numbers; else X Xᵀ alone,
    the softmaxes on the next page. The softmax grids are drawn once the board is chosen (boxes first)."""
    def blocks(grids: Sequence[Mobject]) -> list[VGroup]:
        beside = [VGroup(g, col).arrange(RIGHT, buff=0.15, aligned_edge=DOWN) for g, col in zip(grids, sums)]
        return [VGroup(tag, block).arrange(DOWN, buff=0.2) for tag, block in zip(tags, [gram, *beside])]

    def colours(beside: float) -> list[Mobject]:    # the softmaxes in colour only, beside X Xᵀ or not
        sums_w = sum(style.CELL_PAD + col.box_group.width for col in sums)
        room = content_width() / COMPACT_SCALE - beside - sums_w - 1.0     # for the two softmaxes' cells
        return [colour_grid(w, float(min(max(room / (2 * len(w)), HEAT_MIN), HEAT_W))) for w in weights]

    def grids() -> list[MatrixGrid]:
        return [MatrixGrid(book, name, w, 4, heat="weights")
                for name, w in zip(("softmax_rows", "softmax_cols"), weights)]
    area = Area(content_width(), height=content_height() - 2 * STACK_ROOM)
    return area, boards.row_stacked_or_apart(book, area, blocks, [proxy(w, 4, head=False) for w in weights],
                                             grids, colours(gram.width), FULL_SCALE, colours(0.0))


# ---------------------------------------------------------------- numbers made in front of the viewer
def spoken(book: NumberBook, t: Term) -> Shown:
    """A number of an expression, for the narration (the same record as drawn)."""
    return book.fmt(t.label, t.value, t.decimals)


def alone(label: str, value: float, at: Mobject) -> Term:
    """A number whose grid is not on this board: at the precision its value alone takes, coming from `at`."""
    return Term(label, float(value), decimals_cut_to_width([value]), at=at)


def first_score(book: NumberBook, r: Any, products: MatrixGrid, scores: MatrixGrid,
                width: float) -> Derivation:
    """s₀ = x_q · x₀: the query's and the first key's components, from the names of their rows (from X's
    cells where the step keeps X: expressions.from_cells)."""
    names, q = products.row_labels, r.query
    pairs = [(alone(f"x[{q}][{c}]", r.x[q, c], names[q]), alone(f"x[0][{c}]", r.x[0, c], names[0]))
             for c in range(r.x.shape[1])]
    return ex.dot(scores, (0, 0), ex.cell(book, scores, 0, 0), pairs, max(width, ex.LEAST_ROOM))


def first_weight(book: NumberBook, table: Columns) -> list[Derivation]:
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
        made = ex.weighted(total, (0, 0), made.result, [pairs[j] for j in r.by_weight], width)
    return made
