"""Builders for the weighted-average clip: tables whose rows are the input positions,
horizontal weight bars, the plane with arrows and their tags placed clear of each other.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Arrow, Dot, Line, Mobject, NumberPlane, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.numbers import NAMED
from scenes.kit.glyphs import NumberText
from scenes.kit.grids import MatrixGrid, heat_color
from scenes.kit.layout import content_height, content_width

GAP = 0.22            # between columns of numbers
HEAD_GAP = 0.4        # between the heads of a table's columns
PLANE_HALF = 2.6      # the plane's half side, in scene units
MARGIN = 1.15        # the plane reaches this much past the longest arrow
SHORTEST = 0.04       # an arrow shorter than this is drawn as a dot
DECIMAL_STEPS = (0, 1, 2, 4)
FULL_SCALE = 0.7      # step 6 shows every softmax number while its grids fit at this scale
COMPACT_SCALE = 0.62  # else the weights in colour only, cells as wide as keep the scores at this scale
HEAT_W, HEAT_MIN = 0.3, 0.12   # a weights cell drawn in colour only
STACK_ROOM = 0.15     # stacked grids keep this far from the title and caption bands


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


def char_width(size: float = style.NUMBER_SIZE) -> float:
    """The advance of one character of the (monospaced) number font."""
    zero = style.format_number(0, 0)
    return NumberText(zero * 2, size=size).width / 2


def number_chars(values: Any, decimals: int) -> int:
    """The longest drawn text among the values."""
    return max(len(style.format_number(float(v), decimals)) for v in np.ravel(values))


def cell_width(values: Any, decimals: int) -> float:
    """The width a MatrixGrid gives each cell of these values."""
    return max(number_chars(values, decimals) * char_width() + style.CELL_PAD, style.MIN_CELL_W)


def label_rows(book, grid: MatrixGrid, labels: Sequence[str], colors: Sequence[str]) -> VGroup:
    """Row labels left of the grid's rows (texts the book made, or words)."""
    for i, text in enumerate(labels):
        mob = book.label(text, color=colors[i % len(colors)], size=style.LABEL_SIZE)
        grid.row_labels.add(mob.next_to(grid.boxes[i][0], LEFT, buff=0.15))
    return grid.row_labels


def label_cols(book, grid: MatrixGrid, labels: Sequence[str], color: str = style.TEXT) -> VGroup:
    for j, text in enumerate(labels):
        mob = book.label(text, color=color, size=style.LABEL_SIZE)
        grid.col_labels.add(mob.next_to(grid.boxes[0][j], UP, buff=0.15))
    return grid.col_labels


class Table(VGroup):
    """Columns of one number per position, side by side, sharing rows; a header above each
    column and, optionally, a Σ row below. columns: (name, values, decimals, header, heat)."""

    def __init__(self, book, columns: Sequence[tuple], row_labels: Sequence[str],
                 row_colors: Sequence[str], sums: Sequence[tuple | None] | None = None,
                 sum_label: Mobject | None = None, sum_color: str = style.ACCENT) -> None:
        super().__init__()
        self.grids, self.sums, x = [], [], 0.0
        for k, (name, values, decimals, header, heat) in enumerate(columns):
            grid = MatrixGrid(book, name, np.asarray(values, float)[:, None], decimals, heat=heat)
            wide = header.width + HEAD_GAP > grid.box_group.width + GAP    # the head sets the spacing
            width = header.width + HEAD_GAP if wide else grid.box_group.width + GAP
            grid.move_to([x + width / 2, 0, 0], aligned_edge=UP)
            header.next_to(grid.box_group, UP, buff=0.15)
            self.grids.append(grid)
            self.add(grid, header)
            x += width
        label_rows(book, self.grids[0], row_labels, row_colors)
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


def arrangement(gram: Mobject, weights: np.ndarray, sums: np.ndarray) -> tuple[bool, float | None]:
    """How step 6 fits: (stacked, heat cell width). The scores grid and the two softmax grids
    in a row while every number reads at FULL_SCALE; else the scores above the two softmax
    grids; else in a row again with the softmax grids in colour only (cells as wide as keep
    COMPACT_SCALE), their row sums still in numbers."""
    n = len(weights)
    sum_w = style.CELL_PAD + cell_width(sums, 4)
    both = 2 * (n * cell_width(weights, 4) + sum_w)
    head = style.MIN_CELL_H          # a header line above a grid
    if min(content_width() / (gram.width + both + 1.0), content_height() / (gram.height + head)) >= FULL_SCALE:
        return False, None
    tall = gram.height + (n + 1) * style.MIN_CELL_H + 2 * head + 0.3
    if min(content_width() / max(gram.width, both + 0.8), (content_height() - 2 * STACK_ROOM) / tall) >= FULL_SCALE:
        return True, None
    room = content_width() / COMPACT_SCALE - gram.width - 2 * sum_w - 1.0
    return False, float(np.clip(room / (2 * n), HEAT_MIN, HEAT_W))


def heat_cells(values: Any, width: float, height: float) -> VGroup:
    """A weights grid in colour only (0..1 heat scale): the numbers abbreviated."""
    values = np.atleast_2d(np.asarray(values, float))
    cells = VGroup()
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            cells.add(Rectangle(width=width, height=height, stroke_color=style.GRID_LINE, stroke_width=0.5,
                                fill_color=heat_color(float(v)), fill_opacity=0.9).move_to([j * width, -i * height, 0]))
    return cells


# ---------------------------------------------------------------- the plane
def plane_for(points: np.ndarray) -> NumberPlane:
    """A plane just big enough for the points, without tick numbers (any scale reads)."""
    reach = float(np.abs(points).max()) if np.size(points) else 0.0
    reach = reach if reach > 0 else 1.0
    span, lines = reach * MARGIN, reach / 2          # grid lines at half and all of the reach
    unit = PLANE_HALF / span
    return NumberPlane(x_range=[-span, span, lines], y_range=[-span, span, lines],
                       x_length=2 * span * unit, y_length=2 * span * unit,
                       background_line_style={"stroke_color": style.GRID_LINE, "stroke_opacity": 0.5})


def arrow(plane: NumberPlane, start: Sequence[float], end: Sequence[float], color: str) -> Mobject:
    """An arrow from start to end, or a dot where it would be too short to see."""
    a, b = plane.c2p(*start), plane.c2p(*end)
    if np.linalg.norm(b - a) < SHORTEST:
        return Dot(b, radius=0.06, color=color)
    return Arrow(a, b, buff=0, color=color, stroke_width=5, max_tip_length_to_length_ratio=0.15,
                 max_stroke_width_to_length_ratio=8)


def _overlaps(a: np.ndarray, b: np.ndarray, pad: float = 0.06) -> bool:
    return a[0] - pad < b[2] and b[0] - pad < a[2] and a[1] - pad < b[3] and b[1] - pad < a[3]


def _box(mob: Mobject) -> np.ndarray:
    return np.array([mob.get_left()[0], mob.get_bottom()[1], mob.get_right()[0], mob.get_top()[1]])


def _crosses(box: np.ndarray, start: np.ndarray, end: np.ndarray, pad: float = 0.04) -> bool:
    """Whether the segment start-end passes through the box (sampled along its length)."""
    for t in np.linspace(0, 1, 24):
        p = start + t * (end - start)
        if box[0] - pad < p[0] < box[2] + pad and box[1] - pad < p[1] < box[3] + pad:
            return True
    return False


def place_tags(tags: Sequence[Mobject], tips: Sequence[np.ndarray], area: Sequence[float],
               origin: np.ndarray, lines: Sequence[tuple] = ()) -> None:
    """Put each tag beside its arrow's tip (arrows from `origin`): just off the arrow's line
    first, then turning and stepping away until it covers no arrow, no line (start, end) and no
    tag already placed and stays in `area` (xmin, ymin, xmax, ymax). Where nothing is free,
    the first spot clear of the other tags."""
    placed: list[np.ndarray] = []
    tips = [np.asarray(t, float) for t in tips]
    segments = [(origin, t) for t in tips] + [(np.asarray(a, float), np.asarray(b, float)) for a, b in lines]
    for tag, tip in zip(tags, tips):
        out = tip - origin
        base = np.arctan2(out[1], out[0]) if np.linalg.norm(out[:2]) > SHORTEST else np.pi / 4
        chosen, fallback = None, None
        for radius in (0.1, 0.25, 0.45, 0.7, 1.0, 1.4, 1.9, 2.5):
            for turn in (1, -1, 0, 2, -2, 3, -3, 4):
                angle = base + turn * np.pi / 4
                d = np.array([np.cos(angle), np.sin(angle), 0.0])
                reach = radius + abs(d[0]) * tag.width / 2 + abs(d[1]) * tag.height / 2
                centre = tip + d * reach
                box = np.array([centre[0] - tag.width / 2, centre[1] - tag.height / 2,
                                centre[0] + tag.width / 2, centre[1] + tag.height / 2])
                inside = box[0] >= area[0] and box[2] <= area[2] and box[1] >= area[1] and box[3] <= area[3]
                if not inside or any(_overlaps(box, p) for p in placed):
                    continue
                fallback = centre if fallback is None else fallback
                if not any(_crosses(box, a, b) for a, b in segments):
                    chosen = centre
                    break
            if chosen is not None:
                break
        tag.move_to(chosen if chosen is not None else fallback if fallback is not None else tip)
        placed.append(_box(tag))


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


def speak(scene: Any, sentences: Sequence[str], **slots: Any) -> None:
    """Narrate the sentences in turn, each taking the named slots it holds."""
    unused = set(slots)
    for sentence in sentences:
        names = set(NAMED.findall(sentence))
        scene.narrate(sentence, **{name: slots[name] for name in names})
        unused -= names
    assert not unused, f"slots no sentence holds: {sorted(unused)}"
