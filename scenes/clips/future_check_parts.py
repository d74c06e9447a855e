"""Builders for the future-check clip: rows of positions drawn as colour strips beside
their numbers, a zoom on one position, gradient bars, mask and weight pictures.

A [B, T, D] tensor is drawn as a lecturer would: each position a strip of D coloured
cells (no digits), and one number per position beside it (a norm or a largest change).
Every number goes through the NumberBook.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, DashedLine, Line, ManimColor, Mobject, Rectangle, VGroup,
                   interpolate_color)

from scenes.kit.derive_cells import gap, term
from scenes.kit import style
from scenes.kit.blocks import share
from scenes.kit.columns import Table
from scenes.kit.expressions import Derivation
from scenes.kit.layout import content_width
from scenes.kit.notes import note
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import Area

ROW_H = 0.36          # one position's row
CELL_H = 0.28         # a strip cell's height
STRIP_W = 2.6         # a strip's width at most (D cells)
COL_GAP = 0.35
SMALL = style.LABEL_SIZE


def exact(value: float) -> int:
    """Decimals for a drawn change: an exact zero is drawn as 0, anything else with 4."""
    return 0 if value == 0 else 4


def exact_decimals(value: float) -> int:
    """Fewest decimals (up to 6) that show an input such as p or delta exactly, else 6."""
    return style.decimals_for([value], (0, 1, 2, 3, 4, 5, 6))


def signed_color(value: float, limit: float) -> ManimColor:
    """Diverging scale: negative towards the query blue, positive towards the key orange."""
    t = float(np.clip(value / limit, -1, 1)) if limit > 0 else 0.0
    end = style.KEY if t >= 0 else style.QUERY
    return interpolate_color(ManimColor(style.HEAT_LOW), ManimColor(end), abs(t))


def strip(values: np.ndarray, limit: float, cell_w: float) -> VGroup:
    """One position's D features as a row of coloured cells (no digits)."""
    cells = VGroup(*[Rectangle(width=cell_w, height=CELL_H, stroke_width=0.5, stroke_color=style.GRID_LINE,
                               fill_color=signed_color(v, limit), fill_opacity=1)
                     for v in values])
    return cells.arrange(RIGHT, buff=0)


def cell_width(d: int) -> float:
    return min(0.26, STRIP_W / d)


def strip_rows(x: np.ndarray, x2: np.ndarray, number, limit: float) -> list:
    """rows[b][t] = (x's strip, x2's strip, number(b, t)) for a Board, on one colour scale."""
    w = cell_width(x.shape[2])
    return [[(strip(x[b, t], limit, w), strip(x2[b, t], limit, w), number(b, t)) for t in range(x.shape[1])]
            for b in range(x.shape[0])]


def slot(book: NumberBook, label: str, value: float) -> Shown:
    """A change as a slot of a sentence: an exact 0 as 0."""
    return book.fmt(label, value, exact(value))


def change(book: NumberBook, label: str, value: float, size: float = style.NUMBER_SIZE) -> Mobject:
    """A change that must be exactly 0 for the check to pass: 0 green, anything else red."""
    return book.num(label, value, exact(value), color=style.VALUE if value == 0 else style.MASK, size=size)


def panels(left: Mobject, right: Mobject, split: float = 0.56, top: bool = True) -> VGroup:
    """The board on the left, a panel on the right, both fitted into the content area."""
    return share(left, right, Area(content_width()), split, (1.8, 1.1), edge=UP if top else ORIGIN)


class Board(VGroup):
    """Rows of positions, one block per batch: position | strip | strip | number.

    columns: the three column titles; rows[b][t] = (left strip, right strip, number)."""

    def __init__(self, book: NumberBook, columns: tuple[str, str, str], rows: list, prefix: int) -> None:
        super().__init__()
        t_count = len(rows[0])
        head = VGroup(note(book, "t"), *[note(book, c) for c in columns])
        strip_w = max(max(r[0].width for block in rows for r in block), head[1].width, head[2].width)
        num_w = max(max(r[2].width for block in rows for r in block), head[3].width)
        xs = [0.0, 0.45, 0.45 + strip_w + COL_GAP, 0.45 + 2 * (strip_w + COL_GAP)]
        y = 0.0
        for k, mob in enumerate(head):
            mob.move_to([xs[k] + (0 if k == 0 else (strip_w if k < 3 else num_w) / 2), y, 0])
        self.add(head)
        self.numbers, self.lefts, self.rights = [], [], []
        self.batches = len(rows)
        for b, block in enumerate(rows):
            y -= ROW_H * 1.15
            tag = note(book, "批 {}", book.index(f"batch[{b}]", b), color=style.TEXT)
            self.add(tag.move_to([xs[1], y, 0], aligned_edge=LEFT))
            for t, (left, right, number) in enumerate(block):
                y -= ROW_H
                color = style.TEXT if t < prefix else style.MASK
                pos = book.text("{}", book.index(f"position[{t}]", t), color=color, size=SMALL)
                self.add(pos.move_to([xs[0], y, 0]))
                left.move_to([xs[1], y, 0], aligned_edge=LEFT)
                right.move_to([xs[2], y, 0], aligned_edge=LEFT)
                number.move_to([xs[3] + num_w, y, 0], aligned_edge=RIGHT)
                self.add(left, right, number)
                self.lefts.append(left)
                self.rights.append(right)
                self.numbers.append(number)
            if 0 < prefix < t_count:   # the boundary between the kept and the perturbed positions
                cut = y + (t_count - 1 - prefix) * ROW_H + ROW_H / 2
                self.add(DashedLine([xs[0] - 0.2, cut, 0], [xs[2] + strip_w, cut, 0], dash_length=0.08,
                                    stroke_width=2, color=style.MASK))


def zoom(book: NumberBook, title: Mobject, heads: tuple[str, str], names: tuple[str, str], a: np.ndarray,
         b: np.ndarray, colors: tuple[str, str]) -> VGroup:
    """One position's D features from two runs, side by side: c | a[c] | b[c]."""
    rows = [[note(book, "c"), note(book, heads[0]), note(book, heads[1])]]
    for c in range(len(a)):
        rows.append([note(book, "{}", book.index(f"feature[{c}]", c)),
                     book.num(f"{names[0]}[{c}]", a[c], 4, color=colors[0], size=SMALL),
                     book.num(f"{names[1]}[{c}]", b[c], 4, color=colors[1], size=SMALL)])
    table = Table(rows, aligns=(RIGHT,) * 3, gap=0.4, row_h=ROW_H * 0.95)
    y = rows[0][0].get_y() - ROW_H * 0.95 / 2
    rule = Line([table.get_left()[0], y, 0], [table.get_right()[0], y, 0], color=style.GRID_LINE,
                stroke_width=2)
    out = VGroup(title, VGroup(table, rule)).arrange(DOWN, buff=0.25)
    out.table = table
    return out


def change_made(book: NumberBook, board: "Board", zoom: VGroup, b: int, t: int, c: int) -> Derivation:
    """The board's change at (b, t) from the zoom's two outputs at feature c: |y′ − y|."""
    row = zoom.table.cells[c + 1]
    target = board.numbers[b * (len(board.numbers) // board.batches) + t]
    return gap(book, target, term(book, row[2]), term(book, row[1]))


def bar_charts(book: NumberBook, grads: np.ndarray, prefix: int, unit: float) -> VGroup:
    """Gradient norms per position, one chart per batch on a shared pitch: bars with their
    numbers on top, positions below. Each chart is VGroup(base, bars, tag)."""
    nums = [[book.num(f"grad[{b}][{t}]", v, exact(v), size=SMALL,
                      color=style.ACCENT if t < prefix else style.VALUE) for t, v in enumerate(row)]
            for b, row in enumerate(grads)]
    pitch = max(max(n.width for row in nums for n in row) + 0.35, 0.9)
    charts = VGroup()
    for b, row in enumerate(grads):
        group = VGroup()
        for t, (v, num) in enumerate(zip(row, nums[b])):
            color = style.ACCENT if t < prefix else style.VALUE
            bar = Rectangle(width=0.5, height=max(float(v) * unit, 0.02), fill_color=color, fill_opacity=0.85,
                            stroke_width=0).move_to([t * pitch, 0, 0], aligned_edge=DOWN)
            num.next_to(bar, UP, buff=0.1)
            pos = book.text("{}", book.index(f"position[{t}]", t), size=SMALL,
                            color=style.TEXT if t < prefix else style.MASK)
            group.add(VGroup(bar, num, pos.next_to([t * pitch, 0, 0], DOWN, buff=0.12)))
        base = Line([-0.45, 0, 0], [(len(row) - 1) * pitch + 0.45, 0, 0], color=style.GRID_LINE)
        tag = note(book, "批 {}", book.index(f"batch[{b}]", b), color=style.TEXT)
        charts.add(VGroup(base, group, tag.next_to(base, LEFT, buff=0.35)))
    return charts.arrange(DOWN, buff=0.55, aligned_edge=RIGHT)


def mask_pictures(book: NumberBook, r) -> VGroup:
    """The two runs' dropout masks of batch 0, head 0, each with how many visible weights it drops."""
    t = r.shape[1]
    visible = book.index("visible", t * (t + 1) // 2)
    pics = VGroup()
    for k, name in enumerate(("第一次的掩码", "第二次的掩码")):
        pic = picture(mask_colors(r.keep[k, 0, 0]), cell=min(0.6, 2.6 / t))
        count = note(book, "丢弃 {dropped} / {visible} 个可见权重",
                     dropped=book.index(f"dropped[{k}]", r.dropped[k]), visible=visible)
        pics.add(VGroup(note(book, name, color=style.TEXT), pic, count).arrange(DOWN, buff=0.2))
    legend = note(book, "批 {batch} · 头 {head}：绿 保留，红 丢弃，灰 未来（本就遮住）",
                  batch=book.index("batch[0]", 0), head=book.index("head[0]", 0))
    return VGroup(pics.arrange(RIGHT, buff=0.5), legend).arrange(DOWN, buff=0.3)


def picture(colors: list, cell: float = 0.36) -> VGroup:
    """A T x T picture of coloured cells (a mask or the weights), no digits; None: an empty cell."""
    grid = VGroup()
    for i, row in enumerate(colors):
        for j, color in enumerate(row):
            grid.add(Rectangle(width=cell, height=cell, stroke_width=1, stroke_color=style.GRID_LINE,
                               stroke_opacity=1 if color else 0.4, fill_color=color or style.BACKGROUND,
                               fill_opacity=1 if color else 0).move_to([j * cell, -i * cell, 0]))
    return grid


def mask_colors(keep: np.ndarray) -> list:
    """Kept visible weights green, dropped red, the future (masked anyway) grey."""
    t = len(keep)
    return [[style.NAN_FILL if j > i else style.VALUE if keep[i][j] else style.MASK for j in range(t)]
            for i in range(t)]


def weight_colors(weights: np.ndarray) -> list:
    """Visible weights on the heat scale; the masked future left empty (the triangle)."""
    low, high = ManimColor(style.HEAT_LOW), ManimColor(style.HEAT_HIGH)
    return [[None if j > i else interpolate_color(low, high, float(np.clip(w, 0, 1)))
             for j, w in enumerate(row)] for i, row in enumerate(weights)]


def table(rows: list) -> Table:
    """Words and the changes they name: left-aligned words, right-aligned numbers."""
    return Table(rows, aligns=(LEFT, RIGHT), gap=0.45, row_h=0.62)


# What the lecturer says in each step (the caption is its one-line summary); its slots ({prefix},
# or {} where a sentence has one) are filled by the book. Keys name the case the data chose.
NARRATION = {
    "inputs": "这是书中的验收测试。输入有 {b} 个序列，每个 {t} 个位置，每个位置 {d} 个特征；左边每一行是一个位置，"
              "每格的颜色是一个特征的值。前 {prefix} 个位置保持不变，只给后 {future} 个位置加上 δ 乘以标准正态抽样 u，"
              "右边一列是每个位置被改动了多少。因果限制若正确，后面的改动不应影响前面的输出。",
    "on.same": "原输入和扰动后的输入经过同一个因果多头注意力，{heads} 个头，双精度浮点，评估模式。前 {prefix} 个位置的输出逐项比较，"
               "右边放大了其中最后一个位置的全部特征：两列完全一样，最大前缀差恰为 {prefix_max}，不是很小，而是零。"
               "被遮住的权重是 e 的负无穷次方，正好为零；后面的位置自己被改动了，它们的输出当然会变。",
    "on.leak": "原输入和扰动后的输入经过同一个因果多头注意力，{heads} 个头。前 {prefix} 个位置的输出本应完全相同，"
               "这里最大前缀差却是 {prefix_max}：未来输入影响了过去的输出，因果限制有漏洞。",
    "made.same": "以批 {batch} 的位置 {position} 为例：两次的输出在每个特征上都相同，比如特征 {feature}："
                 "|{after} − {before}| = {change}。",
    "made.moved": "以批 {batch} 的位置 {position} 为例：两次的输出在特征 {feature} 上相差最大，"
                  "|{after} − {before}| = {change}，这也是前缀上最大的差。",
    "off.moved": "现在关掉掩码，其余不变。前缀位置能看见未来，它们的输出跟着扰动一起变，最大变化为 {}。"
                 "这说明上一步的零来自掩码，而不是扰动太小。",
    "off.same": "现在关掉掩码，其余不变。这组输入下前缀输出碰巧没有变化，最大变化为 {}；"
                "这时这一步说明不了掩码的作用，换一个 seed 或更大的扰动再试。",
    "grad.zero": "第二种检查看梯度。损失 L 只取前 {prefix} 个位置输出的平方和，对每个输入位置求梯度，柱子是梯度的范数。"
                 "后 {future} 个位置的梯度恰为 {future_grad}：早期位置的损失不依赖未来输入。"
                 "关掉掩码时，未来位置的梯度最大为 {future_grad_off}。",
    "grad.leak": "第二种检查看梯度。损失 L 只取前 {prefix} 个位置输出的平方和；它对后 {future} 个位置输入的梯度最大为 {future_grad}，"
                 "不为零，说明早期的损失依赖未来输入。关掉掩码时，这个值为 {future_grad_off}。",
    "dropout.off": "训练时 dropout 会随机丢弃 softmax 之后的权重。这里 p = {}，不丢弃任何项，两次运行本就相同。"
                   "p 大于零时，两次运行各抽一个掩码，输出会因随机而不同，所以检查要在评估模式下做，或共用同一个掩码。",
    "dropout.on": "训练时 dropout 会随机丢弃 softmax 之后的权重，这里 p = {p}。两次运行各抽一个掩码，"
                  "即使不改输入，前缀输出也差 {noise}，这个差异和未来无关，会干扰判断。"
                  "共用同一个掩码，或在评估模式下关掉 dropout，前缀差才恰为 {shared}。",
    "dropout.same": "训练时 dropout 会随机丢弃 softmax 之后的权重，这里 p = {p}。这一次两个掩码在前缀用到的权重上恰好相同，"
                    "前缀差为 {noise}；一般两次的掩码不同，这种与未来无关的差异会干扰判断，所以检查要在评估模式下做，或共用同一个掩码。",
    "behaviour.leak": "只看注意力矩阵是不是三角形，并不能保证没有泄漏。这个错误实现在合并多头时直接 reshape，"
                      "没有先转置回来；它的权重与正确实现完全相同，同样是三角形，可改了未来输入，前缀输出却变了 {}。"
                      "修改未来输入的测试检查的是行为：未来会不会影响过去。",
    "behaviour.one": "只有一个头时，直接 reshape 与先转置回来再 reshape 相同，两种实现都通过，前缀差为 {}。"
                     "但只看注意力矩阵是不是三角形，仍不能保证别处没有泄漏；修改未来输入的测试检查的是行为：未来会不会影响过去。",
    "behaviour.same": "只看注意力矩阵是不是三角形，并不能保证没有泄漏。这一次错误合并碰巧没有改变前缀输出，差为 {}；"
                      "但权重图本身说明不了行为，修改未来输入的测试检查的正是行为：未来会不会影响过去。",
}
