"""4.1 先把加权平均写清楚: scores, softmax and the weighted sum of the inputs."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for plain `manim` runs

from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, GrowArrow, NumberPlane,
                   VGroup, Write, ORIGIN)

from scenes.kit.anim import Appear
from scenes.compute import scores as compute
from scenes.kit import style
from scenes.kit.base import ClipScene
from scenes.pipeline.inputs import integer, matrix, tokens
from scenes.pipeline.registry import Clip, Option
from scenes.kit.grids import MatrixGrid, bars, fit


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
            Option('tokens', 'one label per row'),
        ),
    )
    legacy_text = True   # still composes f-strings: to be moved to book.text templates

    def compute(self):
        x, q = self.inputs["x"], self.inputs["query"]
        tokens = self.inputs["tokens"]
        self.names = ([self.book.user_text(t) for t in tokens] if tokens
                      else [f"x{self.book.index('row', j)}" for j in range(len(x))])
        self.d_in = style.decimals_for(x)
        return compute.weighted_average(x, q)

    def construct(self):
        self.show_inputs()
        self.dot_products()
        self.why_not_divide()
        self.softmax_weights()
        self.mix()
        self.matrix_form()
        self.end()

    # -- helpers
    def planar(self):
        return self.result.x.shape[1] == 2

    def plane(self):
        """A plane just big enough for the inputs and the output, without tick numbers."""
        r = self.result
        span = max(1.0, float(abs(r.x).max()), float(abs(r.output).max()))
        unit = 2.6 / span
        plane = NumberPlane(x_range=[-span, span, span / 2], y_range=[-span, span, span / 2],
                            x_length=2 * span * unit, y_length=2 * span * unit,
                            background_line_style={"stroke_color": style.GRID_LINE, "stroke_opacity": 0.5})
        return plane

    def arrow(self, plane, start, end, color, label=None):
        arrow = Arrow(plane.c2p(*start), plane.c2p(*end), buff=0, color=color, stroke_width=5,
                      max_tip_length_to_length_ratio=0.15)
        if label is None:
            return arrow
        tag = self.book.label(label, color=color, size=style.LABEL_SIZE)
        tag.next_to(arrow.get_end(), UP + RIGHT, buff=0.05)
        return VGroup(arrow, tag)

    def query_name(self):
        return self.names[self.result.query]

    # -- steps
    def show_inputs(self):
        r, book = self.result, self.book
        self.step(f"三个输入向量：既是平面上的箭头，也是矩阵 X 的行；查询取 {self.query_name()}。"
                  if len(r.x) == 3 else f"输入向量既是矩阵 X 的行；查询取 {self.query_name()}。")
        grid = MatrixGrid(book, "x", r.x, self.d_in, row_labels=self.names)
        colors = [style.QUERY if j == r.query else style.VALUE for j in range(len(r.x))]
        for j, c in enumerate(colors):
            grid.row_labels[j].set_color(c)
        self.x_grid = fit(grid, 6, 5.4)
        if not self.planar():
            self.play(Appear(self.x_grid.move_to(ORIGIN)))
            return
        self.plane_mob = self.plane().shift(LEFT * 3.2 + DOWN * 0.2)
        self.x_grid.move_to(RIGHT * 3.6)
        arrows = [self.arrow(self.plane_mob, (0, 0), r.x[j], colors[j], self.names[j])
                  for j in range(len(r.x))]
        self.play(Create(self.plane_mob), Appear(self.x_grid))
        self.play(*[GrowArrow(a[0]) for a in arrows], *[Appear(a[1]) for a in arrows])
        self.input_arrows = VGroup(*arrows)

    def dot_products(self):
        r, book = self.result, self.book
        self.step(f"查询 {self.query_name()} 与每个向量逐分量相乘再相加，得到点积分数。")
        self.clear_stage()
        cols = [f"r={book.index('component', c)}" for c in range(r.x.shape[1])]
        d = style.decimals_for(r.products)
        products = MatrixGrid(book, "products", r.products, d, row_labels=self.names, col_labels=cols)
        head = book.label(f"逐分量乘积 {self.query_name()}[r] · xⱼ[r]", size=style.LABEL_SIZE,
                          color=style.QUERY)
        scores = MatrixGrid(book, "scores", r.scores[:, None], style.decimals_for(r.scores),
                            col_labels=["分数 s = Σ"], col_color=style.ACCENT)
        products = VGroup(head, products).arrange(DOWN, buff=0.3)
        fit(VGroup(products, scores).arrange(RIGHT, buff=0.6, aligned_edge=DOWN), 12.5, 5.6).move_to(DOWN * 0.2)
        self.play(Appear(products))
        self.play(*[Write(scores.entry(j, 0)) for j in range(len(r.x))], Appear(scores.box_group),
                  Appear(scores.col_labels))
        self.scores_grid = scores

    def why_not_divide(self):
        r, book = self.result, self.book
        self.step("直接除以分数之和？分数可能为负，总和也可能为零：无法普遍得到概率权重。")
        self.clear_stage()
        d = style.decimals_for(r.shifted)
        shifted = MatrixGrid(book, "shifted", r.shifted[None, :], d, col_labels=self.names,
                             row_labels=["s − mean(s)"], heat=None)
        zero = book.fmt("shifted_sum", r.shifted_sum, d)
        total = book.label(f"Σ = {zero}   →   s / Σs 无定义（除以零）",
                           color=style.MASK)
        fit(VGroup(shifted, total).arrange(DOWN, buff=0.6), 12.5, 5)
        self.play(Appear(shifted))
        self.play(Write(total))

    def softmax_weights(self):
        r, book = self.result, self.book
        self.step("softmax：取 e 的分数次方再除以总和，每项非负、总和为一。")
        self.clear_stage()
        formula = book.math(r"\alpha_j = \frac{e^{s_j}}{\sum_k e^{s_k}}", size=36)
        exps = MatrixGrid(book, "exp_scores", r.exps[None, :], 4, col_labels=self.names,
                          row_labels=["e^s"])
        total = book.label(f"Σ e^s = {book.fmt('exp_sum', r.exp_sum)}", color=style.ACCENT)
        weights = bars(book, "weights", r.weights, [style.VALUE], labels=self.names, max_height=2.2)
        weight_sum = book.label(f"Σ α = {book.fmt('weights_sum', r.weights_sum)}", color=style.ACCENT)
        left = VGroup(formula, exps, total).arrange(DOWN, buff=0.45)
        right = VGroup(weights, weight_sum).arrange(DOWN, buff=0.35)
        fit(VGroup(left, right).arrange(RIGHT, buff=1.0), 12.8, 5.6).move_to(DOWN * 0.15)
        self.play(Write(formula))
        self.play(Appear(exps), Appear(total))
        self.play(FadeIn(weights, shift=UP * 0.3), FadeIn(weight_sum))

    def mix(self):
        r, book = self.result, self.book
        name = f"z{book.index('query', r.query)}"
        out = ", ".join(book.fmt(f"output[{c}]", v) for c, v in enumerate(r.output))
        self.step(f"{name} = Σ αⱼ xⱼ = ({out})：三个向量的混合，不是挑出其中一个。"
                  if len(r.x) == 3 else f"{name} = Σ αⱼ xⱼ = ({out})：所有输入的混合，不是挑出其中一个。")
        self.clear_stage()
        parts = MatrixGrid(book, "parts", r.parts, 4, row_labels=[f"α·{n}" for n in self.names])
        total = MatrixGrid(book, "output", r.output[None, :], 4, row_labels=[name], row_color=style.ACCENT)
        table = fit(VGroup(parts, total).arrange(DOWN, buff=0.35, aligned_edge=RIGHT), 6.2, 5.4)
        if not self.planar():
            self.play(Appear(table.move_to(ORIGIN)))
            return
        plane = self.plane().shift(LEFT * 3.2 + DOWN * 0.2)
        table.move_to(RIGHT * 3.6)
        self.play(Create(plane), Appear(table))
        tip = (0.0, 0.0)
        for j, part in enumerate(r.parts):
            end = (tip[0] + part[0], tip[1] + part[1])
            self.play(GrowArrow(self.arrow(plane, tip, end, style.VALUE)), run_time=0.5)
            tip = end
        self.play(GrowArrow(self.arrow(plane, (0, 0), r.output, style.ACCENT)[0]))

    def matrix_form(self):
        r, book = self.result, self.book
        last, rows_axis = book.index("axis", -1), book.index("axis", -2)
        self.step(f"矩阵形式：scores = X Xᵀ；softmax(dim={last}) 每行和为一，dim={rows_axis} 不报错却不然。")
        self.clear_stage()
        gram = MatrixGrid(book, "gram", r.gram, style.decimals_for(r.gram), row_labels=self.names,
                          col_labels=self.names, heat="scores")
        rows = self.with_sums("softmax_rows", r.rows, r.rows_sums, style.VALUE)
        cols = self.with_sums("softmax_cols", r.cols, r.cols_row_sums, style.MASK)
        tags = ["X Xᵀ", f"softmax(dim={last})", f"softmax(dim={rows_axis})"]
        groups = [VGroup(book.label(t, size=style.LABEL_SIZE, color=style.MUTED), g).arrange(DOWN, buff=0.2)
                  for t, g in zip(tags, (gram, rows, cols))]
        fit(VGroup(*groups).arrange(RIGHT, buff=0.5), 13.2, 5.6).move_to(DOWN * 0.1)
        for g in groups:
            self.play(Appear(g))

    def with_sums(self, name, weights, sums, sum_color):
        grid = MatrixGrid(self.book, name, weights, 4, heat="weights")
        col = MatrixGrid(self.book, f"{name}_row_sums", sums[:, None], 4, col_labels=["行和"],
                         col_color=sum_color)
        return VGroup(grid, col).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)
