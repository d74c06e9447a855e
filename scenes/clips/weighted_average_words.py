"""The weighted-average clip's narration: what the lecturer says after each step's caption (issue 17),
the sentences that speak a derivation while it is made (issue 25), and the captions chosen by the data."""
from __future__ import annotations

from typing import Any

from scenes.kit.numbers import NumberBook, Shown

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
    # a number seen being made (issue 25): said only where its derivation is shown
    "dots.first": ("以 {key} 为例：查询与它的分量两两相乘再相加，得到分数 {score}。",),
    "softmax.first": ("以 {key} 为例：e 的 {score} 次方得 {exp}，再除以总和 {total}，权重是 {alpha}。",),
    "mix.first": ("{z} 的第一个分量 {out}，就是各个权重乘以对应向量的第一个分量再相加。",),
}


# captions chosen by the data
DIVIDE_CAPTIONS = {
    "works": "直接除以分数之和？此例恰好可行；但分数可能为负，总和也可能为零：无法普遍得到概率权重。",
    "zero": "直接除以分数之和？此例分数之和为零，无从相除：无法普遍得到概率权重。",
    "negative": "直接除以分数之和？此例 s / Σs 出现负数，不是概率：无法普遍得到概率权重。",
}
FAILS = {"works": "但像 s − mean(s) 这样有正有负、和为零的分数，s / Σs 无定义（除以零）",
         "flat": "但分数减去均值后全为零、和为零，s / Σs 就无定义（除以零）",
         "zero": "Σs 为零：s / Σs 无定义（除以零）",
         "negative": "s / Σs 有负数（红色）：不是概率权重"}


def mix_caption(book: NumberBook, r: Any, z: Shown, pick: Shown | None, rows: Shown, d: int) -> tuple:
    """Step 5's (case, caption, slots): one input picked, equal weights (the plain mean), or a mix."""
    if pick is not None:
        return "picked", "{z} = Σ αⱼ xⱼ：分数相差悬殊，权重几乎全给了 {pick}，{z} 几乎就是 {pick}。", {"z": z, "pick": pick}
    if r.equal:
        return "equal", "{z} = Σ αⱼ xⱼ：权重全相等，{z} 就是{rows}个向量的平均。", {"z": z, "rows": rows}
    if len(r.output) > 3:
        return "mixed", "{z} = Σ αⱼ xⱼ（表的末行）：{rows}个向量的混合，不是挑出其中一个。", {"z": z, "rows": rows}
    out = book.compose(", ".join("{}" for _ in r.output),
                       *[book.fmt(f"output[0][{c}]", v, d) for c, v in enumerate(r.output)])
    return "mixed", "{z} = Σ αⱼ xⱼ = ({output})：{rows}个向量的混合，不是挑出其中一个。", {"z": z, "output": out,
                                                                                 "rows": rows}
