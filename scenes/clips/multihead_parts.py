"""What the multihead clip says: step 5's caption, which the data chooses, and the lecturer's
narration for each case. The drawing (the id tensor, its moves, the error card) is the kit's
(scenes/kit/tensors.py, cards.py)."""
from __future__ import annotations

from typing import Any

from scenes.kit.numbers import Shown


def wrong_caption(scene: Any, emphasis: bool) -> Shown:
    """Step 5's caption: no element moves (order), the tracked one stays, or it moves."""
    c, case = scene.book.compose, scene.case()
    if case == "order":
        return c("对照：不换回就直接 reshape；这里 {}，顺序不变，碰巧不出错。", scene.unit_axes())
    if case == "stays" and emphasis:
        return c("错误合并：不换回就 reshape，{track} 碰巧不动，但有 {misplaced} 个元素错了位。",
                 **scene.slots(), misplaced=scene.index("misplaced"))
    if case == "stays":
        return c("对照：不换回就直接 reshape，{} 碰巧不动，别的元素却错了位。", scene.eid())
    if emphasis:
        return c("错误合并：不换回就 reshape，{track} 从正确的 {merged} 错到 {wrong}。",
                 **scene.slots("merged", "wrong"))
    return c("对照：不换回就直接 reshape，{track} 会错到 {wrong}。", **scene.slots("wrong"))


# What the lecturer says in each step (the caption is its one-line summary), from the book's
# 4.7; its slots ({track}, {merged}, ...) are filled by the book with numbers the step draws.
# Keys name the case.
NARRATION = {
    "start": "一批序列可以同时计算，也可以拆成多个注意力头，各头分别算一组权重再合并。"
             "编号只标识元素，不是 Q、K、V 的实际数值，每一步数量和身份都不变。"
             "D 均分给 {heads} 个头，每头宽度 d 为 {head_dim}；{track} 原属批次 {b}、位置 {t}、特征 {c}。",
    "start.one": "一批序列可以同时计算，也可以拆成多个注意力头，各头分别算一组权重再合并。"
                 "编号只标识元素，不是 Q、K、V 的实际数值，每一步数量和身份都不变。"
                 "这里只有 {heads} 个头，d 就是 D，为 {head_dim}；{track} 原属批次 {b}、位置 {t}、特征 {c}。",
    "split": "reshape 只把最后一维 D 拆成 H 和 d 两维，元素的顺序不变。"
             "c 除以 d 的整数部分是头下标 h，余数是头内下标 r：{track} 的 c 为 {c}，d 为 {head_dim}，所以 h 为 {h}、r 为 {r}。"
             "reshape 可能返回视图或副本，这里只看元素的逻辑顺序。",
    "transpose": "交换中间两轴后，每组 [b, h] 是一个头自己的 T 行 d 列矩阵，矩阵乘法对每个批次、每个头独立进行。"
                 "分数形状是 {}，上下文是 [B, H, T, d]。",
    "transpose.swap": "{track} 从 {split} 变成 {transposed}，位置与头的下标互换。",
    "transpose.same": "{track} 的位置下标与头下标相等，互换后坐标仍是 {transposed}。",
    "transpose.order": "这里 {}，transpose 不改变元素的先后顺序。",
    "merge": "算完以后先用 transpose 换回 [B, T, H, d]，同一位置的各头重新相邻；"
             "再 reshape 合并最后两维，把各头拼回每个位置的 D 个特征。"
             "{track} 回到 {merged}，和出发时一样。之后还要用输出投影混合不同头的信息。",
    "merge.one": "算完以后先用 transpose 换回 [B, T, H, d]，再 reshape 合并最后两维，回到 [B, T, D]。"
                 "这里只有 {heads} 个头，两步都不改变元素的先后顺序，{track} 回到 {merged}，和出发时一样。"
                 "之后还要用输出投影混合信息。",
    "merge.moves": "红色一行是错误对照：不换回就 reshape，{track} 会错到 {wrong}。",
    "merge.stays": "红色一行是错误对照：不换回就 reshape，{track} 碰巧仍在 {wrong}，别的元素却会错位。",
    "merge.order": "红色一行是错误对照：不换回就 reshape，{track} 仍在 {wrong}；这里 {axes}，没有元素会错位。",
    "wrong.order": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]。"
                   "这里 {}，transpose 本来没有改变元素顺序，所以碰巧不出错；一般情况下，合并前必须先换回。",
    "wrong.stays": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，{track} 碰巧还在原位。"
                   "别的元素却错了位，有的行混进了别的位置的特征，程序也不报错。"
                   "合并前必须先换回，才能把同一位置的各头拼接起来。",
    "wrong.stays.count": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，{track} 碰巧还在原位。"
                         "红色的 {misplaced} 个元素却错了位，有的行混进了别的位置的特征，程序也不报错。"
                         "合并前必须先换回，才能把同一位置的各头拼接起来。",
    "wrong.moves": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，"
                   "{track} 却从虚线框里的正确位置 {merged} 错到了 {wrong}。有的行混进了别的位置的特征，程序也不报错。"
                   "合并前必须先换回。",
    "wrong.moves.count": "形状相同，元素就一定相同吗？跳过换回直接 reshape，形状同样是 [B, T, D]，"
                         "{track} 却从虚线框里的正确位置 {merged} 错到了 {wrong}。红色的 {misplaced} 个元素都不在原位，程序也不报错。"
                         "合并前必须先换回。",
    "error": "多头要求总宽度 D 能被头数 H 整除，每头宽度 D 除以 H 才是整数。"
             "这里 {d_model} 除以 {heads} 得 {quotient} 余 {remainder}，无法均分给每个头。"
             "输入检查在拆头之前就停下，报出这条错误，而不是算出一个形状不对的结果。",
}
