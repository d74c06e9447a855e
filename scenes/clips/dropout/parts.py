"""Builders for the dropout clip: the mode line, the bars (the kit's bars.py), the tables each
step shows (the kit's Table) and the numbers made in them; what it says is in dropout_words.py.

Every number goes through the NumberBook; nothing here computes a drawn value.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import RIGHT, Mobject, VGroup

from scenes.clips.dropout.words import DECIMALS, MEAN_DECIMALS, one, p, positions, scale, short, zero
from scenes.kit.draw import bars
from scenes.kit.motion import expressions as ex
from scenes.kit.text import style
from scenes.kit.draw.columns import Table
from scenes.kit.motion.derive_cells import Lone, listed_sum, term, total
from scenes.kit.motion.expressions import Derivation, Term
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.draw.pictures import bits


def mode_line(book: NumberBook, r: Any) -> Mobject:
    """Train: p and the scale 1/(1-p); eval: the configured p is ignored, effective p = 0."""
    if r.mode == "eval":
        return book.text("评估模式 · 配置的 p = {p} 被忽略 · 有效 p = {p_eff}", p=p(book, r),
                         p_eff=book.fmt("p_eff", r.p_eff, 0), color=style.ACCENT, size=style.LABEL_SIZE)
    return book.text("训练模式 · p = {p} · 保留项 × {one}/({one}−p) = {scale}", p=p(book, r), one=one(book),
                     scale=scale(book, r), color=style.ACCENT, size=style.LABEL_SIZE)


def weight_bars(r: Any, t: Table) -> VGroup:
    """The weights as bars under their columns of `t`, in the room the mask rows take later."""
    return bars.under(t, r.weights, 1, t.y(1) - t.row_h * t.zoom() / 2 - 0.3,
                      labels=[f"weights[{i}]" for i in range(len(r.weights))])


def zero_rule(book: NumberBook, r: Any) -> Mobject:
    """Why a weight of 0 stays 0, said of this row's zeros (or as a rule when it has none)."""
    z = zero(book)
    why = (book.compose("评估模式原样输出，仍为 {}", z) if r.train_row is None     # eval at p = 1: no 1/(1-p)
           else book.compose("m × {zero} / ({one}−p) = {zero}，保留或丢弃都仍为 {zero}", zero=z, one=one(book)))
    if not r.zeros:
        return note(book, "若原权重为 {zero}：{rule}（这一行没有为 {zero} 的项）", zero=z, rule=why)
    return note(book, "{positions} 的原权重为 {zero}：{rule}", positions=positions(book, r.zeros),
                zero=z, rule=why, color=style.TRACK, size=style.BODY_SIZE)


# ------------------------------------------------------------------ the tables each step shows
def num(book: NumberBook, label: str, value: Any, color: str | None = None,
        decimals: int = DECIMALS) -> Mobject:
    return book.num(label, value, decimals, color=color)


def position_names(book: NumberBook, r: Any) -> list[Shown]:
    return [book.index(f"position[{i}]", i) for i in range(len(r.weights))]


def head(book: NumberBook, r: Any, first: str) -> list[Mobject | None]:
    return [note(book, first), *[note(book, "{}", s) for s in position_names(book, r)], note(book, "行和"),
            note(book, "P(m)")]


def weights_row(book: NumberBook, r: Any) -> list[Mobject | None]:
    return [note(book, "原权重 a", color=style.TEXT),
            *[num(book, f"weights[{i}]", w) for i, w in enumerate(r.weights)],
            num(book, "weight_sum", r.weight_sum, style.ACCENT), None]


def mask_row(book: NumberBook, prefix: str, mask: Sequence[bool], row: Sequence[float], total: float,
             prob: float, applied: bool = True) -> list[Mobject | None]:
    """[bits | each entry | row sum | P(m)]; dropped entries in the mask colour where the mask applies."""
    cells = [num(book, f"{prefix}.row[{i}]", v, style.VALUE if keep or not applied else style.MASK)
             for i, (keep, v) in enumerate(zip(mask, row))]
    return [bits(book, f"{prefix}.mask", mask, ignored=not applied), *cells,
            num(book, f"{prefix}.sum", total, style.ACCENT), num(book, f"{prefix}.prob", prob)]


def chosen_table(book: NumberBook, r: Any) -> Table:
    """Positions, the original row, then each chosen mask's row (steps 1 and 2)."""
    rows = [head(book, r, "位置"), weights_row(book, r)]
    rows += [mask_row(book, f"chosen[{k}]", m, r.rows[k], r.sums[k], r.probs[k], r.mode != "eval")
             for k, m in enumerate(r.masks)]
    return Table(rows, row_h=0.56, gap=0.45 if len(r.weights) <= 3 else 0.3)


def every_table(book: NumberBook, r: Any) -> Table:
    """The listed masks, the others together, the expectation and the original row (step 3)."""
    t, n = r.table, len(r.weights)
    rows = [head(book, r, "掩码")]
    rows += [mask_row(book, f"table[{k}]", t.masks[k], t.rows[k], t.sums[k], t.probs[k]) for k in r.ranked]
    if len(r.ranked) < len(t.masks):
        rest = book.index("rest_count", len(t.masks) - len(r.ranked))
        rows.append([note(book, "其余 {} 个", rest), *[None] * (n + 1), num(book, "rest_prob", r.rest_prob)])
    mean = [num(book, f"mean_row[{i}]", v, style.TRACK) for i, v in enumerate(t.mean_row)]
    rows.append([note(book, "期望 Σ P·行", color=style.TRACK), *mean,
                 num(book, "expected_sum", t.expected_sum, style.TRACK),
                 num(book, "prob_total", r.prob_total, style.TRACK)])
    rows.append(weights_row(book, r))
    return Table(rows, row_h=0.44, gap=0.35 if n < 5 else 0.25)


def sample_table(book: NumberBook, r: Any, listed: int) -> Table:
    rows = [[note(book, "样本"), note(book, "掩码"), note(book, "行和")]]
    rows += [[num(book, f"sample[{k}]", k, style.MUTED, 0), bits(book, f"sample[{k}].mask", m),
              num(book, f"sample[{k}].sum", r.sample_sums[k], style.ACCENT)]
             for k, m in enumerate(r.sampled.masks[:listed])]
    return Table(rows, row_h=0.52)


def checkpoint_table(book: NumberBook, r: Any) -> Table:
    """After how many draws, and how far the running mean then is from the row at most."""
    rows = [[note(book, "已采样"), note(book, "最大 |平均−a|")]]
    rows += [[num(book, f"checkpoint[{j}]", c, style.TEXT, 0),
              num(book, f"gap[{j}]", g, style.ACCENT, MEAN_DECIMALS)]
             for j, (c, g) in enumerate(zip(r.checkpoints, r.checkpoint_gaps))]
    return Table(rows, row_h=0.52)


def eval_table(book: NumberBook, r: Any, p_eff: Shown) -> Table:
    """Position | a | a train-mode row at the configured p (first mask; none at p = 1) | the eval row."""
    train = r.train_row is not None
    top = [note(book, "位置"), note(book, "原权重 a")]
    if train:
        mask = bits(book, "chosen[0].mask", r.masks[0], style.LABEL_SIZE)
        top.append(VGroup(note(book, "训练 p = {} · 掩码", p(book, r)), mask).arrange(RIGHT, buff=0.15))
    rows = [top + [note(book, "评估 · 有效 p = {}", p_eff, color=style.ACCENT)]]
    for i, w in enumerate(r.weights):
        kept = style.VALUE if r.masks[0][i] else style.MASK
        rows.append([num(book, f"position[{i}]", i, style.MUTED, 0), num(book, f"weights[{i}]", w),
                     *([num(book, f"train.row[{i}]", r.train_row[i], kept)] if train else []),
                     num(book, f"eval.row[{i}]", r.eval_row[i], style.ACCENT)])
    rows.append([note(book, "Σ", color=style.ACCENT), num(book, "weight_sum", r.weight_sum),
                 *([num(book, "train.sum", r.train_sum, style.ACCENT)] if train else []),
                 num(book, "eval.sum", r.eval_sum, style.ACCENT)])
    return Table(rows, row_h=0.56)


# ------------------------------------------------------------------ numbers seen being made
def worked(r: Any) -> tuple[int, int]:
    """Step 2's worked entry (mask k, position i): the first kept entry of the first mask that
    keeps one; else position 0 of the first mask, dropped."""
    return next(((k, i) for k, m in enumerate(r.masks) for i, keep in enumerate(m) if keep), (0, 0))


def entry_made(book: NumberBook, r: Any, t: Table, mode: Mobject, k: int, i: int) -> Derivation:
    """chosen[k].row[i] = m · a · 1/(1−p) (the scale from the mode line), or a dropped bit → 0."""
    cells = t.cells[k + 2]
    bit, result = term(book, cells[0][i]), term(book, cells[i + 1])
    if not r.masks[k][i]:
        return Derivation(Lone(cells[i + 1]), (0, 0), "keep", ["丢弃：m =", bit, "→", result])
    weight = term(book, t.cells[1][i + 1])
    scale = Term("scale", r.scale, short([r.scale]), at=mode)
    return Derivation(Lone(cells[i + 1]), (0, 0), "keep", [bit, "·", weight, "·", scale, "=", result])


def sum_made(book: NumberBook, t: Table, row: int, n: int) -> Derivation:
    """A row's sum from its entries."""
    cells = t.cells[row]
    return total(book, cells[n + 1], [term(book, cells[c + 1]) for c in range(n)], ex.room_for(t))


def mean_entry(r: Any) -> int:
    """Step 3's worked position: the first whose weight is not 0 (a 0 stays 0 under every mask)."""
    return int(next(i for i, w in enumerate(r.weights) if w > 0))


def mean_made(book: NumberBook, r: Any, t: Table) -> Derivation:
    """mean_row[i] = Σ P(m)·row[i] over the masks the table lists ("+ …" when it lists fewer)."""
    i, n, mean = mean_entry(r), len(r.weights), t.n_rows - 2
    pairs = [(term(book, t.cells[row][n + 2]), term(book, t.cells[row][i + 1]))
             for row in range(1, len(r.ranked) + 1)]
    return listed_sum(book, t.cells[mean][i + 1], pairs, ex.room_for(t), len(r.ranked) == len(r.table.masks))
