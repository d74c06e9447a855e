"""Builders for the future-check clip: the worked change and the dropout masks, and what the
lecturer says. Strips, boards and pictures are the kit's (scenes/kit/pictures.py), bars too
(bars.py), the changes that must be exactly zero and the board beside its panel sheets.py's.

Every number goes through the NumberBook.
"""
from __future__ import annotations

from manim import DOWN, RIGHT, VGroup

from scenes.compute.future import FutureCheck
from scenes.kit.derive_cells import gap, term
from scenes.kit import style
from scenes.kit.expressions import Derivation
from scenes.kit.notes import note
from scenes.kit.numbers import NumberBook
from scenes.kit.pictures import Board, mask_colors, picture


def change_made(book: NumberBook, board: Board, zoom: VGroup, b: int, t: int, c: int) -> Derivation:
    """The board's change at (b, t) from the zoom's two outputs at feature c: |y′ − y|."""
    row = zoom.table.cells[c + 1]
    return gap(book, board.number(b, t), term(book, row[2]), term(book, row[1]))


def mask_pictures(book: NumberBook, r: FutureCheck) -> VGroup:
    """The two runs' dropout masks of batch 0, head 0, each with how many visible weights it drops."""
    visible = book.index("visible", r.visible)
    pics = VGroup()
    for k, name in enumerate(("第一次的掩码", "第二次的掩码")):
        pic = picture(mask_colors(r.keep[k, 0, 0]), room=2.6, most=0.6)
        count = note(book, "丢弃 {dropped} / {visible} 个可见权重",
                     dropped=book.index(f"dropped[{k}]", r.dropped[k]), visible=visible)
        pics.add(VGroup(note(book, name, color=style.TEXT), pic, count).arrange(DOWN, buff=0.2))
    legend = note(book, "批 {batch} · 头 {head}：绿 保留，红 丢弃，灰 未来（本就遮住）",
                  batch=book.index("batch[0]", 0), head=book.index("head[0]", 0))
    return VGroup(pics.arrange(RIGHT, buff=0.5), legend).arrange(DOWN, buff=0.3)


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
