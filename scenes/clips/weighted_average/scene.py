"""4.1 先把加权平均写清楚: scores, softmax and the weighted sum of the inputs."""
from typing import Any

from manim import DOWN, RIGHT, UP, Create, FadeIn, Mobject, NumberPlane, VGroup, Write

from scenes.clips.weighted_average.parts import (divide_table, first_mix, first_score, first_weight,
                                                softmax_board, softmax_table, spoken)
from scenes.compute import average as compute
from scenes.kit.compose import boards
from scenes.kit.draw import columns
from scenes.kit.draw.columns import Columns
from scenes.kit.motion import derive, expressions as ex
from scenes.kit.text import lang, style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.motion.derive import Band
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import content_center, content_height, content_width, fit
from scenes.kit.motion.made import first_of, make
from scenes.kit.page.page import Area, fits, named as slots_in, speak
from scenes.kit.draw.plane import arrow
from scenes.kit.text.numbers import Shown
from scenes.kit.scene.inputs import integer, matrix, tokens
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.text.style import decimals_cut_to_width

NAME_FITS = 1.1       # a name wider than this is tagged x_j on arrows and column heads
HEAD_SIZE = 34
# The clip's words (assets/lang/zh/weighted_average.json): narration by step and case ("plane" follows the
# mix where the plane is drawn, ".first" speaks a derivation being made) and the captions the data choose.
WORDS = lang.words("weighted_average")
NARRATION, DIVIDE_CAPTIONS, FAILS, MIX_CAPTIONS, MATRIX_CAPTIONS = (
    WORDS[k] for k in ("narration", "divide", "fails", "mix", "matrix"))


def rules(raw: dict) -> dict:
    x = matrix(raw["x"], "x", rows=(2, 8))
    query = integer(raw.get("query", 1), "query", 0, len(x) - 1)
    return {"x": x, "query": query, "tokens": tokens(raw.get("tokens"), len(x))}


class WeightedAverage(ClipScene):
    spec = Clip(
        name="weighted-average", section="4.1", title="先把加权平均写清楚",
        summary="4.1 点积分数、softmax 权重与加权平均",
        rules=rules,
        defaults={"x": "1 0; 0 1; 1 1", "query": 1},
        options=(
            Option('x', "input rows, e.g. '1 0; 0 1; 1 1' (2-8 rows)"),
            Option('query', 'index of the query row'),
            Option('tokens', 'one label per row, separated by spaces'),
        ),
    )

    def provenance(self) -> dict:
        return compute.provenance(self.result)

    def kinds(self) -> dict:
        return compute.KINDS

    def compute(self) -> compute.Lesson:
        widths = [self.book.label(self.book.user_text(t), size=style.LABEL_SIZE).width
                  for t in self.inputs["tokens"] or []]
        self.name_width = max(widths, default=0.0)
        self.long = self.name_width > NAME_FITS
        return compute.lesson(self.inputs["x"], self.inputs["query"])

    def construct(self) -> None:
        self.storyboard(
            self.show_inputs,
            self.dot_products,
            self.why_not_divide,
            self.softmax_weights,
            self.mix,
            self.matrix_form,
        )

    # -- names: x_j, or the user's token for row j
    def tag(self, j: int) -> Shown:
        return self.book.compose("x{}", self.book.index(f"name[{j}]", j))

    def name(self, j: int) -> Shown:
        tokens = self.inputs["tokens"]
        return self.book.user_text(tokens[j]) if tokens else self.tag(j)

    def keyed(self, j: int) -> Shown:
        """x_j and its token: the key wherever tags stand for tokens too wide to fit."""
        tokens = self.inputs["tokens"]
        if not tokens:
            return self.tag(j)
        return self.book.compose("{tag} {token}", tag=self.tag(j), token=self.book.user_text(tokens[j]))

    def names(self) -> list:
        return [self.name(j) for j in range(len(self.result.x))]

    def short(self, j: int) -> Shown:
        """The name where room is short: x_j for tokens too wide (step 1 gives the key)."""
        return self.tag(j) if self.long else self.name(j)

    def colors(self) -> list:
        return [style.QUERY if j == self.result.query else style.TEXT for j in range(len(self.result.x))]

    def count(self, label: str, n: int) -> Shown:
        """A count before a measure word (三个): book.word, except two, which is 两 there."""
        return self.book.word(label, n, measure=True)

    def head(self, tex: str) -> Mobject:
        """A column head: a short formula."""
        return self.book.math(tex, size=HEAD_SIZE)

    def grid(self, name: str, values: Any, decimals: int, rows: list, colors: list | None = None,
             **options) -> MatrixGrid:
        """A grid with its rows named, each name in its colour (by default the query's in blue)."""
        grid = MatrixGrid(self.book, name, values, decimals, row_labels=rows, **options)
        for label, color in zip(grid.row_labels, colors or self.colors()):
            label.set_color(color)
        return grid

    def place(self, table: Mobject) -> NumberPlane | None:
        """Place the table: alone, or with two components right of the plane (returned, not drawn)."""
        return boards.beside_plane(table, self.result.plane_points if self.planar() else None)

    def inputs_grid(self) -> MatrixGrid:
        """X as step 1 draws it (rows named short where tokens are too wide)."""
        r = self.result
        colors = [style.QUERY if j == r.query else style.VALUE for j in range(len(r.x))]
        return self.grid("x", r.x, decimals_cut_to_width(r.x), [self.short(j) for j in range(len(r.x))], colors)

    def weights_column(self) -> Columns:
        """Step 4's column of weights, its rows named as there."""
        return Columns(self.book, [("weights", self.result.weights, 4, self.head(r"\alpha_j"), "weights")],
                       self.names(), self.colors())

    def kept_beside(self, kept: Any, group: Any, rows: tuple, width: float | None = None) -> list:
        """A block of the last step kept on the board, left of `group` (the tops of `rows`, a cell
        of each, level), where every number still reads in the content area (or `width`) with room
        for a band; else none."""
        VGroup(kept, group).arrange(RIGHT, buff=0.6)
        kept.shift(UP * (rows[1].get_top()[1] - rows[0].get_top()[1]))
        area = Area(width or content_width(), height=content_height() - 2 * derive.HEIGHT)
        return [kept] if fits(self.book, VGroup(kept, group), area) else []

    def planar(self) -> bool:
        return self.result.x.shape[1] == 2

    # -- steps
    def show_inputs(self) -> None:
        r, book = self.result, self.book
        (n_rows, n_cols), named = r.x.shape, self.keyed if self.long else self.name
        slots = {"rows": self.count("rows", n_rows), "query": named(r.query)}
        if self.planar():
            self.step("{rows}个输入向量：既是平面上的箭头，也是矩阵 X 的行；查询取 {query}。", **slots)
        else:
            slots["cols"] = self.count("columns", n_cols)
            self.step("{rows}个输入向量是矩阵 X 的行，每个有{cols}个分量（不画平面）；查询取 {query}。", **slots)
        speak(self, NARRATION["inputs.plane" if self.planar() else "inputs.table"], **slots)
        colors = [style.QUERY if j == r.query else style.VALUE for j in range(n_rows)]
        grid = self.grid("x", r.x, decimals_cut_to_width(r.x), [named(j) for j in range(n_rows)], colors)
        plane = self.place(grid)
        self.play(*([Create(plane)] if plane is not None else []), Appear(grid))
        if plane is None:
            return
        tags = [book.label(self.short(j), color=colors[j], size=style.LABEL_SIZE) for j in range(n_rows)]
        arrows = boards.tagged_arrows(plane, r.x, tags, colors, grid.get_left()[0] - boards.GAP,
                                      labels=[[f"x[{j}][{c}]" for c in range(2)] for j in range(len(r.x))])
        self.play(*[boards.grow(a) for a in arrows], *[Appear(t) for t in tags])

    def dot_products(self) -> None:
        r, book = self.result, self.book
        query = self.short(r.query)
        self.step("查询 {} 与每个向量逐分量相乘再相加，得到点积分数。", query)
        q, ds = r.query, decimals_cut_to_width(r.scores)
        own = book.fmt(f"scores[{q}][0]", r.scores[q], ds)     # the query's score with itself
        self.clear_stage()
        components = [book.compose("r={}", book.index(f"component[{c}]", c)) for c in range(r.x.shape[1])]
        products = self.grid("products", r.products, decimals_cut_to_width(r.products),
                             [self.short(j) for j in range(len(r.x))], col_labels=components)
        head = book.text("逐分量乘积 {}[r] · xⱼ[r]", self.short(r.query), size=style.LABEL_SIZE, color=style.QUERY)
        scores = MatrixGrid(book, "scores", r.scores[:, None], ds, col_labels=["分数 s = Σ"],
                            col_color=style.ACCENT)
        made = first_score(book, r, products, scores, products.width + scores.width)
        both = VGroup(VGroup(head, products).arrange(DOWN, buff=0.3), scores).arrange(RIGHT, buff=0.6,
                                                                                      aligned_edge=DOWN)
        x = self.inputs_grid()
        kept = self.kept_beside(x, both, (x.boxes[0][0], products.boxes[0][0]))   # X stays, left of its products
        band = boards.laid_out(self, VGroup(VGroup(*kept, both)), [ex.from_cells(made, *kept)])
        first = {"key": self.short(0), "score": spoken(book, made.result)} if band else {}
        speak(self, NARRATION["dots"] + (NARRATION["dots.first"] if band else []), query=query,
              self_score=own, **first)
        boards.fill(self, scores, [made], band, Appear(both[0]), *[Appear(m) for m in kept])

    def why_not_divide(self) -> None:
        r, book = self.result, self.book
        self.step(DIVIDE_CAPTIONS[r.case])
        d = decimals_cut_to_width(r.scores)
        speak(self, NARRATION["divide." + r.case], **({"total": book.fmt("scores_sum[0][0]", r.scores_sum, d)}
                                                      if r.case == "zero" else {}))
        self.clear_stage()
        table = divide_table(book, r, self.names(), self.colors(), self.head)
        fails = FAILS["flat" if r.case == "works" and r.shifted_flat else r.case]
        note = VGroup(*([book.text("此例 s / Σs 非负、和为 {one}，恰好可用；", one=book.const(1), color=style.VALUE,
                                  size=style.LABEL_SIZE)]
                        if r.case == "works" else []),
                      book.label(fails, color=style.MASK, size=style.LABEL_SIZE)).arrange(DOWN, buff=0.12)
        fit(VGroup(table, note).arrange(DOWN, buff=0.45)).move_to(content_center())
        self.play(Appear(table))
        self.play(*[Write(line) for line in note])

    def softmax_weights(self) -> None:
        r, book = self.result, self.book
        if r.stable:
            self.step("softmax：先减去最大分数m再取e的次方（权重不变、不会溢出），再除以总和；每项非负、总和为 {one}。",
                      one=book.const(1))
            shift = book.fmt("shift", r.shift, decimals_cut_to_width(r.scores))
            says, slots = NARRATION["softmax.stable"], {"m": shift}
            formula = book.math(r"\alpha_j = \frac{e^{s_j}}{\sum_k e^{s_k}} = "
                                r"\frac{e^{s_j - m}}{\sum_k e^{s_k - m}},\quad m = \max_k s_k = @", shift,
                                size=HEAD_SIZE)
        else:
            self.step("softmax：取 e 的分数次方再除以总和，每项非负、总和为 {one}。", one=book.const(1))
            says = NARRATION["softmax.equal" if r.equal else "softmax.plain"]
            slots = {"weight": book.fmt(f"weights[{r.heaviest}][0]", r.weights[r.heaviest], 4)}
            formula = book.math(r"\alpha_j = \frac{e^{s_j}}{\sum_k e^{s_k}}", size=36)
        self.clear_stage()
        table = softmax_table(book, r, self.names(), self.colors(), self.head)
        bars = columns.side_bars(table, r.weights, [style.VALUE],
                                 labels=[f"weights[{j}][0]" for j in range(len(r.weights))])
        made = first_weight(book, table)
        band = boards.laid_out(self, VGroup(formula, VGroup(table, bars)).arrange(DOWN, buff=0.4), made)
        if band is not None:       # the numbers the sentence says, as the expressions draw them
            (score,), (_, total) = (d.terms() for d in made)
            slots.update(key=self.short(0), **{k: spoken(book, t) for k, t in (
                ("score", score), ("exp", made[0].result), ("total", total), ("alpha", made[1].result))})
        speak(self, says + (NARRATION["softmax.first"] if band else []), **slots)
        (*others, exps, weights), (exps_sum, weights_sum) = table.grids, table.sums
        (e_shell, e_rest), (w_shell, w_rest) = (first_of(book, g, m, band)
                                                for g, m in ((exps, made[:1]), (weights, made[1:])))
        self.play(Write(formula))
        self.play(Appear(VGroup(*[m for m in table if m not in (exps, weights, exps_sum, weights_sum)])),
                  Appear(e_shell), Appear(w_shell))
        make(self, made[:1], band, e_rest, Appear(exps_sum))
        make(self, made[1:], band, w_rest, Appear(weights_sum))
        self.play(FadeIn(bars, shift=RIGHT * 0.3))

    def mix(self) -> None:
        r, book = self.result, self.book
        z = book.compose("z{}", book.index("query", r.query))
        d = decimals_cut_to_width(r.output)          # each grid at its own precision (display rule 3)
        slots: dict[str, Any] = {"z": z, "rows": self.count("rows", len(r.x)),
                                 "pick": self.short(r.picked) if r.picked is not None else None}
        case = "picked" if r.picked is not None else "equal" if r.equal else "mixed"
        if case == "mixed" and len(r.output) <= 3:     # z's components in the caption
            outs = [book.fmt(f"output[0][{c}]", v, d) for c, v in enumerate(r.output)]
            slots["output"] = book.compose(", ".join("{}" for _ in outs), *outs)
        caption = MIX_CAPTIONS["output" if "output" in slots else case]
        self.step(caption, **slots_in(caption, slots))
        self.clear_stage()
        parts = self.grid("parts", r.parts, decimals_cut_to_width(r.parts),
                          [book.compose("α·{}", self.short(j)) for j in range(len(r.x))])
        total = self.grid("output", r.output[None, :], d, [z], [style.ACCENT])
        table = VGroup(parts, total).arrange(DOWN, buff=0.35, aligned_edge=RIGHT)
        wide = boards.SIDE_W if self.planar() else None
        made = first_mix(book, r, parts, total, wide or max(table.width, ex.LEAST_ROOM))
        alphas = self.weights_column()
        kept = self.kept_beside(alphas, table, (alphas.grids[0].boxes[0][0], parts.boxes[0][0]), wide)  # α stays
        ex.from_cells(made, *[column.grids[0] for column in kept])
        band = boards.reserve(book, side := VGroup(VGroup(*kept, table)), Band([made]), wide)
        plane = self.place(side)
        band = derive.room(self, VGroup(side, *([plane] if plane is not None else [])), [made], band)
        said = (NARRATION["mix." + case] + (NARRATION["plane"] if self.planar() else [])
                + (NARRATION["mix.first"] if band else []))
        slots.update({"out": spoken(book, made.result)} if band else {})
        speak(self, said, **slots_in("".join(said), slots))
        boards.fill(self, total, [made], band, *([Create(plane)] if plane is not None else []), Appear(parts),
                    *[Appear(m) for m in kept])
        if plane is None:
            return
        for step in boards.head_to_tail(plane, r.parts, style.VALUE,
                                        labels=[[f"parts[{j}][{c}]" for c in range(2)] for j in range(len(r.parts))]):
            self.play(boards.grow(step), run_time=0.5)
        self.play(boards.grow(arrow(plane, (0, 0), r.output, style.ACCENT, ["output[0][0]", "output[0][1]"])))

    def matrix_form(self) -> None:
        """X Xᵀ and its softmax along each axis: on one board, else X Xᵀ on a page of its own first."""
        r, book = self.result, self.book
        slots = {"dim_last": book.index("dim_last", -1), "dim_rows": book.index("dim_rows", -2),
                 "one": book.const(1), "rows": self.count("rows", len(r.x))}
        case = "cols_one" if r.cols_sums_one else "cols"      # dim=-2's row sums are one by chance, or not
        n, dg = len(r.x), decimals_cut_to_width(r.gram)
        heads = boards.names_fit_over(self.name_width, r.gram, dg)
        rows = self.name if heads else self.short if self.long else self.keyed
        cols = self.name if heads else self.tag
        gram = self.grid("gram", r.gram, dg, [rows(j) for j in range(n)],
                         col_labels=[cols(j) for j in range(n)], heat="scores")
        tags = [book.label("X Xᵀ", color=style.MUTED)] + [book.text("softmax(dim={})", dim, color=style.MUTED)
                                                         for dim in (slots["dim_last"], slots["dim_rows"])]
        sums = [MatrixGrid(book, f"{name}_sums", values[:, None], 4, col_labels=["行和"], col_color=color)
                for name, values, color in (("softmax_rows", r.rows_sums, style.VALUE),
                                            ("softmax_cols", r.cols_sums, style.MASK))]
        area, (*first, board) = softmax_board(book, gram, tags, sums, (r.rows, r.cols))
        pages = [(MATRIX_CAPTIONS["apart"], first[0], NARRATION["matrix"])] if first else []   # X Xᵀ alone
        pages.append((MATRIX_CAPTIONS[case], board,
                      NARRATION["matrix.apart" if first else "matrix"] + NARRATION["matrix." + case]))
        boards.turn_named(self, pages, area, slots)
