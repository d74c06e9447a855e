"""4.6 dropout 并不保持每行权重和恰好为 1: one mask at a time, every mask, sampling, eval mode."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for plain `manim` runs

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, ReplacementTransform,
                   VGroup)

from scenes.kit.anim import Appear, Vanish
from scenes.compute import dropout as compute
from scenes.kit import style
from scenes.clips import dropout_parts as parts
from scenes.kit.base import ClipScene
from scenes.pipeline.inputs import InputError, integer, number, vector
from scenes.pipeline.registry import Clip, Option
from scenes.clips.dropout_parts import DECIMALS, RowTable, bits, text
from scenes.kit.layout import content_height, content_width, fit, frame

PAGE = 8              # masks per page of the enumeration (64 masks for six weights: 8 pages)
FIRST_SAMPLES = 8     # sampled masks listed one by one
TOP_Y = 2.75          # the mode line, under the title
LEFT_X, RIGHT_X = -0.3, 0.2   # sampling step: panel centres, as shares of the content width


def right_edge() -> float:
    """The content area's right edge: half the frame's width less the margin."""
    return frame()["width"] / 2 - style.FRAME_MARGIN


def rules(raw: dict) -> dict:
    mode = str(raw.get("mode", "train"))
    if mode not in ("train", "eval"):
        raise InputError("mode", mode, "must be train or eval")
    weights = vector(raw["weights"], "weights", size=(1, 6), low=0, high=1)
    if abs(weights.sum() - 1) > 1e-6:
        raise InputError("weights", str(raw["weights"]),
                         "must sum to 1 (within 1e-6): give the row after softmax")
    p = number(raw.get("p", 0.5), "p")
    if not 0 <= p <= 1:
        raise InputError("p", str(raw.get("p")), "must lie in [0, 1)")
    if p == 1 and mode == "train":
        raise InputError("p", str(raw.get("p")), "p = 1 in train mode drops everything "
                                                  "and 1/(1-p) divides by zero: use p < 1")
    masks = []
    text = raw.get("masks")
    if text is None:   # the lab's 101,010,001,000 for three weights, any length alike:
        n = len(weights)  # alternate entries kept, the others, only the last, none
        rows = ["".join("10"[i % 2] for i in range(n)), "".join("01"[i % 2] for i in range(n)),
                "0" * (n - 1) + "1", "0" * n]
        text = ",".join(dict.fromkeys(rows))
    parts = text if isinstance(text, (list, tuple)) else str(text).split(",")
    for bits in (str(b).strip() for b in parts):
        if not re.fullmatch(r"[01]+", bits) or len(bits) != len(weights):
            raise InputError("masks", str(text), f"each mask is {len(weights)} bits of 0/1 "
                                                 "(bit i keeps entry i), comma-separated")
        masks.append(np.array([c == "1" for c in bits]))
    if len(masks) > 8:
        raise InputError("masks", str(text), "at most 8 masks")
    return {"weights": weights, "p": p, "mode": mode, "masks": masks,
            "samples": integer(raw.get("samples", 200), "samples", 1, 200),
            "seed": integer(raw.get("seed", 0), "seed", 0, 2**31 - 1)}


class Dropout(ClipScene):
    spec = Clip(
        name="dropout", section="4.6", title="dropout 并不保持每行权重和恰好为一",
        summary="4.6 dropout：单次结果与期望，训练与评估",
        rules=rules,
        defaults={"weights": "0.2 0.3 0.5", "p": 0.5, "mode": "train", "samples": 200, "seed": 0},
        options=(
            Option('weights', "one row after softmax, e.g. '0.2 0.3 0.5'"),
            Option('p', 'drop probability'),
            Option('mode', 'train or eval'),
            Option('masks', 'explicit masks, e.g. 101,010 (bit i keeps entry i)'),
            Option('samples', 'number of sampled masks'),
            Option('seed', 'sampling seed'),
        ),
    )

    def compute(self):
        i = self.inputs
        self.one = self.book.fmt("formula.one", 1, 0)     # the 1 of 1/(1-p)
        self.zero = self.book.fmt("formula.zero", 0, 0)
        return compute.dropout_lesson(i["weights"], i["p"], i["mode"], i["masks"],
                                      i["samples"], i["seed"])

    def construct(self):
        self.show_row()
        self.one_mask_at_a_time()
        self.every_mask()
        self.sampling()
        self.eval_mode()
        self.end()

    # -- helpers
    def num(self, label, value, color=style.TEXT, decimals=DECIMALS):
        return self.book.num(label, value, decimals, color=color)

    def word(self, template, *slots, color=style.MUTED, size=style.LABEL_SIZE):
        """Words from a digit-free template; numbers only through the book's slots."""
        return text(self.book, template, *slots, color=color, size=size)

    def positions(self):
        return [self.book.index(f"position[{i}]", i) for i in range(len(self.result.weights))]

    def mode_line(self):
        return parts.mode_line(self.book, self.result, self.one).move_to([0, TOP_Y, 0])

    def kept(self, keep):
        """Kept entries in the value colour, dropped in the mask colour (eval drops nothing)."""
        return style.VALUE if keep or self.result.mode == "eval" else style.MASK

    def scaled_header(self):
        return self.word("m·a/({}−p)", self.one)

    # -- step 1
    def show_row(self):
        r = self.result
        total = self.book.fmt("weight_sum", r.weight_sum, DECIMALS)
        self.step("softmax 之后的一行权重：dropout 之前，行和为 {}。", total)
        t, header = self.layout_row()
        self.play(Appear(header), Appear(t.col(0)), Appear(t.col(1)), Create(t.rule(1, 0, 1)),
                  Create(t.rule(t.n_rows - 1, 0, 1)))
        self.play(FadeIn(self.row_bars, shift=UP * 0.3))

    def layout_row(self):
        """The row table (left, later with the mask columns), the history (right), the bars."""
        r = self.result
        t = self.row_table = self.build_row_table()
        h = self.history = self.history_table()
        zoom = min((content_width() - 0.9) / (t.width + h.width + 1.2),
                   (content_height() - 1.15) / max(t.height, h.height), 1.3)
        both = VGroup(t.scale(zoom), h.scale(zoom)).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        both.move_to([0, -0.2, 0])
        self.row_bars = VGroup(*parts.value_bars(self.book, "weights_bar", r.weights,
                                                 2.4 / float(r.weights.max()), DECIMALS, 1.35,
                                                 self.positions())[::2])
        room = [t.col(1).get_right()[0] + 0.8, right_edge() - 0.15]     # right of the columns shown so far
        fit(self.row_bars, room[1] - room[0], 4.0).align_to(t, DOWN)
        self.row_bars.set_x(min(h.get_x(), room[1] - self.row_bars.width / 2))
        top = VGroup(both, self.row_bars).get_top()[1]
        return t, self.mode_line().set_y(min(TOP_Y, top + 0.5))

    def build_row_table(self):
        r = self.result
        rows = [[self.word("位置"), self.word("原权重 a"), self.word("掩码 m"), self.scaled_header()]]
        rows += [[self.num(f"position[{i}]", i, style.MUTED, 0), self.num(f"weights[{i}]", w), None, None]
                 for i, w in enumerate(r.weights)]
        rows.append([self.word("Σ", color=style.ACCENT), self.num("weight_sum", r.weight_sum, style.ACCENT),
                     None, None])
        self.mask_cells = [self.mask_column(k) for k in range(len(r.masks))]
        widths = parts.column_widths([rows] + [c for c in self.mask_cells], 4)
        table = RowTable(rows, widths, row_h=0.56)
        for cells in self.mask_cells:
            for i, row in enumerate(cells, 1):
                for c, mob in enumerate(row):
                    if mob is not None:
                        mob.move_to(table.anchors[i][c])
                        table.add(mob)   # scaled with the table, shown mask by mask
        return table

    def mask_column(self, k):
        """Mask k's bits and its row, as rows of the table (columns 2 and 3)."""
        r = self.result
        cells = []
        for i, keep in enumerate(r.masks[k]):
            bit = self.book.num(f"chosen[{k}].mask[{i}]", int(keep), 0,
                                color=parts.bit_color(keep, r.mode == "eval"))
            cells.append([None, None, bit, self.num(f"chosen[{k}].row[{i}]", r.rows[k][i], self.kept(keep))])
        cells.append([None, None, None, self.num(f"chosen[{k}].sum", r.sums[k], style.ACCENT)])
        return cells

    # -- step 2
    def one_mask_at_a_time(self):
        r, book = self.result, self.book
        if r.mode == "eval":
            self.step("评估模式有效 p = {}：不丢弃任何项，所选掩码不起作用，行保持原样。",
                      book.fmt("p_eff", r.p_eff, 0))
        else:
            self.step("保留项乘以 {}/({}−p)，丢弃项为 {}：单次结果的行和可以大于、小于或等于 {}。",
                      self.one, self.one, self.zero, self.one)
        t, history = self.row_table, self.history
        self.play(Vanish(self.row_bars), Appear(t.cells[0][2]), Appear(t.cells[0][3]),
                  Create(t.rule(1, 2, 3)), Create(t.rule(t.n_rows - 1, 2, 3)),
                  Appear(history.row(0)), Create(history.rule(1)))
        shown = None
        for k, cells in enumerate(self.mask_cells):
            group = VGroup(*[m for row in cells for m in row if m is not None])
            self.play(Appear(group) if shown is None else ReplacementTransform(shown, group),
                      run_time=0.6)
            self.play(FadeIn(history.row(k + 1), shift=LEFT * 0.2), run_time=0.4)
            self.wait(0.4)
            shown = group

    def history_table(self):
        r = self.result
        rows = [[self.word("掩码"), self.word("行和"), self.word("概率 P(m)")]]
        rows += [[bits(self.book, f"chosen[{k}].mask", m, ignored=r.mode == "eval"),
                  self.num(f"chosen[{k}].sum", r.sums[k], style.ACCENT),
                  self.num(f"chosen[{k}].prob", r.probs[k])] for k, m in enumerate(r.masks)]
        return RowTable(rows, row_h=0.56)

    # -- step 3
    def every_mask(self):
        r, book = self.result, self.book
        count = book.index("mask_count", len(r.table.masks))
        total = book.fmt("expected_sum", r.table.expected_sum, DECIMALS)
        if r.mode == "eval":
            self.step("有效 p = {}：全部 {} 个掩码中只有全保留的概率为 {}，行和期望为 {}。",
                      book.fmt("p_eff", r.p_eff, 0), count,
                      book.fmt("table[0].prob", r.table.probs[0], DECIMALS), total)
        else:
            self.step("全部 {} 个掩码按概率加权：每项的期望等于原权重，行和的期望为 {}。", count, total)
        self.clear_stage()
        pages = self.mask_pages()
        summary = self.summary_rows()
        n_cols = len(r.weights) + 3
        head = [self.word("掩码"), self.word("P(m)"), *[self.word(s) for s in self.positions()],
                self.word("行和")]
        rows = [head, *pages[0], *summary]
        table = RowTable(rows, parts.column_widths([rows, *pages], n_cols), row_h=0.44,
                      col_gap=0.35 if n_cols < 8 else 0.22)
        note = self.word("共 {} 个掩码" + (" · 分页显示" if len(pages) > 1 else ""), count,
                         color=style.ACCENT)
        fit(VGroup(table, note).arrange(UP, buff=0.25), content_width() - 0.5, content_height() - 0.35, 1.3).move_to([0, 0.1, 0])
        top = len(rows) - len(summary)
        self.play(Appear(note), Appear(table.row(0)), Create(table.rule(1)))
        shown = VGroup(*[table.row(i) for i in range(1, 1 + len(pages[0]))])
        self.play(Appear(shown), run_time=0.6)
        for page in pages[1:]:
            nxt = VGroup(*[table.put(m, i, c) for i, row in enumerate(page, 1)
                           for c, m in enumerate(row) if m is not None])
            self.wait(0.5)
            self.play(Vanish(shown), Appear(nxt), run_time=0.5)
            shown = nxt
        self.play(Create(table.rule(top)), Appear(table.row(top)), Appear(table.row(top + 1)))
        self.play(Create(table.band([top, top + 1])))

    def mask_pages(self):
        t = self.result.table
        rows = []
        for k, m in enumerate(t.masks):
            cells = [self.num(f"table[{k}].row[{i}]", v, style.VALUE if m[i] else style.MASK)
                     for i, v in enumerate(t.rows[k])]
            rows.append([bits(self.book, f"table[{k}].mask", m),
                         self.num(f"table[{k}].prob", t.probs[k]), *cells,
                         self.num(f"table[{k}].sum", t.sums[k], style.ACCENT)])
        return [rows[a:a + PAGE] for a in range(0, len(rows), PAGE)]

    def summary_rows(self):
        r, t = self.result, self.result.table
        mean = [self.num(f"mean_row[{i}]", v, style.TRACK) for i, v in enumerate(t.mean_row)]
        orig = [self.num(f"weights[{i}]", v) for i, v in enumerate(r.weights)]
        return [[self.word("期望 Σ P·行", color=style.TRACK), self.num("prob_total", r.prob_total, style.TRACK),
                 *mean, self.num("expected_sum", t.expected_sum, style.TRACK)],
                [self.word("原权重 a", color=style.TEXT), None, *orig, self.num("weight_sum", r.weight_sum)]]

    # -- step 4
    def sampling(self):
        r, book = self.result, self.book
        self.step("评估模式不丢弃：每次“采样”都全部保留，逐项平均就是原权重。" if r.mode == "eval"
                  else "按 nn.Dropout 的语义随机抽取掩码：采样越多，逐项平均越接近原权重。")
        self.clear_stage()
        seed = self.word("seed = {} · 前几次采样", book.index("seed", self.inputs["seed"]))
        left = VGroup(seed, self.sample_table()).arrange(DOWN, buff=0.3)
        fit(left, content_width() / 2 - 2, content_height() - 0.95, 1.15)
        left.move_to([LEFT_X * content_width(), -0.3, 0])
        (rects, nums), count, rest = self.running_mean_panel()
        self.play(Appear(self.mode_line()), Appear(left))
        self.play(Appear(rects), Appear(nums), Appear(count), Appear(rest))
        for j in range(1, len(r.checkpoints)):
            rects_j, nums_j = self.bars_at(j)[0]
            count_j = self.counter(j).move_to(count)
            self.play(ReplacementTransform(rects, rects_j), Vanish(nums), Appear(nums_j),
                      Vanish(count), Appear(count_j), run_time=0.6)
            rects, nums, count = rects_j, nums_j, count_j
            self.wait(0.3)

    def running_mean_panel(self):
        """Bars of the running mean after the first checkpoint, the targets, the counter."""
        r = self.result
        self.unit = 3.0 / max(float(r.checkpoint_means.max()), float(r.weights.max()))
        self.spacing = min(1.3, content_width() / 2 / len(r.weights))
        shown, targets, base = self.bars_at(0)
        count = self.counter(0)
        legend = self.word("虚线：原权重 a", color=style.TRACK)
        VGroup(count, legend).arrange(RIGHT, buff=0.5).move_to([RIGHT_X * content_width(), 1.75, 0])
        return shown, count, VGroup(base, targets, legend)

    def counter(self, j):
        c = self.book.index(f"checkpoint[{j}]", self.result.checkpoints[j])
        return self.word("已采样 {} 次：逐项平均", c, color=style.TEXT, size=style.BODY_SIZE)

    def bars_at(self, j):
        """(bars, their numbers), targets, base: placed in the right half."""
        r = self.result
        group, targets, base = parts.value_bars(
            self.book, f"running_mean@{r.checkpoints[j]}", r.checkpoint_means[j], self.unit,
            parts.MEAN_DECIMALS, self.spacing, self.positions() if j == 0 else (), targets=r.weights)
        shift = [RIGHT_X * content_width(), -2.1, 0] - base[0].get_center()
        rects, nums = VGroup(*[g[0] for g in group]), VGroup(*[g[1] for g in group])
        return (rects.shift(shift), nums.shift(shift)), targets.shift(shift), base.shift(shift)

    def sample_table(self):
        r, s = self.result, self.result.sampled
        rows = [[self.word("样本"), self.word("掩码"), self.word("行和")]]
        rows += [[self.num(f"sample[{k}]", k, style.MUTED, 0), bits(self.book, f"sample[{k}].mask", m),
                  self.num(f"sample[{k}].sum", r.sample_sums[k], style.ACCENT)]
                 for k, m in enumerate(s.masks[:FIRST_SAMPLES])]
        table = RowTable(rows, row_h=0.52)
        return VGroup(table, table.rule(1))

    # -- step 5
    def eval_mode(self):
        r, book = self.result, self.book
        p_eff = book.fmt("eval.p_eff", r.eval_p, 0)
        self.step("评估模式关闭 dropout：有效 p = {}，权重保持原样；原先为 {} 的权重仍为 {}。",
                  p_eff, self.zero, self.zero)
        self.clear_stage()
        table = self.eval_table(p_eff)
        rule = self.word("原权重为 {}：m × {} / ({}−p) = {}，保留或丢弃都仍为 {}", self.zero, self.zero,
                         self.one, self.zero, self.zero, color=style.TRACK, size=style.BODY_SIZE)
        note = self.word("nn.Dropout 服从 model.eval()；要检查 softmax 的行和，应在 dropout 之前检查")
        fit(VGroup(table, rule, note).arrange(DOWN, buff=0.45), content_width() - 0.5,
            content_height() - 0.75, 1.3).move_to([0, -0.35, 0])
        body = range(1, table.n_rows)
        self.play(Appear(self.mode_line()), Appear(table.row(0)), Create(table.rule(1)),
                  Appear(table.col(0, body)), Appear(table.col(1, body)), Create(table.rule(table.n_rows - 1)))
        for c in range(2, table.n_cols):
            self.play(FadeIn(table.col(c, body), shift=LEFT * 0.2), run_time=0.6)
        zeros = [table.band([i + 1], style.TRACK) for i in r.zeros]
        self.play(Appear(rule), *[Create(z) for z in zeros])
        self.play(Appear(note))

    def eval_table(self, p_eff):
        r, book = self.result, self.book
        head = [self.word("位置"), self.word("原权重 a")]
        if r.train_row is not None:
            p = book.fmt("p", r.p, parts.short([r.p]))
            head.append(VGroup(self.word("训练 p = {} · 掩码", p),
                               bits(book, "chosen[0].mask", r.masks[0], style.LABEL_SIZE))
                        .arrange(RIGHT, buff=0.15))
        head.append(self.word("评估 · 有效 p = {}", p_eff, color=style.ACCENT))
        rows = [head]
        for i, w in enumerate(r.weights):
            row = [self.num(f"position[{i}]", i, style.MUTED, 0), self.num(f"weights[{i}]", w)]
            if r.train_row is not None:
                v = r.train_row[i]
                row.append(self.num(f"train.row[{i}]", v, style.VALUE if r.masks[0][i] else style.MASK))
            rows.append(row + [self.num(f"eval.row[{i}]", r.eval_row[i], style.ACCENT)])
        last = [self.word("Σ", color=style.ACCENT), self.num("weight_sum", r.weight_sum)]
        if r.train_row is not None:
            last.append(self.num("train.sum", r.train_sum, style.ACCENT))
        rows.append(last + [self.num("eval.sum", r.eval_sum, style.ACCENT)])
        return RowTable(rows, row_h=0.56)
