"""4.2 为什么拆成查询、键和值 and 4.3 缩放因子来自点积的方差:
Q, K, V projections, the QK^T grid and why the scores are divided by sqrt(d_k)."""
from itertools import product

from manim import DOWN, RIGHT, UP, FadeIn, LaggedStart, VGroup, Write

from scenes.clips.score_grid.parts import (AREA, FULL_SCALE, MIN_SCALE, WIDTH, WORDS, axis_names, direct_says,
                                           first_cell, first_scaled, lit_from, make_scaled, projection_block,
                                           projection_says, role_grid, row_caption, say_scaled, scaling_says,
                                           scores_says, shape_rule, variance_table, w_page)
from scenes.compute import scores as compute
from scenes.kit.motion import derive, expressions as ex
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.scene.inputs import LIMIT, InputError, integer, matrix, tokens
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.page.blocks import grouped_bars, heat_legend, over_columns, place_bars
from scenes.kit.compose.boards import (alone, corner, falk, fill, in_row, name_tag, picked, show_product, splits,
                               with_legend)
from scenes.kit.draw.columns import align_columns
from scenes.kit.motion.derive import Band
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import retitle
from scenes.kit.page.options import abbreviations, beside_or_apart, needs, optional, variants
from scenes.kit.page.page import Area, Page, phrase, plan, said, turn
from scenes.kit.text.style import decimals_cut_by_digits

ROLES = {"Q": "query", "K": "key", "V": "value"}     # each matrix's role: its colour read when drawn (style.ROLES)
RULE_Y = 2.85       # the shape rule of step 1, under the title
SAYS = WORDS["says"]        # step 1's caption for each role


def rules(raw: dict) -> dict:
    """X with W_Q, W_K, W_V; or Q, K (and V) directly."""
    if raw.get("q") is not None or raw.get("k") is not None:      # Q, K (and V) given directly
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
        q, k, v = (compute.project(x, w) for w in (wq, wk, wv))
        for name, out in (("wq", q), ("wk", k), ("wv", v)):
            if compute.beyond(out, LIMIT):
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
            Option('seed', 'seed of the sampled variance step (numpy default_rng)'),
            Option('tokens', 'one label per row, separated by spaces'),
        ),
    )
    section_scaling, title_scaling = "4.3", "缩放因子来自点积的方差"

    def compute(self):
        i = self.inputs
        r = compute.score_grid(**{n: i[n] for n in ("q", "k", "v", "x", "wq", "wk", "wv", "seed")})
        self.q_names = axis_names(self.book, i["tokens"], "q", len(r.q))
        self.k_names = axis_names(self.book, i["tokens"], "k", len(r.k))
        return r

    def provenance(self):
        return compute.provenance(self.result)

    def kinds(self) -> dict:
        return compute.kinds(self.result)

    def construct(self):
        self.storyboard(self.projections, self.fill_scores, self.scaling, self.one_row)

    def roles(self):
        """(values, W or None, name, W name, colour) for Q, K and V where present."""
        r = self.result
        return [(getattr(r, n.lower()), getattr(r, "w" + n.lower()), n, "W_" + n, style.ROLES[c])
                for n, c in ROLES.items()
                if getattr(r, n.lower()) is not None]

    # -- step 1: projections, or Q, K (V) as given
    def projections(self):
        if self.result.x is None:
            return self.given_directly()
        r, book = self.result, self.book
        rule = shape_rule(book, r).move_to(UP * RULE_Y)
        x = role_grid(book, "x", r.x, style.TEXT, "X",
                      row_labels=axis_names(book, self.inputs["tokens"], "x", len(r.x)))
        blocks = [projection_block(book, *role) for role in self.roles()]
        say = lambda page: projection_says(book, r, page)
        says = [said(phrase(SAYS[b.name]), say(b.name)) for b in blocks]
        whole = [Page(said(phrase("引入三个可训练矩阵：Q = X W_Q，K = X W_K，V = X W_V。"), say("all")),
                      lambda s: falk(x, blocks, s))]
        first = said(phrase("引入三个可训练矩阵，先看 Q = X W_Q：查询，当前位置怎样查找相关信息。"), say("first"))
        with_x = [Page(first if n == 0 else c, lambda s, b=b: falk(x, [b], s))      # blocks[0] is always Q
                  for n, (c, b) in enumerate(zip(says, blocks))]
        x_first = [Page(said(phrase("引入三个可训练矩阵：Q、K、V 都由同一个输入 X 投影而来，X 每行一个位置。"), say("x")),
                        alone(x))]
        each = x_first + [Page(c, alone(b)) for c, b in zip(says, blocks)]
        halves = x_first + [p for b, c in zip(blocks, says) for p in (
            Page(w_page(book, r, b.name), alone(b.w)), Page(c, alone(b.out)))]
        options = [whole, with_x, each, halves]
        area = Area(WIDTH, top=rule.get_bottom()[1] - 0.15)
        turn(self, plan(book, options, area, [MIN_SCALE] * len(options)), area,
             lambda m: show_product(self, m), keep=[rule], first=lambda: self.play(Appear(rule)))

    def given_directly(self):
        book, tokens = self.book, self.inputs["tokens"]
        grids = [role_grid(book, n.lower(), vals, c, n,
                           row_labels=axis_names(book, tokens, n.lower(), len(vals)))
                 for vals, _, n, _, c in self.roles()]
        names = [n for _, _, n, _, _ in self.roles()]
        run_names = lambda run: [names[grids.index(g)] for g in run]
        options = [[Page(direct_says(book, self.result, run_names(run), n == 0), in_row(run))
                    for n, run in enumerate(runs)]
                   for runs in splits(grids, WIDTH, 5.9, 0.6, MIN_SCALE)]
        turn(self, plan(book, options, AREA, [MIN_SCALE] * len(options)), AREA,
             lambda m: self.play(Appear(m), run_time=0.6))

    # -- steps 2 and 3: QK^T and its scaled form as heat grids
    def score_heat(self, name, values, low_high):
        """The grid (column labels set by each layout: whole or abbreviated), its legend and the
        two sets of column labels."""
        decimals = decimals_cut_by_digits(values)
        grid = MatrixGrid(self.book, name, values, decimals, heat="scores", row_labels=self.q_names,
                          row_color=style.QUERY)
        bar = heat_legend(self.book, f"{name}_legend", *low_high, decimals)
        corner(self.book, grid, "键 →", "查询 ↓", style.KEY, style.QUERY)
        return grid, bar, self.columns(grid)

    def columns(self, grid):
        """The grid's column labels: whole key names, and abbreviated ones when some are long."""
        def label(j, name):
            return self.book.label(name, color=style.KEY, size=style.LABEL_SIZE,
                                   place={"grid": grid.grid, "axis": "col", "index": j})
        return [[label(j, n) for j, n in enumerate(names)]
                for names in abbreviations(self.book, self.k_names, style.LABEL_CUT)]

    def fill_scores(self):
        r, book = self.result, self.book
        caption = scores_says(book, r, self.q_names[0], self.k_names[0])
        grid, bar, labels = self.score_heat("scores", r.scores, r.scores_range)
        head = book.math(r"S_{ij} = q_i \cdot k_j = \sum_r q_{i,r}\, k_{j,r}", size=36)
        tag = name_tag(book, r"QK^\top", "scores", r.scores.shape, style.ACCENT)
        first = first_cell(book, r, grid)
        band = Band([first])
        qk = self.sources()            # Q and K stay on the board, left of the grid, where they fit

        def board(cols, parts, s):     # the formula and the band (those of them this page has) above
            over_columns(grid, cols, s)
            right = VGroup(*[p for p in parts if p is not qk], with_legend(grid, tag, bar, 0.5, s))
            right.arrange(DOWN, buff=0.3 * s)
            if qk not in parts:
                return right
            VGroup(qk, right).arrange(RIGHT, buff=0.5 * s)
            qk.shift(UP * (grid.boxes[0][0].get_top()[1] - qk[0].grid.boxes[0][0].get_top()[1]))   # Q's rows level
            return VGroup(qk, right)
        # whole column labels first; the formula goes first, then Q and K, then the band
        parts = optional(head, qk, band)
        options = variants(lambda cols, shown: [Page(caption, lambda s: board(cols, shown, s))],
                           labels, parts)
        least = needs(options, FULL_SCALE, MIN_SCALE, last=len(parts))
        pages = plan(book, options, AREA, [FULL_SCALE if qk in shown else n
                                           for n, (_, shown) in zip(least, product(labels, parts))])
        turn(self, pages, AREA, lambda m: None)
        _, shown = picked(options, pages, labels, parts)
        kept = [Appear(qk)] if qk in shown else []
        if head in shown:
            self.play(Write(head), *kept)
            kept = []
        placed = VGroup(*[p for p in shown if p is not band], grid, tag)
        made = derive.room(self, placed, [first], band if band in shown else None)
        lit = lit_from(first, grid)    # from a row of Q and one of K: their cells, else the grid's names
        fill(self, grid, [ex.from_cells(lit, *[b.grid for b in qk]) if qk in shown else lit], made,
             Appear(tag), *kept)
        self.play(Appear(bar))

    def sources(self):
        """Q and K as step 1 draws them, side by side."""
        r, tokens = self.result, self.inputs["tokens"]
        names = (lambda n, k: {"row_labels": axis_names(self.book, tokens, n, k)}) if r.x is None else (
            lambda n, k: {})
        return VGroup(*[role_grid(self.book, n.lower(), vals, c, n, **names(n.lower(), len(vals)))
                        for vals, _, n, _, c in self.roles() if n in ("Q", "K")]).arrange(RIGHT, buff=0.45)

    def scaling(self):
        r, book = self.result, self.book
        v = r.variance
        d_k = book.index("d_k", r.d_k)
        caption = phrase("点积方差约为 dₖ，除以 √dₖ 把量级拉回 {one}；本例 dₖ = {d_k}，即一个头的宽度。",
                         one=book.const(1), d_k=d_k)
        caption_one = said(caption, scaling_says(book, r, "one"))
        caption = said(caption, scaling_says(book, r, "table"))
        table = variance_table(book, v, r.own)
        note = book.text("采样 {samples} 对单位方差 q、k，种子 {seed}",
                         samples=book.index("variance.samples", v.samples),
                         seed=book.index("seed", v.seed), size=style.LABEL_SIZE, color=style.MUTED)
        left = VGroup(table, note).arrange(DOWN, buff=0.3)
        scale = book.fmt("scale", r.scale)
        root = book.math(r"\sqrt{d_k} = \sqrt{@} = @", d_k, scale, color=style.TRACK, size=36)
        grid, bar, labels = self.score_heat("scaled", r.scaled, r.scaled_range)
        tag = book.math(r"QK^\top / \sqrt{d_k}", color=style.ACCENT)
        then = said(phrase("每个分数除以 √dₖ = {}：缩放后的分数网格，行仍是查询，列仍是键。", scale),
                    scaling_says(book, r, "grid"))
        made = first_scaled(book, r, grid, root)
        band = Band([made])

        def right(cols, parts, s):     # the factor, the band where this page has it, the scaled grid
            over_columns(grid, cols, s)
            return VGroup(root, *parts, with_legend(grid, tag, bar, 0.4, s)).arrange(DOWN, buff=0.3 * s)

        def pages(apart, cols, parts):  # the table beside the grid, else each on its own board
            blocks = [lambda s: left, lambda s: right(cols, parts, s)]
            return beside_or_apart(caption_one, [caption, then], blocks, most=[1.3])[apart]
        options = variants(pages, (False, True), labels, optional(band))
        turn(self, plan(book, options, AREA, needs(options, FULL_SCALE, MIN_SCALE)), AREA,
             lambda m: self.show_scaling(m, left, made, band),
             first=lambda: retitle(self, "section.scaling", self.section_scaling, self.title_scaling))

    def show_scaling(self, mob, left, made, band):
        """The table row by row, or the scaling factor and the scaled grid, its first cell made
        from the first score and said."""
        if mob is left:
            table, note = left
            self.play(Appear(table.header), Appear(note))
            self.play(LaggedStart(*[Appear(row) for row in table.rows], lag_ratio=0.3), run_time=1.2)
            return
        self.play(Write(mob[0]))
        if make_scaled(self, mob, left, made, band):
            say_scaled(self, self.result, made)

    # -- step 4: one row with and without scaling
    def one_row(self):
        r, book = self.result, self.book
        name = self.q_names[r.query]
        peaks = book.fmt("peak_raw", r.peak_raw), book.fmt("peak_scaled", r.peak_scaled)
        i = r.query
        # each row is a grid of its own, at the precision its own values take (display rule 3)
        rows = [("row.scores", r.scores[i], decimals_cut_by_digits(r.scores[i]), "q·k", style.TEXT),
                ("row.scaled", r.scaled[i], decimals_cut_by_digits(r.scaled[i]), "q·k/√dₖ", style.TEXT),
                ("weights_raw", r.weights_raw, 4, "softmax(q·k)", style.MUTED),
                ("weights_scaled", r.weights_scaled, 4, "softmax(q·k/√dₖ)", style.ACCENT)]
        grids = [MatrixGrid(book, n, vals[None, :], d, row_labels=[lab], row_color=c,
                            heat="weights" if n.startswith("weights") else None)
                 for n, vals, d, lab, c in rows]
        table = align_columns(grids, buff=0.12)
        bars = grouped_bars([r.weights_raw, r.weights_scaled], [style.MUTED, style.ACCENT], len(r.k),
                            labels=[[f"{n}[0][{j}]" for j in range(len(r.k))] for n in ("weights_raw", "weights_scaled")])
        query = book.text("查询 {}", name, color=style.QUERY, size=style.BODY_SIZE)
        line = book.text("最大权重：不缩放 {raw}　→　缩放后 {scaled}", raw=peaks[0], scaled=peaks[1], color=style.TEXT)
        caption = row_caption(book, r, name, peaks)

        def board(cols, s):
            place_bars(bars, over_columns(grids[0], cols, s), s)
            return VGroup(VGroup(query, VGroup(bars, table), line).arrange(DOWN, buff=0.3 * s))
        options = variants(lambda cols: [Page(caption, lambda s: board(cols, s))], self.columns(grids[0]))
        pages = plan(book, options, AREA, needs(options, FULL_SCALE, MIN_SCALE))
        turn(self, pages, AREA, lambda m: None)
        self.play(Appear(query), Appear(grids[0]), Appear(grids[1]))
        self.play(Appear(grids[2]), Appear(grids[3]))
        self.play(LaggedStart(*[FadeIn(b, shift=UP * 0.2) for b in bars], lag_ratio=0.08))
        self.play(Write(line))
