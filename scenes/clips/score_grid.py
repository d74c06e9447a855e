"""4.2 为什么拆成查询、键和值 and 4.3 缩放因子来自点积的方差:
Q, K, V projections, the QK^T grid and why the scores are divided by sqrt(d_k)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for plain `manim` runs

import numpy as np
from manim import DOWN, RIGHT, UL, UP, FadeIn, LaggedStart, Transform, VGroup, Write

from scenes.kit.anim import Appear
from scenes.compute import scores as compute
from scenes.kit import style
from scenes.kit.base import ClipScene
from scenes.pipeline.inputs import InputError, integer, matrix, tokens
from scenes.pipeline.registry import Clip, Option
from scenes.kit.layout import fit
from scenes.clips.score_grid_parts import (align_columns, axis_names, batches, grouped_bars,
                                           labelled_grid, legend, role_grid, upright_columns)

ROLES = (("q", "wq", "Q", "W_Q", style.QUERY), ("k", "wk", "K", "W_K", style.KEY),
         ("v", "wv", "V", "W_V", style.VALUE))
MIN_SCALE = 0.62   # below this, the three projections are shown one after another


def rules(raw: dict) -> dict:
    """X with W_Q, W_K, W_V; or Q, K (and V) directly."""
    direct = raw.get("q") is not None or raw.get("k") is not None
    if direct:
        for name in ("q", "k"):
            if raw.get(name) is None:
                raise InputError(name, "", "give --q and --k together (or --x with --wq/--wk/--wv)")
        q, k = matrix(raw["q"], "q"), matrix(raw["k"], "k")
        v = matrix(raw["v"], "v") if raw.get("v") is not None else None
        x = wq = wk = wv = None
    else:
        x = matrix(raw["x"], "x")
        wq, wk, wv = (matrix(raw[n], n) for n in ("wq", "wk", "wv"))
        for name, w in (("wq", wq), ("wk", wk), ("wv", wv)):
            if len(w) != x.shape[1]:
                raise InputError(name, raw[name], f"needs {x.shape[1]} rows, the width D_in of --x")
        if wq.shape[1] != wk.shape[1]:
            raise InputError("wk", raw["wk"], "must have as many columns as --wq (d_k)")
        q, k, v = x @ wq, x @ wk, x @ wv
        for name, out in (("wq", q), ("wk", k), ("wv", v)):
            if np.abs(out).max() > 100:
                raise InputError(name, raw[name], f"X W_{name[1].upper()} = {name[1].upper()} has "
                                                  "entries outside [-100, 100]: use smaller X or W")
    if q.shape[1] != k.shape[1]:
        raise InputError("k", raw.get("k"), f"must be as wide as --q ({q.shape[1]} columns)")
    if v is not None and len(v) != len(k):
        raise InputError("v", raw.get("v"), f"needs as many rows as --k ({len(k)})")
    seed = integer(raw.get("seed", 0), "seed", 0, 2**31 - 1)
    labels = raw.get("tokens")
    if labels is not None and len(q) != len(k):
        raise InputError("tokens", str(labels), "label both axes of QK^T: give --q and --k "
                                                "with the same number of rows")
    return {"x": x, "wq": wq, "wk": wk, "wv": wv, "q": q, "k": k, "v": v, "seed": seed,
            "tokens": tokens(labels, len(q))}


class ScoreGrid(ClipScene):
    spec = Clip(
        name="score-grid", section="4.2", title="为什么拆成查询、键和值",
        summary="4.2–4.3 Q、K、V 投影，QKᵀ 分数网格与 √d_k 缩放",
        rules=rules,
        defaults="journey-score-grid",
        options=(
            Option('x', 'input rows X [T, D_in]'),
            Option('wq', 'W_Q [D_in, d_k]'),
            Option('wk', 'W_K [D_in, d_k]'),
            Option('wv', 'W_V [D_in, d_v]'),
            Option('q', 'Q directly (with --k)'),
            Option('k', 'K directly'),
            Option('v', 'V directly'),
            Option('seed', 'seed of the sampled variance step'),
            Option('tokens', 'one label per row'),
        ),
    )
    section_scaling, title_scaling = "4.3", "缩放因子来自点积的方差"

    def compute(self):
        i = self.inputs
        r = compute.score_grid(q=i["q"], k=i["k"], v=i["v"], x=i["x"], wq=i["wq"], wk=i["wk"],
                               wv=i["wv"], seed=i["seed"])
        self.q_names = axis_names(self.book, i["tokens"], "q", len(r.q))
        self.k_names = axis_names(self.book, i["tokens"], "k", len(r.k))
        self.names = {"Q": self.q_names, "K": self.k_names,
                      "V": axis_names(self.book, i["tokens"], "v", len(r.k))}
        return r

    def construct(self):
        self.projections()
        self.fill_scores()
        self.scaling()
        self.one_row()
        self.end()

    # -- helpers
    def roles(self):
        """(values, W or None, name, W name, colour) for Q, K and V where present."""
        r = self.result
        return [(getattr(r, a), getattr(r, w), n, wn, c) for a, w, n, wn, c in ROLES
                if getattr(r, a) is not None]

    def score_heat(self, name, values, low_high):
        grid = labelled_grid(self.book, name, values, style.decimals_for(values), heat="scores",
                          row_labels=self.q_names, col_labels=self.k_names,
                          row_color=style.QUERY, col_color=style.KEY)
        bar = legend(self.book, f"{name}_legend", *low_high, style.decimals_for(values))
        corner = VGroup(self.book.label("键 →", color=style.KEY, size=style.LABEL_SIZE),
                        self.book.label("查询 ↓", color=style.QUERY, size=style.LABEL_SIZE))
        upright_columns(grid)
        corner.arrange(DOWN, buff=0.08, aligned_edge=RIGHT).next_to(grid.box_group, UL, buff=0.12)
        grid.add(corner)
        grid.corner = corner
        return grid, bar

    # -- steps
    def projections(self):
        if self.result.x is None:
            return self.given_directly()
        self.step("引入三个可训练矩阵：Q = X W_Q，K = X W_K，V = X W_V。")
        r, book = self.result, self.book
        x = role_grid(book, "x", r.x, style.decimals_for(r.x), style.TEXT, "X",
                      row_labels=self.q_names)
        blocks = [self.projection_block(*role) for role in self.roles()]
        rule = self.shape_rule()
        rule.move_to(UP * 2.85)
        if self.natural_scale(x, blocks) >= MIN_SCALE:
            self.falk(x, VGroup(*blocks).arrange(RIGHT, buff=0.45, aligned_edge=UP))
            self.play(Appear(rule), Appear(x))
            for block in blocks:
                self.show_block(block)
            return
        size = x.height
        for n, block in enumerate(blocks):   # too wide for one frame: one projection at a time
            if n:
                self.clear_stage(run_time=0.3)
            self.falk(x.scale_to_fit_height(size), block)
            self.play(Appear(rule), Appear(x))
            self.show_block(block)

    def shape_rule(self):
        """[T, D_in] . [D_in, d_k] -> [T, d_k], then the same with this input's sizes."""
        r, book = self.result, self.book
        sizes = [book.coords(f"rule.{n}", a.shape) for n, a in (("x", r.x), ("wq", r.wq), ("q", r.q))]
        return VGroup(book.math(r"[T, D_{in}] \cdot [D_{in}, d_k] \to [T, d_k]", size=34),
                      book.text("：{} · {} → {}", *sizes, size=style.BODY_SIZE)).arrange(RIGHT, buff=0.2)

    @staticmethod
    def natural_scale(x, blocks):
        width = x.width + sum(b.width + 0.45 for b in blocks)
        height = max([x.height] + [b.height for b in blocks])
        return min(13 / width, 5.35 / height, 1.0)

    @staticmethod
    def falk(x, blocks):
        """X to the left of the products, each W above its product; fit under the rule."""
        VGroup(x, blocks).arrange(RIGHT, buff=0.45)
        x.shift(UP * (blocks[-1].grid.box_group.get_y() - x.grid.box_group.get_y()))
        fit(VGroup(x, blocks), 13, 5.35).move_to(DOWN * 0.4)

    def projection_block(self, values, w, name, w_name, color):
        """W above its product, columns over columns (the product sits under W, beside X)."""
        w_grid = role_grid(self.book, f"w{name.lower()}", w, style.decimals_for(w), color, w_name,
                           side=UP)
        out = role_grid(self.book, name.lower(), values, 4, color, name)
        block = VGroup(w_grid, out).arrange(DOWN, buff=0.3)
        block.grid = out.grid
        return block

    def show_block(self, block):
        w_grid, out = block
        self.play(Appear(w_grid), Appear(out.tag), Appear(out.grid.box_group), run_time=0.5)
        self.play(LaggedStart(*[Appear(out.grid.entry(i, j))
                                for i in range(out.grid.n_rows) for j in range(out.grid.n_cols)],
                              lag_ratio=0.05), run_time=0.8)

    def given_directly(self):
        self.step("直接给定 Q、K：查询与键的宽度必须相同，才能做点积。")
        grids = [role_grid(self.book, n.lower(), vals, style.decimals_for(vals), c, n,
                           row_labels=self.names[n])
                 for vals, _, n, _, c in self.roles()]
        for n, batch in enumerate(batches(grids, 13, 5.6, 0.6, MIN_SCALE)):  # as many as fit
            if n:
                self.clear_stage(run_time=0.3)
            fit(VGroup(*batch).arrange(RIGHT, buff=0.6, aligned_edge=UP), 13, 5.6).move_to(DOWN * 0.1)
            self.play(LaggedStart(*[Appear(g) for g in batch], lag_ratio=0.4))

    def fill_scores(self):
        r, book = self.result, self.book
        square = "[T, T]" if r.scores.shape[0] == r.scores.shape[1] else "[T_q, T_k]"
        self.step("QKᵀ 是 " + square + "：第 i 行第 j 列 = qᵢ · kⱼ；行是查询，列是键。")
        self.clear_stage()
        grid, bar = self.score_heat("scores", r.scores, r.scores_range)
        head = book.math(r"S_{ij} = q_i \cdot k_j = \sum_r q_{i,r}\, k_{j,r}", size=36)
        tag = VGroup(book.math(r"QK^\top", color=style.ACCENT),
                     book.label(book.coords("scores.shape", r.scores.shape), size=style.LABEL_SIZE,
                                color=style.ACCENT)).arrange(RIGHT, buff=0.15)
        body = VGroup(VGroup(grid, tag).arrange(DOWN, buff=0.25), bar).arrange(RIGHT, buff=0.5)
        fit(VGroup(head, body).arrange(DOWN, buff=0.3), 13, 6.1).move_to(DOWN * 0.1)
        self.play(Write(head), Appear(grid.row_labels), Appear(grid.col_labels), Appear(tag),
                  Appear(grid.corner))
        for i in range(grid.n_rows):
            self.play(LaggedStart(*[Appear(grid.cell(i, j)) for j in range(grid.n_cols)],
                                  lag_ratio=0.25), run_time=0.45)
        self.play(Appear(bar))

    def scaling(self):
        r, book = self.result, self.book
        v = r.variance
        d_k = book.index("d_k", r.d_k)
        self.step("点积方差约为 dₖ，除以 √dₖ 把量级拉回一；本例 dₖ = {}，即一个头的宽度。", d_k)
        self.clear_stage()
        head = book.section("section.scaling", self.section_scaling)
        title = book.text("{}  " + self.title_scaling, head, size=style.TITLE_SIZE, kind="title")
        self.play(Transform(self.title_mob, title.move_to(self.title_mob)), run_time=0.4)
        book.meta[id(self.title_mob)] = book.meta[id(title)]
        table = self.variance_table(v, r.own)
        note = book.text("采样 {} 对单位方差 q、k，种子 {}", book.index("variance.samples", v.samples),
                         book.index("seed", v.seed), size=style.LABEL_SIZE, color=style.MUTED)
        left = VGroup(table, note).arrange(DOWN, buff=0.3)
        root = book.math(r"\sqrt{d_k} = \sqrt{@} = @", d_k, book.fmt("scale", r.scale),
                         color=style.TRACK, size=36)
        grid, bar = self.score_heat("scaled", r.scaled, r.scaled_range)
        tag = book.math(r"QK^\top / \sqrt{d_k}", color=style.ACCENT)
        right = VGroup(root, VGroup(VGroup(grid, tag).arrange(DOWN, buff=0.25), bar)
                       .arrange(RIGHT, buff=0.4)).arrange(DOWN, buff=0.3)
        fit(VGroup(left, right).arrange(RIGHT, buff=0.7), 13.2, 6.1).move_to(DOWN * 0.1)
        self.play(Appear(table.header), Appear(note))
        self.play(LaggedStart(*[Appear(row) for row in table.rows], lag_ratio=0.3), run_time=1.2)
        self.play(Write(root))
        self.play(Appear(grid), Appear(tag), Appear(bar))

    def variance_table(self, v, own):
        """d_k | Var(q.k) | Var(q.k / sqrt(d_k)), the clip's own d_k in the tracked colour."""
        book = self.book
        cols = [labelled_grid(book, "variance.d_k", [[d] for d in v.d_ks], 0, col_labels=["dₖ"]),
                labelled_grid(book, "variance.var", v.var[:, None], 4, col_labels=["Var(q·k)"]),
                labelled_grid(book, "variance.var_scaled", v.var_scaled[:, None], 4,
                              col_labels=["Var(q·k/√dₖ)"])]
        table = VGroup(*cols).arrange(RIGHT, buff=0.1, aligned_edge=DOWN)
        for g in cols:
            g.entry(own, 0).set_color(style.TRACK)
            g.box(own, 0).set_stroke(style.TRACK, width=3)
        table.header = VGroup(*[g.col_labels for g in cols], *[g.box_group for g in cols])
        table.rows = [VGroup(*[g.entry(i, 0) for g in cols]) for i in range(len(v.d_ks))]
        return table

    def one_row(self):
        r, book = self.result, self.book
        name = self.q_names[r.query]
        self.step("同一行 softmax：不缩放时分数差距更大，权重更集中（查询 {}）。", name)
        self.clear_stage()
        i = r.query
        rows = [("row.scores", r.scores[i], style.decimals_for(r.scores), "q·k", style.TEXT),
                ("row.scaled", r.scaled[i], 4, "q·k/√dₖ", style.TEXT),
                ("weights_raw", r.weights_raw, 4, "softmax(q·k)", style.MUTED),
                ("weights_scaled", r.weights_scaled, 4, "softmax(q·k/√dₖ)", style.ACCENT)]
        grids = [labelled_grid(book, n, vals[None, :], d, row_labels=[lab], row_color=c,
                            col_labels=self.k_names if n == "row.scores" else None,
                            col_color=style.KEY, heat="weights" if n.startswith("weights") else None)
                 for n, vals, d, lab, c in rows]
        table = align_columns(grids, buff=0.12)
        upright_columns(grids[0])
        bars = grouped_bars(grids[0], [r.weights_raw, r.weights_scaled], [style.MUTED, style.ACCENT])
        query = book.text("查询 {}", name, color=style.QUERY, size=style.BODY_SIZE)
        peaks = book.text("最大权重：不缩放 {}　→　缩放后 {}", book.fmt("peak_raw", r.peak_raw),
                          book.fmt("peak_scaled", r.peak_scaled), color=style.TEXT)
        chart = VGroup(bars, table)
        fit(VGroup(query, chart, peaks).arrange(DOWN, buff=0.3), 13, 5.8).move_to(UP * 0.05)
        self.play(Appear(query), Appear(grids[0]), Appear(grids[1]))
        self.play(Appear(grids[2]), Appear(grids[3]))
        self.play(LaggedStart(*[FadeIn(b, shift=UP * 0.2) for b in bars], lag_ratio=0.08))
        self.play(Write(peaks))
