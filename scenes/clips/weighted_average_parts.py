"""Builders for the weighted-average clip: tables whose rows are the input positions,
horizontal weight bars, step 6's board (the engine chooses its arrangement), the narration.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Line, Mobject, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.arrays import colour_grid
from scenes.kit.blocks import proxy
from scenes.kit.grids import MatrixGrid
from scenes.kit.layout import content_height, content_width
from scenes.kit.numbers import NumberBook
from scenes.kit.page import Area, Page, plan

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

    def rows_box(self, i: int) -> VGroup:
        return VGroup(*[g.boxes[i][0] for g in self.grids])


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
    options = [[Page((), lambda s: row(sizes))], [Page((), lambda s: stacked(sizes))],
               [Page((), lambda s: row(colours))]]
    area = Area(content_width(), height=content_height() - 2 * STACK_ROOM)
    chosen = plan(book, options, area, [FULL_SCALE, FULL_SCALE, 0.0])[0]
    if chosen is options[2][0]:
        return area.place(row(colours))
    grids = [MatrixGrid(book, name, w, 4, heat="weights")
             for name, w in zip(("softmax_rows", "softmax_cols"), weights)]
    return area.place((row if chosen is options[0][0] else stacked)(grids))


# ---------------------------------------------------------------- narration (issue 17)
# What the lecturer says after each step's caption, keyed by the step and the case the data are in
# (the book's wording where it has one): each a tuple of sentences, every one a message id of its
# own, their named slots ({rows}, {query}) filled by the NumberBook. "plane" follows the mix wherever
# the plane is drawn; "matrix" is followed by one of its two endings.
PURPOSE = ("注意力要做的是：当前位置提出查询，给各个位置打分，再把分数变成权重，按权重汇总这些位置的信息。"
           "先看一个不含可训练投影的点积例子。")
DIVIDE = "最直接的想法是把每个分数除以分数之和。"
GENERAL = "所以这种做法无法普遍得到有效的概率权重。"
SOFTMAX = ("softmax 可以完成这一步：先取 e 的分数次方，再除以这些指数的总和。"
           "e 的次方总是正数，所以每项权重非负，除以总和后加起来为一。")
MIX = "把每个输入向量乘上自己的权重，再把这些向量相加，就得到 {z}。"
NARRATION = {
    "inputs.plane": (PURPOSE, "{rows}个输入向量既是平面上的箭头，也是矩阵 X 的行；暂时选 {query} 作为查询。"),
    "inputs.table": (PURPOSE, "{rows}个输入向量是矩阵 X 的行，每个有{cols}个分量，"
                              "这里不画平面；暂时选 {query} 作为查询。"),
    "dots": ("分数衡量查询与每个位置有多匹配，这里用点积："
             "左表每一行是 {query} 与 xⱼ 的逐分量乘积，一行加起来就是分数 sⱼ。"
             "查询与自己的点积是它长度的平方，此例为 {self_score}，不会是负数；与别的向量的点积却可正可负。",),
    "divide.works": (DIVIDE, "此例分数都不为负，s / Σs 非负、和为一，确实能用。"
                     "可分数可能为负，总和也可能为零：比如最右列减去均值后的分数，和为零，无从相除。", GENERAL),
    "divide.zero": (DIVIDE, "此例分数之和恰为 {total}，除以零没有定义，一个权重也得不到。"
                    "即使总和不为零，分数也可能为负，相除后会出现负的权重。", GENERAL),
    "divide.negative": (DIVIDE, "此例有的分数为负，s / Σs 出现了负数，表中标成红色，负数不能当作概率。"
                        "分数之和也可能恰为零，那时连除法都无从谈起。", GENERAL),
    "softmax.plain": (SOFTMAX, "分数越大权重越大，此例最大的权重约为 {weight}，右边的柱子画出每个权重。"),
    "softmax.equal": (SOFTMAX, "此例各项权重全相同，每项约为 {weight}，右边的柱子一样长。"),
    "softmax.stable": ("softmax 取 e 的分数次方，再除以总和。"
                       "此例分数较大；分数一大，e 的次方就大得难读，甚至溢出，所以先减去最大分数 m，这里 m = {m}；"
                       "分子分母同乘一个常数，权重不变。最大的一项于是恰为一，每项非负，总和为一。",),
    "mix.mixed": (MIX, "它按权重混合了输入向量的信息，作为查询位置的新表示；注意力并没有只从中挑出一个向量。"),
    "mix.picked": (MIX, "分数相差悬殊，e 的次方放大了差距，几乎全部权重都给了 {pick}，其余接近零，"
                   "{z} 几乎就是 {pick}；一般情况下，结果会混合多个输入。"),
    "mix.equal": (MIX, "此例权重全相等，{z} 就是{rows}个输入向量的普通平均：各分量相加，再除以向量的个数。"),
    "plane": ("平面上，加权后的箭头首尾相接，终点就是 {z}。",),
    "matrix": ("循环换成矩阵乘法：scores = X Xᵀ，{rows}行{rows}列，行是提出查询的位置，列是提供信息的位置。"
               "沿最后一维 dim={dim_last} 做 softmax，每个查询的权重之和才为一。",),
    "matrix.cols_one": ("改成 dim={dim_rows} 不报错，归一化的却是每一列；此例行和碰巧为一，一般并不保证。",),
    "matrix.cols": ("改成 dim={dim_rows} 不报错，归一化的却是每一列，各行的和不再都是一。",),
}
