"""Builders for the dropout clip: mask bit strings, aligned tables of rows, bars, and the
rows each step shows (a mixin for the scene).

Every number goes through the NumberBook; nothing here computes a drawn value.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import DOWN, RIGHT, DashedLine, Line, Mobject, Rectangle, VGroup, VectorizedPoint

from scenes.kit import style
from scenes.kit.numbers import NumberBook, Shown

DECIMALS = 6          # the lab's table shows six decimals
MEAN_DECIMALS = 4     # a sampled running mean: 4 decimals, as the rest of the chapter


def short(values: Sequence[float]) -> int:
    """Fewest decimals that show p or 1/(1-p) exactly (0.5, 2, 1.25), else 6."""
    return style.decimals_for(values, (0, 1, 2, 3, 4, 6))


def bit_color(keep: bool, ignored: bool = False) -> str:
    """Kept bits plain, dropped bits in the mask colour; all muted where the mask is ignored (eval)."""
    return style.MUTED if ignored else style.TEXT if keep else style.MASK


def bits(book: NumberBook, label: str, mask: Sequence[bool], size: float = style.NUMBER_SIZE,
         ignored: bool = False) -> VGroup:
    """A mask as its bit string ('101'), one recorded digit per bit."""
    digits = [book.num(f"{label}[{i}]", int(b), 0, size=size, color=bit_color(b, ignored))
              for i, b in enumerate(mask)]
    pitch = max(d.width for d in digits) + 0.06
    for i, d in enumerate(digits):
        d.move_to([i * pitch, 0, 0])
    return VGroup(*digits)


def text(book: NumberBook, template: str, *slots: Shown, color: str = style.TEXT,
         size: float = style.BODY_SIZE, **named: Shown) -> Mobject:
    """Words from a digit-free template whose slots ({} or named) the book filled."""
    return book.text(template, *slots, color=color, size=size, **named)


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
    if r.sampled.masks.all():
        return ALL_KEPT[(r.mode, len(r.sample_sums) > 1)], {"draws": last}
    if len(r.checkpoints) == 1:
        return "按 nn.Dropout 的语义随机抽取掩码：只采样一次，“平均”就是这一次的行。", {}
    if r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
        return "按 nn.Dropout 的语义随机抽取掩码：采样越多，逐项平均越接近原权重。", {}
    gap = book.fmt(f"gap[{len(r.checkpoints) - 1}]", r.checkpoint_gaps[-1], MEAN_DECIMALS)
    return "按 nn.Dropout 的语义随机抽取掩码：{draws} 次采样后，逐项平均与原权重最多相差 {gap}。", {"draws": last, "gap": gap}


class RowTable(VGroup):
    """Cells in aligned columns, one row height; `put` places a later cell in a slot.

    rows: lists of Mobjects (None leaves a slot empty). `widths` may be given when
    cells that arrive later are wider than these.
    """

    def __init__(self, rows: list[list[Mobject | None]], widths: list[float] | None = None,
                 col_gap: float = 0.45, row_h: float = 0.5) -> None:
        super().__init__()
        n_cols = max(len(r) for r in rows)
        widths = widths or column_widths([rows], n_cols)
        xs, x = [], 0.0
        for w in widths:
            xs.append(x + w / 2)
            x += w + col_gap
        self.widths, self.col_gap = widths, col_gap
        self.anchors = [[VectorizedPoint([xs[c], -i * row_h, 0]) for c in range(n_cols)]
                        for i in range(len(rows))]
        self.ruler = Line([0, 0, 0], [1, 0, 0]).set_opacity(0)   # tracks the table's scale
        self.add(self.ruler, *[a for row in self.anchors for a in row])
        self.cells: list[list[Mobject | None]] = [[None] * n_cols for _ in rows]
        self.row_h, self.n_rows, self.n_cols = row_h, len(rows), n_cols
        for i, row in enumerate(rows):
            for c, mob in enumerate(row):
                if mob is not None:
                    self.cells[i][c] = mob.move_to(self.anchors[i][c])
                    self.add(mob)

    def zoom(self) -> float:
        return self.ruler.get_length()

    def row(self, i: int) -> VGroup:
        return VGroup(*[m for m in self.cells[i] if m is not None])

    def rows(self, first: int, last: int) -> VGroup:
        return VGroup(*[self.row(i) for i in range(first, last)])

    def col(self, c: int, rows: Sequence[int] | None = None) -> VGroup:
        rows = range(self.n_rows) if rows is None else rows
        return VGroup(*[self.cells[i][c] for i in rows if self.cells[i][c] is not None])

    def x(self, c: int) -> float:
        return float(self.anchors[0][c].get_center()[0])

    def y(self, i: int) -> float:
        return float(self.anchors[i][0].get_center()[1])

    def rule(self, i: int, first: int = 0, last: int | None = None, color: str = style.GRID_LINE) -> Line:
        """A line between row i-1 and row i, under columns first..last."""
        last = self.n_cols - 1 if last is None else last
        z = self.zoom()
        y = self.y(i) + self.row_h * z / 2
        left = self.x(first) - (self.widths[first] + self.col_gap) * z / 2
        right = self.x(last) + (self.widths[last] + self.col_gap) * z / 2
        return Line([left, y, 0], [right, y, 0], color=color, stroke_width=2)

    def band(self, rows: Sequence[int], color: str = style.TRACK) -> Rectangle:
        """A frame around whole rows (e.g. the expectation and the original row)."""
        half = self.row_h * self.zoom() / 2
        top, bottom = self.y(rows[0]) + half, self.y(rows[-1]) - half
        left = self.x(0) - (self.widths[0] + self.col_gap) * self.zoom() / 2
        right = self.x(self.n_cols - 1) + (self.widths[-1] + self.col_gap) * self.zoom() / 2
        box = Rectangle(width=right - left, height=top - bottom, stroke_color=color, stroke_width=3)
        return box.move_to([(left + right) / 2, (top + bottom) / 2, 0])


def column_widths(tables: list[list[list[Mobject | None]]], n_cols: int) -> list[float]:
    """The widest cell of each column over several row lists."""
    widths = [0.0] * n_cols
    for rows in tables:
        for row in rows:
            for c, mob in enumerate(row):
                if mob is not None:
                    widths[c] = max(widths[c], mob.width)
    return widths


def mode_line(book: NumberBook, r: Any) -> Mobject:
    """Train: p and the scale 1/(1-p); eval: the configured p is ignored, effective p = 0."""
    p = book.fmt("p", r.p, short([r.p]))
    if r.mode == "eval":
        return text(book, "评估模式 · 配置的 p = {p} 被忽略 · 有效 p = {p_eff}", p=p, p_eff=book.fmt("p_eff", r.p_eff, 0),
                    color=style.ACCENT, size=style.LABEL_SIZE)
    one = book.fmt("formula.one", 1, 0)
    return text(book, "训练模式 · p = {p} · 保留项 × {one}/({one}−p) = {scale}", p=p, one=one,
                scale=book.fmt("scale", r.scale, short([r.scale])), color=style.ACCENT, size=style.LABEL_SIZE)


def plain_bars(values: Sequence[float], xs: Sequence[float], unit: float, width: float) -> VGroup:
    """Bars standing on y = 0 at the given x positions (no numbers)."""
    return VGroup(*[Rectangle(width=width, height=max(float(v) * unit, 1e-3), fill_color=style.VALUE,
                              fill_opacity=0.85, stroke_width=0).move_to([x, 0, 0], aligned_edge=DOWN)
                    for v, x in zip(values, xs)])


def targets(values: Sequence[float], xs: Sequence[float], unit: float, width: float) -> VGroup:
    """Dashed marks at the original weights, drawn over the bars."""
    return VGroup(*[DashedLine([x - width / 2 - 0.15, float(v) * unit, 0], [x + width / 2 + 0.15, float(v) * unit, 0],
                               dash_length=0.1, color=style.TRACK, stroke_width=5).set_z_index(2)
                    for v, x in zip(values, xs)])


class Rows:
    """The tables each step shows, built from the scene's result (a mixin for the clip)."""
    book: NumberBook
    result: Any

    def num(self, label: str, value: Any, color: str = style.TEXT, decimals: int = DECIMALS) -> Mobject:
        return self.book.num(label, value, decimals, color=color)

    def word(self, template: str, *slots: Shown, color: str = style.MUTED, size: float = style.LABEL_SIZE,
             **named: Shown) -> Mobject:
        """Words from a digit-free template; numbers only through the book's slots."""
        return text(self.book, template, *slots, color=color, size=size, **named)

    def positions(self) -> list[Shown]:
        return [self.book.index(f"position[{i}]", i) for i in range(len(self.result.weights))]

    def head(self, first: str) -> list[Mobject | None]:
        return [self.word(first), *[self.word("{}", s) for s in self.positions()], self.word("行和"),
                self.word("P(m)")]

    def weights_row(self) -> list[Mobject | None]:
        r = self.result
        return [self.word("原权重 a", color=style.TEXT), *[self.num(f"weights[{i}]", w) for i, w in enumerate(r.weights)],
                self.num("weight_sum", r.weight_sum, style.ACCENT), None]

    def mask_row(self, prefix: str, mask: Sequence[bool], row: Sequence[float], total: float, prob: float,
                 applied: bool = True) -> list[Mobject | None]:
        """[bits | each entry | row sum | P(m)]; dropped entries in the mask colour where the mask applies."""
        cells = [self.num(f"{prefix}.row[{i}]", v, style.VALUE if keep or not applied else style.MASK)
                 for i, (keep, v) in enumerate(zip(mask, row))]
        return [bits(self.book, f"{prefix}.mask", mask, ignored=not applied), *cells,
                self.num(f"{prefix}.sum", total, style.ACCENT), self.num(f"{prefix}.prob", prob)]

    def chosen_table(self) -> RowTable:
        """Positions, the original row, then each chosen mask's row (steps 1 and 2)."""
        r = self.result
        rows = [self.head("位置"), self.weights_row()]
        rows += [self.mask_row(f"chosen[{k}]", m, r.rows[k], r.sums[k], r.probs[k], r.mode != "eval")
                 for k, m in enumerate(r.masks)]
        return RowTable(rows, row_h=0.56, col_gap=0.45 if len(r.weights) <= 3 else 0.3)

    def every_table(self) -> RowTable:
        """The listed masks, the others together, the expectation and the original row (step 3)."""
        r, t = self.result, self.result.table
        n = len(r.weights)
        rows = [self.head("掩码")]
        rows += [self.mask_row(f"table[{k}]", t.masks[k], t.rows[k], t.sums[k], t.probs[k]) for k in r.ranked]
        if len(r.ranked) < len(t.masks):
            rest = self.book.index("rest_count", len(t.masks) - len(r.ranked))
            rows.append([self.word("其余 {} 个", rest), *[None] * (n + 1), self.num("rest_prob", r.rest_prob)])
        mean = [self.num(f"mean_row[{i}]", v, style.TRACK) for i, v in enumerate(t.mean_row)]
        rows.append([self.word("期望 Σ P·行", color=style.TRACK), *mean,
                     self.num("expected_sum", t.expected_sum, style.TRACK),
                     self.num("prob_total", r.prob_total, style.TRACK)])
        rows.append(self.weights_row())
        return RowTable(rows, row_h=0.44, col_gap=0.35 if n < 5 else 0.25)

    def sample_table(self, listed: int) -> RowTable:
        r = self.result
        rows = [[self.word("样本"), self.word("掩码"), self.word("行和")]]
        rows += [[self.num(f"sample[{k}]", k, style.MUTED, 0), bits(self.book, f"sample[{k}].mask", m),
                  self.num(f"sample[{k}].sum", r.sample_sums[k], style.ACCENT)]
                 for k, m in enumerate(r.sampled.masks[:listed])]
        return RowTable(rows, row_h=0.52)

    def checkpoint_table(self) -> RowTable:
        """After how many draws, and how far the running mean then is from the row at most."""
        r = self.result
        rows = [[self.word("已采样"), self.word("最大 |平均−a|")]]
        rows += [[self.num(f"checkpoint[{j}]", c, style.TEXT, 0), self.num(f"gap[{j}]", g, style.ACCENT, MEAN_DECIMALS)]
                 for j, (c, g) in enumerate(zip(r.checkpoints, r.checkpoint_gaps))]
        return RowTable(rows, row_h=0.52)

    def eval_table(self, p_eff: Shown) -> RowTable:
        """Position | a | a train-mode row at the configured p (first mask) | the eval row."""
        r, book = self.result, self.book
        head = [self.word("位置"), self.word("原权重 a")]
        if r.train_row is not None:
            p = book.fmt("p", r.p, short([r.p]))
            head.append(VGroup(self.word("训练 p = {} · 掩码", p),
                               bits(book, "chosen[0].mask", r.masks[0], style.LABEL_SIZE)).arrange(RIGHT, buff=0.15))
        head.append(self.word("评估 · 有效 p = {}", p_eff, color=style.ACCENT))
        rows = [head]
        for i, w in enumerate(r.weights):
            row = [self.num(f"position[{i}]", i, style.MUTED, 0), self.num(f"weights[{i}]", w)]
            if r.train_row is not None:
                color = style.VALUE if r.masks[0][i] else style.MASK
                row.append(self.num(f"train.row[{i}]", r.train_row[i], color))
            rows.append(row + [self.num(f"eval.row[{i}]", r.eval_row[i], style.ACCENT)])
        last = [self.word("Σ", color=style.ACCENT), self.num("weight_sum", r.weight_sum)]
        if r.train_row is not None:
            last.append(self.num("train.sum", r.train_sum, style.ACCENT))
        rows.append(last + [self.num("eval.sum", r.eval_sum, style.ACCENT)])
        return RowTable(rows, row_h=0.56)


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


class Spoken:
    """Shared slots (1, 0, p, 1/(1-p) as drawn) and what is said in steps 4 and 5 (a mixin)."""
    book: NumberBook
    result: Any
    narrate: Any

    @property
    def one(self) -> Shown:
        """The 1 of 1/(1-p) and of "row sums to 1", recorded where it is drawn."""
        return self.book.fmt("formula.one", 1, 0)

    @property
    def zero(self) -> Shown:
        return self.book.fmt("formula.zero", 0, 0)

    def p(self) -> Shown:
        return self.book.fmt("p", self.result.p, short([self.result.p]))

    def scale(self) -> Shown:
        """1/(1-p) as the mode line draws it (train mode only)."""
        return self.book.fmt("scale", self.result.scale, short([self.result.scale]))

    def narrate_sampling(self, last: Shown) -> None:
        """Step 4: all kept (eval, p = 0, or by chance), one draw, the gap shrank, or it did not."""
        r, book, say = self.result, self.book, NARRATION
        gaps = [book.fmt(f"gap[{j}]", g, MEAN_DECIMALS) for j, g in enumerate(r.checkpoint_gaps)]
        if r.sampled.masks.all():
            if r.mode == "eval":
                self.narrate(say["sample.eval"], last)
            elif r.p == 0:
                self.narrate(say["sample.none"], p=self.p(), draws=last)
            else:
                self.narrate(say["sample.lucky"], p=self.p(), draws=last, scale=self.scale())
        elif len(r.checkpoints) == 1:
            self.narrate(say["sample.once"], scale=self.scale(), gap=gaps[0])
        elif r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
            self.narrate(say["sample.closer"], first_gap=gaps[0], draws=last, gap=gaps[-1])
        else:
            self.narrate(say["sample.stuck"], self.scale())

    def narrate_eval(self) -> None:
        """Step 5: with or without the train column (p = 1 in eval mode), with or without zeros."""
        r, book = self.result, self.book
        slots = {"zero": self.zero}
        case = "eval.only" if r.train_row is None else "eval.train"
        if r.train_row is not None:
            slots["train_sum"] = book.fmt("train.sum", r.train_sum, DECIMALS)
        if r.zeros:
            slots["positions"] = positions(book, r.zeros)
        self.narrate(NARRATION[case + (".zeros" if r.zeros else ".check")], **slots)
