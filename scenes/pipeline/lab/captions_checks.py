"""The captions of 4.5 future-check and 4.8 implementation, without Manim (lab/captions.py): both
clips write their captions inline in their scene.py; they are written here as there, chosen by
the same cases (tests/pipeline/test_lab_captions.py holds the two equal)."""
from __future__ import annotations

from typing import Any

from scenes.compute import implementation as code
from scenes.pipeline.lab.captions_slots import Slots, chooses


# ---------------------------------------------------------------- 4.5 future check (its scene.py)
@chooses
def future_check(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    c, prefix = s.compose, s.index(r.prefix)
    on, off = s.change(r.on.prefix_max), s.change(r.off.prefix_max)
    inputs = c("输入 x 的形状 [B, T, D] = {shape}：\n前 {prefix} 个位置固定，只给后 {future} 个位置加上扰动 δ·u，"
               "δ = {delta}。", shape=s.coords(r.shape), prefix=prefix, future=s.index(r.future),
               delta=s.exact(r.delta))
    runs = c("两次都经过因果多头注意力（H = {heads}）：\n前 {prefix} 个位置的输出逐项相同，最大前缀差恰为 {prefix_max}。"
             if r.on.prefix_max == 0 else
             "两次都经过因果多头注意力（H = {heads}）：\n前 {prefix} 个位置的输出变了，最大前缀差为 {prefix_max}，因果限制有漏洞。",
             heads=s.index(r.heads), prefix=prefix, prefix_max=on)
    unmasked = c("关掉掩码再做一次：前 {prefix} 个位置的输出跟着未来一起变，最大变化为 {prefix_max}。"
                 if r.off.prefix_max > 0 else
                 "关掉掩码再做一次：这组输入下前 {prefix} 个位置的输出碰巧没变（最大变化 {prefix_max}），看不出掩码的作用。",
                 prefix=prefix, prefix_max=off)
    grads = c("梯度检查：损失 L 只取前 {prefix} 个位置的输出；它对后 {future} 个位置输入的梯度恰为 {future_grad}。"
              if r.future_grad == 0 else
              "梯度检查：损失 L 只取前 {prefix} 个位置的输出；它对后 {future} 个位置输入的梯度却有 {future_grad}。",
              prefix=prefix, future=s.index(r.future), future_grad=s.change(r.future_grad))
    return [inputs, runs, unmasked, grads, dropout(r, s), behaviour(r, s)]


def dropout(r: Any, s: Slots) -> str:
    """Step 5: p = 0, or two masks that differ on the prefix (or happen not to)."""
    p, noise, shared = s.exact(r.p), s.change(r.drop_noise), s.change(r.drop_shared)
    if r.p == 0:
        return s.compose("dropout 的 p = {}：不丢弃任何项，两次运行本就相同；\np 大于零时，检查要关掉 dropout 或共用一个掩码。", p)
    return s.compose("打开 dropout（p = {p}）：不扰动时两次输出也相差 {noise}；\n共用一个掩码（同一 seed）时差为 {shared}。"
                     if r.drop_noise > 0 else
                     "打开 dropout（p = {p}）：这两个掩码在前缀上恰好相同，差为 {noise}；\n一般两次的掩码不同，所以检查时要关掉 dropout 或共用掩码。",
                     p=p, noise=noise, shared=shared)


def behaviour(r: Any, s: Slots) -> str:
    """Step 6: the wrong merge leaks, is the right one (one head), or happens not to move the prefix."""
    case = "leak" if r.bug.prefix_max > 0 else "one" if r.heads == 1 else "same"
    return s.compose({"leak": "只看权重是否呈三角形不够：错误合并的权重同样是三角形，改未来后前缀输出却变了 {}。检查的是行为，不是图。",
                      "one": "只有一个头时，错误合并与正确合并相同，前缀差也是 {}；\n但权重图挡不住别处的泄漏：检查的是行为，不是图。",
                      "same": "错误合并这一次没有改变前缀输出（差 {}）；权重图本身说明不了行为：检查的是行为，不是图。"}[case],
                     s.change(r.bug.prefix_max))


# ---------------------------------------------------------------- 4.8 implementation (its scene.py)
@chooses
def implementation(i: dict, r: Any, said: dict, s: Slots) -> list[str]:
    sh, w, c = r.shapes, r.widths, s.compose
    one = i["heads"] == 1
    heads = s.index(i["heads"])
    first = c("一个 Linear(D, {factor}D) 同时算出 Q、K、V，chunk 切成 {chunks} 份；H = {heads}：view 与 transpose "
              "只加出一个头轴，d = D = {head_dim}。" if one else
              "一个 Linear(D, {factor}D) 同时算出 Q、K、V，chunk 切成 {chunks} 份，view 与 transpose 拆成 "
              "{heads} 个头，每头宽 d = {head_dim}（k、v 同样拆）。", factor=s.index(code.QKV_FACTOR),
              chunks=s.index(code.CHUNKS), heads=heads, head_dim=s.index(sh.head_dim))
    scores = (c("分数 q @ kᵀ 只乘最后两轴，得到 {scores}；掩码在每个 T×T 里遮住 {masked} 个未来位置，"
                "softmax 后每行和为 {one}。", scores=s.coords(sh.scores), masked=s.index(sh.masked), one=s.const(1))
              if sh.masked else
              c("分数 q @ kᵀ 只乘最后两轴，得到 {scores}；T = {t} 时掩码里没有未来位置可遮，softmax 照常按行归一。",
                scores=s.coords(sh.scores), t=s.index(sh.mask[0])))
    merge = c("上下文 a @ v 是 {context}；只有一个头，换回与合并只去掉头轴：{merged}，再经输出投影。" if one else
              "a @ v 把每个头的权重作用到 V 上，得到 {context}；transpose 换回、reshape 合并成 {merged}，再经输出投影。",
              context=s.coords(sh.context), merged=s.coords(sh.merged))
    d_out = (c("只有一个头时两种 d_out 相同：每头宽度就是总宽度 {d_out}，照搬也不会出错。", d_out=s.index(w.head_dim))
             if one else
             c("同名不同义：早期 Wrapper 的 d_out 指每个头的宽度，MultiHeadAttention 的指总宽度；"
               "照搬 d_out = {copied_d_out} 输出宽 {factor} 倍。", copied_d_out=s.index(w.total), factor=s.index(w.factor)))
    return [first, scores, merge, d_out, sdpa(r.check, s)]


def sdpa(chk: Any, s: Slots) -> str:
    """Step 5: the hand-written attention against PyTorch's SDPA: the same, within rounding, or not."""
    forward, bits = s.change(chk.forward), s.index(code.FLOAT_BITS)
    if chk.agreement == "exact":
        return s.compose("手写注意力与 PyTorch SDPA 完全相同：前向和三个梯度的最大差都是 {}。", forward)
    return s.compose("手写注意力与 PyTorch SDPA：前向最大差 {forward}，梯度最大差 {grad}，都在 float{bits} 的舍入误差之内。"
                     if chk.agreement == "rounding" else
                     "手写注意力与 PyTorch SDPA 相差 {forward}（梯度 {grad}），超出 float{bits} 的舍入误差。",
                     forward=forward, grad=s.num(chk.grad), bits=bits)
