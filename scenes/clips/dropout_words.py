"""What the dropout clip says: the slots every step shares (1, 0, p and 1/(1-p) as drawn), the
captions' parts the data chooses, and the lecturer's narration for each case.

Every number in them is a slot the NumberBook filled.
"""
from __future__ import annotations

from typing import Any, Sequence

from scenes.kit import style
from scenes.kit.numbers import NumberBook, Shown
from scenes.kit.page import phrase

DECIMALS = 6          # the lab's table shows six decimals
MEAN_DECIMALS = 4     # a sampled running mean: 4 decimals, as the rest of the chapter


def short(values: Sequence[float]) -> int:
    """Fewest decimals that show p or 1/(1-p) exactly (0.5, 2, 1.25), else 6."""
    return style.decimals_for(values, (0, 1, 2, 3, 4, 6))


# ------------------------------------------------------------------ the slots every step shares
def one(book: NumberBook) -> Shown:
    """The 1 of 1/(1-p) and of "row sums to 1", recorded where it is drawn."""
    return book.fmt("formula.one", 1, 0)


def zero(book: NumberBook) -> Shown:
    return book.fmt("formula.zero", 0, 0)


def p(book: NumberBook, r: Any) -> Shown:
    return book.fmt("p", r.p, short([r.p]))


def scale(book: NumberBook, r: Any) -> Shown:
    """1/(1-p) as the mode line draws it (train mode only)."""
    return book.fmt("scale", r.scale, short([r.scale]))

# "位置 0、2": the positions of a row's zeros (at most five: the row sums to 1), one template per count
ORDER = ("first", "second", "third", "fourth", "fifth")
POSITIONS = {1: "位置 {first}", 2: "位置 {first}、{second}", 3: "位置 {first}、{second}、{third}",
             4: "位置 {first}、{second}、{third}、{fourth}", 5: "位置 {first}、{second}、{third}、{fourth}、{fifth}"}


def positions(book: NumberBook, which: Sequence[int]) -> Shown:
    shown = [book.index(f"position[{i}]", i) for i in which]
    return book.compose(POSITIONS[len(shown)], **dict(zip(ORDER, shown)))


# Step 2's caption, second half: the chosen masks' sums against 1 (kinds that occur; one mask or several)
SUMS = {
    ("above", "below", "equal"): "单次结果的行和可以大于、小于或等于 {one}。",
    ("above", "below"): "这几个掩码的行和有的大于 {one}，有的小于 {one}。",
    ("above", "equal"): "这几个掩码的行和有的大于 {one}，有的等于 {one}。",
    ("below", "equal"): "这几个掩码的行和有的小于 {one}，有的等于 {one}。",
    ("above", "many"): "这几个掩码的行和都大于 {one}。", ("above", "one"): "这个掩码的行和大于 {one}。",
    ("below", "many"): "这几个掩码的行和都小于 {one}。", ("below", "one"): "这个掩码的行和小于 {one}。",
    ("equal", "many"): "这几个掩码的行和都等于 {one}。", ("equal", "one"): "这个掩码的行和等于 {one}。",
}

# Step 4's caption when every draw kept everything: (mode, several draws)
ALL_KEPT = {
    ("eval", True): "评估模式不丢弃：{draws} 次采样都全部保留，逐项平均就是原权重。",
    ("eval", False): "评估模式不丢弃：这 {draws} 次采样全部保留，逐项平均就是原权重。",
    ("train", True): "按 nn.Dropout 的语义抽取：{draws} 次采样都全部保留，逐项平均就是原权重。",
    ("train", False): "按 nn.Dropout 的语义抽取：这 {draws} 次采样全部保留，逐项平均就是原权重。",
}


def sampling_caption(book: NumberBook, r: Any, last: Shown) -> tuple[str, dict[str, Shown]]:
    """Step 4's caption and its slots: all kept, one draw, the running mean got closer, or it did not."""
    if r.all_kept:
        return ALL_KEPT[(r.mode, len(r.sample_sums) > 1)], {"draws": last}
    if len(r.checkpoints) == 1:
        return "按 nn.Dropout 的语义随机抽取掩码：只采样一次，“平均”就是这一次的行。", {}
    if r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
        return "按 nn.Dropout 的语义随机抽取掩码：采样越多，逐项平均越接近原权重。", {}
    gap = book.fmt(f"gap[{len(r.checkpoints) - 1}]", r.checkpoint_gaps[-1], MEAN_DECIMALS)
    return "按 nn.Dropout 的语义随机抽取掩码：{draws} 次采样后，逐项平均与原权重最多相差 {gap}。", {"draws": last, "gap": gap}

def drawn_sums(book: NumberBook, r: Any) -> list[float]:
    """The chosen masks' row sums as drawn (six decimals)."""
    return [float(book.fmt(f"chosen[{k}].sum", s, DECIMALS)) for k, s in enumerate(r.sums)]


def sums_against_one(book: NumberBook, r: Any) -> Shown:
    """What the chosen masks' sums (as drawn) show against 1: step 2's caption, second half."""
    drawn = drawn_sums(book, r)
    kinds = tuple(w for w, hit in (("above", any(v > 1 for v in drawn)), ("below", any(v < 1 for v in drawn)),
                                   ("equal", any(v == 1 for v in drawn))) if hit)
    template = SUMS[kinds if len(kinds) > 1 else kinds + ("many" if len(drawn) > 1 else "one",)]
    return book.compose(template, one=one(book))


# What the lecturer says in each step (the caption is its one-line summary), in the book's
# words where it has them; its slots ({p}, or {} where a sentence has one) are filled by the book.
# Keys name the case the data chose.
NARRATION = {
    "row.train": "上游把 dropout 放在 softmax 之后，训练时以概率 p 独立丢弃这一行的每一项；"
                 "这里 p = {p}，保留项乘以 {one}/({one}−p) = {scale}。这一行原本和为 {weight_sum}，经过 dropout 还会加到 {one} 吗？",
    "row.eval": "这是 softmax 之后的一行注意力权重，行和为 {weight_sum}。这里是评估模式：推理时 dropout 应关闭，"
                "配置的 p = {p} 被忽略，有效 p = {p_eff}。下面逐步看，掩码、期望和采样都不会改变这一行。",
    "masks.moved": "掩码的一位对应一个位置，{one} 保留，{zero} 丢弃；这些掩码是手动选的，不是随机抽样。"
                   "保留项乘以 {scale}，右边是行和与掩码的概率。行和随掩码而变，偏离 {one} 并不说明 softmax 算错了。",
    "masks.kept": "掩码的一位对应一个位置，{one} 保留，{zero} 丢弃；这些掩码是手动选的，不是随机抽样。"
                  "保留项乘以 {scale}，右边是行和与掩码的概率。所选掩码的行和都是 {one}，但换成全部丢弃的掩码，行和就是 {zero}。",
    "masks.none": "掩码的一位对应一个位置，{one} 保留，{zero} 丢弃；这些掩码是手动选的，不是随机抽样。"
                  "p = {p} 时保留项只乘以 {scale}，丢了项的掩码概率都是 {zero}，训练时并不会出现。",
    "masks.eval": "评估模式下 dropout 关闭，配置的 p = {} 被忽略。表中仍列出所选的掩码，但它们不起作用："
                  "每一行都与原权重相同，行和不变。概率一列也说明，评估时只有全保留的掩码会出现。",
    "every.train": "每一项独立地以概率 p 丢弃，掩码的概率是各位概率的乘积，合计 {prob_total}。每一项以概率 {one}−p 保留，"
                   "保留时乘以 {one}/({one}−p)，放大正好抵消丢弃的期望损失，所以期望就是原权重。"
                   "单次结果的行和却不一定是 {expected_sum}。",
    "every.many": "共 {count} 个掩码，表里列出概率最大的 {listed} 个，其余合成一行。每一项以概率 {one}−p 保留，"
                  "保留时乘以 {one}/({one}−p)，放大正好抵消丢弃的期望损失，所以期望就是原权重。"
                  "单次结果的行和却不一定是 {expected_sum}。",
    "every.none": "p = {p} 时不会丢弃任何项：除了全保留的掩码，其余掩码的概率都是 {zero}。"
                  "加权平均之后，期望一行就是原权重本身。这时每一次的结果都与期望相同。",
    "every.eval": "评估模式不丢弃任何项，表中的概率都按有效 p 计算：除了全保留的掩码，其余掩码的概率都是 {}。"
                  "加权平均之后，期望一行就是原权重本身。评估时每次结果都相同，没有随机波动。",
    "sample.closer": "现在按 nn.Dropout 的语义随机抽取，每一项以概率 p 置零。中间一列是逐项平均与原权重的最大差："
                     "第一次采样后为 {first_gap}，{draws} 次后降到 {gap}。单次的偏差在平均中相互抵消，右边柱子向虚线上的原权重靠拢。",
    "sample.stuck": "现在按 nn.Dropout 的语义随机抽取，每一项以概率 p 置零，保留项乘以 {}。"
                    "中间一列的最大差没有比第一次采样后更小：次数太少，随机偏差还没有相互抵消。"
                    "平均要靠足够多的采样，才会接近原权重。",
    "sample.once": "现在按 nn.Dropout 的语义随机抽取，每一项以概率 p 置零，保留项乘以 {scale}。"
                   "只采样一次时，逐项平均与原权重最多相差 {gap}。单次结果会偏离原权重，多次采样的平均才接近期望。",
    "sample.eval": "评估模式下 nn.Dropout 不丢弃任何项，抽多少次都一样：这 {} 次的每一行都是原权重本身。"
                   "逐项平均从第一次起就等于原权重，推理时需要的正是这种确定的结果。",
    "sample.none": "p = {p} 时 nn.Dropout 不会丢弃任何项：这 {draws} 次采样的每一行都与原权重相同，"
                   "逐项平均从第一次起就是原权重。p 大于零时，才会出现随机的偏差。",
    "sample.lucky": "按 nn.Dropout 的语义，每一项以概率 p = {p} 置零。这 {draws} 次采样恰好没有丢弃任何一项，"
                    "每一行都是原权重乘以 {scale}。p 越小，丢弃越少，单次结果越接近原权重。",
    "made.kept": "以掩码 {mask} 的位置 {position} 为例：保留位 {bit} 乘原权重 {weight}，再乘 {scale}，得到 {entry}；"
                 "这一行的各项加起来，行和是 {total}。",
    "made.dropped": "以掩码 {mask} 的位置 {position} 为例：这一位是 {bit}，该项被丢弃，为 {entry}；"
                    "这一行的各项加起来，行和是 {total}。",
    "made.eval": "评估模式下，第一个掩码的每一项都直接照搬原权重，行和仍为 {total}。",
    "made.mean": "以位置 {position} 为例：每个掩码在这一位的值乘以它的概率再相加，得到期望 {mean}，正是原权重 {weight}。",
    "made.mean.some": "以位置 {position} 为例：每个掩码在这一位的值乘以它的概率再相加（算式只写出表里列出的掩码），"
                      "得到期望 {mean}，正是原权重 {weight}。",
    "eval.train.check": "推理时 dropout 应关闭：nn.Dropout 服从 model.eval()，函数式接口则要显式把概率设为 {zero}。"
                        "训练一列用第一个掩码，行和为 {train_sum}；评估一列不变。要检查 softmax 的行和，应在 dropout 之前检查。",
    "eval.train.zeros": "推理时 dropout 应关闭：nn.Dropout 服从 model.eval()，函数式接口则要显式把概率设为 {zero}。"
                        "训练一列用第一个掩码，行和为 {train_sum}；评估一列不变。"
                        "{positions} 的原权重为 {zero}，保留或丢弃都仍为 {zero}。",
    "eval.only.check": "推理时 dropout 应关闭：nn.Dropout 服从 model.eval()，函数式接口则要显式把概率设为 {zero}。"
                       "配置的 p 在评估模式下被忽略，输出就是原权重。要检查 softmax 的行和，应在 dropout 之前检查。",
    "eval.only.zeros": "推理时 dropout 应关闭：nn.Dropout 服从 model.eval()，函数式接口则要显式把概率设为 {zero}。"
                       "配置的 p 在评估模式下被忽略，输出就是原权重。{positions} 的原权重为 {zero}，评估后仍为 {zero}。",
}


def sampling_says(book: NumberBook, r: Any, last: Shown) -> tuple:
    """Step 4: all kept (eval, p = 0, or by chance), one draw, the gap shrank, or it did not."""
    gaps = [book.fmt(f"gap[{j}]", g, MEAN_DECIMALS) for j, g in enumerate(r.checkpoint_gaps)]
    if r.all_kept:
        if r.mode == "eval":
            return phrase(NARRATION["sample.eval"], last)
        if r.p == 0:
            return phrase(NARRATION["sample.none"], p=p(book, r), draws=last)
        return phrase(NARRATION["sample.lucky"], p=p(book, r), draws=last, scale=scale(book, r))
    if len(r.checkpoints) == 1:
        return phrase(NARRATION["sample.once"], scale=scale(book, r), gap=gaps[0])
    if r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
        return phrase(NARRATION["sample.closer"], first_gap=gaps[0], draws=last, gap=gaps[-1])
    return phrase(NARRATION["sample.stuck"], scale(book, r))


def eval_says(book: NumberBook, r: Any) -> tuple:
    """Step 5: with or without the train column (p = 1 in eval mode), with or without zeros."""
    slots = {"zero": zero(book)}
    case = "eval.only" if r.train_row is None else "eval.train"
    if r.train_row is not None:
        slots["train_sum"] = book.fmt("train.sum", r.train_sum, DECIMALS)
    if r.zeros:
        slots["positions"] = positions(book, r.zeros)
    return phrase(NARRATION[case + (".zeros" if r.zeros else ".check")], **slots)


def made_says(book: NumberBook, r: Any, k: int, i: int) -> tuple:
    """Step 2: the worked entry of mask k at position i as it is made, and its row's sum."""
    slots = {"total": book.fmt(f"chosen[{k}].sum", r.sums[k], DECIMALS)}
    if r.mode == "eval":
        return phrase(NARRATION["made.eval"], **slots)
    bits = [book.index(f"chosen[{k}].mask[{c}]", int(b)) for c, b in enumerate(r.masks[k])]
    slots.update(mask=book.compose("{}" * len(bits), *bits), position=book.index(f"position[{i}]", i),
                 bit=bits[i], entry=book.fmt(f"chosen[{k}].row[{i}]", r.rows[k][i], DECIMALS))
    if not r.masks[k][i]:
        return phrase(NARRATION["made.dropped"], **slots)
    return phrase(NARRATION["made.kept"], weight=book.fmt(f"weights[{i}]", r.weights[i], DECIMALS),
                  scale=scale(book, r), **slots)


def mean_says(book: NumberBook, r: Any, i: int) -> tuple:
    """Step 3: the expectation of position i as Σ P(m)·row, over every mask or the listed ones."""
    every = len(r.ranked) == len(r.table.masks)
    return phrase(NARRATION["made.mean" if every else "made.mean.some"],
                  position=book.index(f"position[{i}]", i),
                  mean=book.fmt(f"mean_row[{i}]", r.table.mean_row[i], DECIMALS),
                  weight=book.fmt(f"weights[{i}]", r.weights[i], DECIMALS))
