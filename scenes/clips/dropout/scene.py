"""4.6 dropout 并不保持每行权重和恰好为 1: one mask at a time, every mask, sampling, eval mode."""
from manim import DOWN, RIGHT, UP, Create, FadeIn, ReplacementTransform, Transform, VGroup

from scenes.clips.dropout import parts, words
from scenes.clips.dropout.words import DECIMALS, MEAN_DECIMALS, NARRATION, one, zero
from scenes.compute import dropout as compute
from scenes.kit.motion import derive, tables
from scenes.kit.text import stands, style
from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.scene.base import ClipScene
from scenes.kit.draw.columns import Table
from scenes.kit.motion.derive import Band
from scenes.kit.text.layout import content_height, content_width, fit
from scenes.kit.draw.notes import note
from scenes.kit.page.page import Area
from scenes.kit.draw.bars import marked, regrown
from scenes.kit.scene.inputs import InputError, bit_strings, integer, number, vector
from scenes.kit.scene.clip import Clip, Option

TOP_Y = 2.75          # the mode line, under the title


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
    text = raw.get("masks")
    if text is None:   # the lab's 101,010,001,000 for three weights, any length alike:
        n = len(weights)  # alternate entries kept, the others, only the last, none
        text = ",".join(dict.fromkeys([("10" * n)[:n], ("01" * n)[:n], "0" * (n - 1) + "1", "0" * n]))
    return {"weights": weights, "p": p, "mode": mode, "masks": bit_strings(text, "masks", len(weights)),
            "samples": integer(raw.get("samples", 200), "samples", 1, 200),
            "seed": integer(raw.get("seed", 0), "seed", 0, 2**31 - 1)}


class Dropout(ClipScene):
    spec = Clip(
        name="dropout", section="4.6", title="dropout 并不保持每行权重和恰好为 {}", title_consts=(1,),
        summary="4.6 dropout：单次结果与期望，训练与评估",
        rules=rules,
        defaults={"weights": "0.2 0.3 0.5", "p": 0.5, "mode": "train", "samples": 200, "seed": 0},
        options=(
            Option('weights', "one row after softmax, e.g. '0.2 0.3 0.5'"),
            Option('p', 'drop probability'),
            Option('mode', 'train or eval'),
            Option('masks', 'explicit masks, e.g. 101,010 (bit i keeps entry i)'),
            Option('samples', 'number of sampled masks'),
            Option('seed', 'sampling seed: numpy default_rng(seed), entry i of draw k kept '
                           'when random()[k, i] >= p'),
        ),
    )

    def compute(self) -> compute.DropoutLesson:
        i = self.inputs
        return compute.dropout_lesson(i["weights"], i["p"], i["mode"], i["masks"], i["samples"], i["seed"])

    def provenance(self) -> dict:
        return compute.provenance(self.result)

    def kinds(self) -> dict:
        return compute.KINDS

    def construct(self) -> None:
        self.storyboard(self.show_row, self.one_mask_at_a_time, self.every_mask, self.sampling, self.eval_mode)

    def mode_line(self):
        return parts.mode_line(self.book, self.result).move_to([0, TOP_Y, 0])

    # -- step 1
    def show_row(self) -> None:
        r, book = self.result, self.book
        self.mode = self.mode_line()
        total = book.fmt("weight_sum", r.weight_sum, DECIMALS)
        self.step("softmax 之后的一行权重：dropout 之前，行和为 {}。", total)
        line = ({"p_eff": book.fmt("p_eff", r.p_eff, 0)} if r.mode == "eval"     # the mode line's numbers
                else {"one": one(book), "scale": words.scale(book, r)})
        self.narrate(NARRATION["row." + r.mode], p=words.p(book, r), weight_sum=total, **line)
        t = self.rows_table = parts.chosen_table(book, r)      # step 2's table, placed now
        self.rows_note = (note(book, "评估模式：掩码不起作用，每行都是原权重 a") if r.mode == "eval" else
                          note(book, "每行：掩码 m 保留的项 × {one}/({one}−p)，丢弃的项为 {zero}", one=one(book),
                               zero=zero(book)))
        self.worked = parts.worked(r) if r.mode == "train" else (0, 0)
        self.made = (parts.entry_made(book, r, t, self.mode, *self.worked),
                     parts.sum_made(book, t, self.worked[0] + 2, len(r.weights))) if r.mode == "train" else ()
        self.band = self.place_rows(t)
        first = Table([parts.head(book, r, "位置")[:-1], parts.weights_row(book, r)[:-1]], row_h=0.56)
        tables.under(self.mode, first, Area(content_width() - 0.4, height=1.6, most=1.3))   # the row alone
        head, row, rule = self.first = (first.row(0), first.row(1), first.rule(1))
        self.row_bars = parts.weight_bars(r, first)
        self.play(Appear(self.mode), Appear(head), Appear(row), Create(rule))
        self.play(FadeIn(self.row_bars, shift=UP * 0.3))

    def place_rows(self, t: Table) -> Band | None:
        """Step 2's table under the mode line and the note under it; between them the room for
        the worked entry's expressions, where the table's numbers stay legible with it."""
        room = TOP_Y - style.CONTENT_BOTTOM - 0.9 - self.rows_note.height
        area = Area(content_width() - 0.4, height=room, most=1.3)
        page, band = tables.with_band(self.book, [t], self.made, area)
        tables.under(self.mode, page, area)
        fit(self.rows_note, content_width()).next_to(page, DOWN, buff=0.3)
        return band

    # -- step 2
    def one_mask_at_a_time(self) -> None:
        r, book = self.result, self.book
        if r.mode == "eval":
            self.step("评估模式有效 p = {}：不丢弃任何项，所选掩码不起作用，行保持原样。", book.fmt("p_eff", r.p_eff, 0))
            self.narrate(NARRATION["masks.eval"], words.p(book, r))
        else:
            self.step("保留项乘以 {one}/({one}−p)，丢弃项为 {zero}：{sums}", one=one(book), zero=zero(book),
                      sums=words.sums_against_one(book, r))
            case = "none" if r.p == 0 else "kept" if set(words.drawn_sums(book, r)) == {1.0} else "moved"
            self.narrate(NARRATION["masks." + case], one=one(book), zero=zero(book),
                         scale=words.scale(book, r), **({"p": words.p(book, r)} if r.p == 0 else {}))
        self.narrate("{}", words.made_says(book, r, *self.worked))
        t = self.rows_table
        head, row, rule = self.first
        band = None if not self.made else derive.room(self, VGroup(self.mode, t, self.rows_note), self.made,
                                                       self.band)
        self.play(Vanish(self.row_bars), ReplacementTransform(head, t.row(0)[:-1]),
                  ReplacementTransform(row, t.row(1)), ReplacementTransform(rule, t.rule(1, 0, t.n_cols - 2)))
        self.play(Appear(t.cells[0][-1]), Appear(self.rows_note), Create(t.rule(1)), Create(t.rule(2)))
        for k in range(len(r.masks)):
            if k == self.worked[0] and (band is not None or r.mode == "eval"):
                self.make_row(k, band)
                continue
            self.play(FadeIn(t.row(k + 2), shift=DOWN * 0.15), run_time=0.6)
            self.wait(0.4)

    def make_row(self, k: int, band: Band | None) -> None:
        """The worked mask's row made in front of the viewer: its bits and P(m), then the worked
        entry from its bit, weight and scale, the other entries at once, the row's sum from them
        (eval mode: every entry slides over from the original row)."""
        t, n = self.rows_table, len(self.result.weights)
        cells = t.cells[k + 2]
        self.play(Appear(cells[0]), Appear(cells[-1]), run_time=0.4)
        if band is None:
            derive.slide(self, [(cells[c + 1], t.cells[1][c + 1]) for c in range(n)], op="eval")
            self.play(Appear(cells[n + 1]), run_time=0.4)
            return
        derive.derive(self, self.made[0], band)
        self.play(*[Appear(cells[c + 1]) for c in range(n) if c != self.worked[1]], run_time=0.5)
        derive.derive(self, self.made[1], band)

    # -- step 3
    def every_mask(self) -> None:
        r, book = self.result, self.book
        count = book.index("mask_count", len(r.table.masks))
        total = book.fmt("expected_sum", r.table.expected_sum, DECIMALS)
        listed = len(r.ranked)
        if r.mode == "eval":
            self.step("有效 p = {p_eff}：只有全保留的掩码概率为 {prob}，行和期望为 {expected_sum}。",
                      p_eff=book.fmt("p_eff", r.p_eff, 0), expected_sum=total,
                      prob=book.fmt("table[0].prob", r.table.probs[0], DECIMALS))
            self.narrate(NARRATION["every.eval"], zero(book))
        else:
            self.step("全部 {count} 个掩码按概率加权：每项的期望等于原权重，行和的期望为 {expected_sum}。",
                      count=count, expected_sum=total)
            if r.p == 0:
                self.narrate(NARRATION["every.none"], p=words.p(book, r), zero=zero(book))
            elif listed < len(r.table.masks):
                self.narrate(NARRATION["every.many"], count=count, listed=book.index("listed_masks", listed),
                             one=one(book), expected_sum=total)
            else:
                self.narrate(NARRATION["every.train"], one=one(book), expected_sum=total,
                             prob_total=book.fmt("prob_total", r.prob_total, DECIMALS))
        self.narrate("{}", words.mean_says(book, r, parts.mean_entry(r)))
        self.clear_stage()
        table = parts.every_table(book, r)
        title = (note(book, "共 {} 个掩码", count, color=style.ACCENT) if listed == len(r.table.masks) else
                 note(book, "共 {count} 个掩码 · 列出概率最大的 {listed} 个", count=count,
                      listed=book.index("listed_masks", listed), color=style.ACCENT))
        made = parts.mean_made(book, r, table)
        area = Area(content_width(), height=content_height() - 0.2, most=1.3)
        page, band = tables.with_band(book, [title, table], [made], area)
        area.place(page)
        band = derive.room(self, page, [made], band)       # else by the caption line, else none
        summary = table.n_rows - 2
        self.play(Appear(title), Appear(table.row(0)), Create(table.rule(1)))
        self.play(Appear(table.rows(1, summary)), run_time=0.8)
        if band is None:
            self.play(Create(table.rule(summary)), Appear(table.rows(summary, table.n_rows)))
        else:           # the worked expectation from the listed masks, then the rest at once
            self.play(Create(table.rule(summary)), Appear(table.cells[summary][0]))
            derive.derive(self, made, band)
            rest = [c for row in table.cells[summary:] for c in row[1:]
                    if c is not None and c is not made.grid.entry]
            self.play(*[Appear(c) for c in rest + [table.cells[-1][0]]], run_time=0.6)
        self.play(Create(table.band([summary, summary + 1])))

    # -- step 4
    def sampling(self) -> None:
        r, book = self.result, self.book
        last = book.index(f"checkpoint[{len(r.checkpoints) - 1}]", r.checkpoints[-1])
        self.step("{}", words.sampling_caption(book, r, last))
        self.narrate("{}", words.sampling_says(book, r, last))
        self.clear_stage()
        listed = r.listed_samples
        what = "前 {} 次采样" if listed < len(r.sample_sums) else "全部 {} 次采样"
        seed = note(book, "seed = {seed} · {draws}", seed=book.index("seed", self.inputs["seed"]),
                    draws=book.compose(what, book.index("listed_samples", listed)))
        left = VGroup(seed, parts.sample_table(book, r, listed)).arrange(DOWN, buff=0.3)
        middle = parts.checkpoint_table(book, r)
        mean = f"running_mean@{r.checkpoints[-1]}"      # its bars, the dashed weights, the positions
        bars, marks, feet, numbers, unit = marked(book, mean, r.checkpoint_means[-1], r.weights,
                                                  parts.position_names(book, r), MEAN_DECIMALS, r.tallest)
        legend = note(book, "虚线：原权重 a", color=style.TRACK)
        right = VGroup(legend, VGroup(bars, marks, feet, numbers)).arrange(DOWN, buff=0.35)
        board = VGroup(left, middle, right).arrange(RIGHT, buff=0.7, aligned_edge=UP)
        mode = self.mode_line()
        room = Area(content_width(), height=TOP_Y - style.CONTENT_BOTTOM - 0.45, most=1.15)
        self.toward(tables.under(mode, board, room, buff=0.3))
        heights = [regrown(bars, r.checkpoint_means[-1], means, unit) for means in r.checkpoint_means]
        means_at = [[f"running_mean@{c}[{i}]" for i in range(len(bars))] for c in r.checkpoints]
        self.play(Appear(mode), Appear(left), Appear(middle.row(0)))
        pointer = middle.band([1])
        stands.relabel(heights[0], means_at[0])      # the bars stand for the pointed row's means
        self.play(Appear(marks), Appear(feet), Appear(legend), Appear(heights[0]), Appear(middle.row(1)),
                  Create(pointer))
        stands.landed(self)
        for j in range(1, len(r.checkpoints)):
            stands.relabel(heights[0], means_at[j])
            self.play(Transform(heights[0], heights[j]), Appear(middle.row(j + 1)),
                      pointer.animate.become(middle.band([j + 1])), run_time=0.6)
            stands.landed(self)
            self.wait(0.2)
        self.play(Appear(numbers))

    # -- step 5
    def eval_mode(self) -> None:
        r, book = self.result, self.book
        p_eff = book.fmt("eval.p_eff", r.eval_p, 0)
        if r.zeros:
            self.step("评估模式关闭 dropout：有效 p = {p_eff}，权重保持原样；原先为 {zero} 的权重仍为 {zero}。",
                      p_eff=p_eff, zero=zero(book))
        else:
            self.step("评估模式关闭 dropout：有效 p = {p_eff}，权重保持原样，行和仍为 {eval_sum}。", p_eff=p_eff,
                      eval_sum=book.fmt("eval.sum", r.eval_sum, DECIMALS))
        self.narrate("{}", words.eval_says(book, r))
        self.clear_stage()
        table = parts.eval_table(book, r, p_eff)
        rule = parts.zero_rule(book, r)
        check = note(book, "nn.Dropout 服从 model.eval()；要检查 softmax 的行和，应在 dropout 之前检查")
        lines = VGroup(fit(rule, content_width()), fit(check, content_width())).arrange(DOWN, buff=0.3)
        fit(table, content_width() - 0.5, TOP_Y - style.CONTENT_BOTTOM - 0.9 - lines.height, 1.3)
        mode = self.mode_line()
        VGroup(table, lines).arrange(DOWN, buff=0.4).next_to(mode, DOWN, buff=0.3).set_x(0)
        body = range(1, table.n_rows)
        self.play(Appear(mode), Appear(table.row(0)), Create(table.rule(1)),
                  Appear(table.col(0, body)), Appear(table.col(1, body)),
                  Create(table.rule(table.n_rows - 1)))
        for c in range(2, table.n_cols):
            self.play(FadeIn(table.col(c, body), shift=RIGHT * 0.2), run_time=0.6)
        zeros = [table.band([i + 1], style.TRACK) for i in r.zeros]
        self.play(Appear(rule), *[Create(z) for z in zeros])
        self.play(Appear(check))
