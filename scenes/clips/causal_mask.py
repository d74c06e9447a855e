"""4.4–4.5 因果掩码为什么应放在 softmax 前: the lab's five-step table, the −∞ mask,
the post-softmax route, the masked diagonal, the causality check and the cache view."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for plain `manim` runs

from manim import DOWN, LEFT, RIGHT, UP, VGroup, Write

from scenes.kit.anim import Appear
from scenes.compute import masking as compute
from scenes.kit import style
from scenes.kit.base import ClipScene
from scenes.pipeline.inputs import InputError, flag, integer, matrix, number, tokens
from scenes.pipeline.registry import Clip, Option
from scenes.clips.causal_mask_parts import grid, side_by_side, vector_text
from scenes.kit.layout import fit

NARROW = 4   # K, V and outputs at most this wide are drawn in full
AREA = (13.0, 5.6)   # width, height the steps fill
GROW = 1.35          # small grids grow at most this much
VERDICT = {"same": "不变", "moved": "改变", "nan": "为 NaN"}


def rules(raw: dict) -> dict:
    q, k, v = matrix(raw["q"], "q"), matrix(raw["k"], "k"), matrix(raw["v"], "v")
    if q.shape[1] != k.shape[1]:
        raise InputError("k", raw["k"], f"must be as wide as --q ({q.shape[1]} columns)")
    if len(v) != len(k):
        raise InputError("v", raw["v"], f"needs as many rows as --k ({len(k)})")
    causal = not flag(raw.get("no_causal"))
    cached = integer(raw.get("cached", 0), "cached", 0, 7)
    diagonal = integer(raw.get("diagonal", 1), "diagonal", 0, 1)
    if causal and len(q) + cached != len(k):
        raise InputError("k", raw["k"], f"with the causal mask, --k needs rows of --q + --cached "
                                        f"= {len(q) + cached}, got {len(k)}")
    track = integer(raw.get("track", 1 if len(q) > 1 else 0), "track", 0, len(q) - 1)
    delta = number(raw.get("delta", 10), "delta")
    if not (0 < abs(delta) <= 100):
        raise InputError("delta", str(raw.get("delta")), "must be non-zero and in [-100, 100]")
    cache_view = integer(raw.get("cache_view", 3), "cache_view", 1, 5)
    return {"q": q, "k": k, "v": v, "track": track, "scale": not flag(raw.get("no_scale")),
            "causal": causal, "diagonal": diagonal, "cached": cached,
            "tokens": tokens(raw.get("tokens"), len(k)), "delta": delta, "cache_view": cache_view}


class CausalMask(ClipScene):
    spec = Clip(
        name="causal-mask", section="4.4", title="因果掩码为什么应放在 softmax 前",
        summary="4.4 softmax 前的因果掩码、五步查询表与因果性检查",
        rules=rules,
        defaults={"q": "1 0; 0 1; 1 1", "k": "1 0; 0 1; 1 1", "v": "1 0; 0 1; 1 1", "delta": 10, "cache_view": 3},
        options=(
            Option('q', "queries, e.g. '1 0; 0 1; 1 1'"),
            Option('k', 'keys (as wide as Q)'),
            Option('v', 'values (as many rows as K)'),
            Option('track', 'the query row followed'),
            Option('no-scale', 'do not divide by sqrt(d_k)', flag=True),
            Option('no-causal', 'no mask', flag=True),
            Option('diagonal', 'triu diagonal: 1 keeps the diagonal, 0 masks it too'),
            Option('cached', 'positions already in the cache'),
            Option('tokens', 'one label per key'),
            Option('delta', 'causality check: added to the last row of K and V'),
            Option('cache-view', 'cached positions drawn in the cache view when --cached is 0'),
        ),
    )

    def compute(self):
        i = self.inputs
        r = compute.causal_lesson(i["q"], i["k"], i["v"], i["track"], i["scale"], i["causal"],
                                  i["diagonal"], i["cached"], i["delta"], i["cache_view"])
        book, tokens = self.book, i["tokens"]
        self.keys = ([book.user_text(t) for t in tokens] if tokens
                     else [book.compose("k{}", book.index(f"key[{j}]", j)) for j in range(len(r.steps.k))])
        self.queries = [book.user_text(tokens[p]) if tokens and r.aligned
                        else book.compose("q{}", book.index(f"query[{n}]", n))
                        for n, p in enumerate(r.positions)]
        return r

    def construct(self):
        self.five_steps()
        self.mask_before_softmax()
        self.other_route()
        self.mask_the_diagonal()
        self.causality_check()
        self.cache_view()
        self.end()

    # -- helpers
    def qname(self):
        return self.queries[self.result.track]

    def qindex(self):
        t = self.result.track
        return self.book.index(f"query[{t}]", t)

    def input_grid(self, name, label, values, color, changed=None):
        mob = grid(self.book, label, values, style.decimals_for(values), row_labels=self.keys,
                   row_color=style.KEY, header=name, header_color=color)
        return mob.frame_row(changed, style.ACCENT) if changed is not None else mob

    def mask_and_weights(self, steps, suffix, head):
        """M (0 / −∞) then A with each row's sum: the −∞ route as two grids."""
        book, hidden = self.book, steps.mask != 0
        m = grid(book, f"mask{suffix}", steps.mask, 0, row_labels=self.queries, row_color=style.QUERY,
                 col_labels=self.keys, col_color=style.KEY, header=head, header_color=style.MASK)
        a = grid(book, f"weights{suffix}", steps.weights, hidden=hidden, heat="weights",
                 col_labels=self.keys, col_color=style.KEY, header="A = softmax(S + M)")
        sums = grid(book, [[f"row_sums{suffix}[{i}]"] for i in range(len(steps.row_sums))],
                    steps.row_sums[:, None], col_labels=["行和"], col_color=style.ACCENT)
        side_by_side([a, sums], buff=0.15)
        wide = VGroup(m, VGroup(a, sums)).arrange(RIGHT, buff=1.2)
        across = min(13.0 / wide.width, 4.6 / wide.height)
        tall = VGroup(m, VGroup(a, sums)).arrange(DOWN, buff=0.9)
        if across >= min(13.0 / tall.width, 4.6 / tall.height):    # M beside A, or above it
            VGroup(m, VGroup(a, sums)).arrange(RIGHT, buff=1.2)
            arrow = book.label("→", size=style.TITLE_SIZE, color=style.MUTED)
            arrow.move_to((m.box_group.get_right() + a.box_group.get_left()) / 2).match_y(m.box_group)
        else:
            arrow = book.label("↓", size=style.TITLE_SIZE, color=style.MUTED)
            arrow.move_to((m.box_group.get_bottom() + a.get_top()) / 2).match_x(m.box_group)
        return VGroup(m, arrow, VGroup(a, sums)), m, a, sums

    def formula(self):
        s = r"\frac{QK^{\top}}{\sqrt{d_k}}" if self.inputs["scale"] else r"QK^{\top}"
        return self.book.math(r"A = \mathrm{softmax}\left(" + s + r" + M\right)", size=34)

    # -- steps
    def five_steps(self):
        book, s, t = self.book, self.result.steps, self.result.track
        self.step("让查询 {} 走完注意力的五步：点积、缩放、掩码、softmax，再加权求和。", self.qname())
        hidden = s.mask[t] != 0
        narrow = max(s.k.shape[1], s.v.shape[1]) <= NARROW   # K and V drawn beside the table
        cols = [("scores", s.scores, "q·k", None), ("scaled", s.scaled, "缩放后", None),
                ("masked", s.masked, "掩码后", "scores"), ("weights", s.weights, "权重 A", "weights")]
        table = [grid(book, [[f"{name}[{t}][{j}]"] for j in range(len(s.k))], vals[t][:, None],
                      hidden=hidden[:, None] if name in ("masked", "weights") else None, heat=heat,
                      col_labels=[head], col_color=style.TRACK,
                      row_labels=None if narrow or name != "scores" else self.keys, row_color=style.KEY)
                 for name, vals, head, heat in cols]
        k = self.input_grid("K", "k", s.k, style.KEY) if narrow else VGroup()
        v = (grid(book, "v", s.v, style.decimals_for(s.v), header="V", header_color=style.VALUE)
             if narrow else VGroup())
        body = side_by_side([k, *table, v] if narrow else table, buff=0.2)
        query = book.text("当前查询 {} = {}", self.qname(), vector_text(book, f"q[{t}]", s.q[t]),
                          color=style.QUERY)
        scale = (book.compose("÷ √dₖ = ÷ {}", book.fmt("scale", s.scale)) if self.inputs["scale"]
                 else book.compose("未缩放"))
        seen = book.compose("可见的键 {} / {}", book.index(f"visible[{t}]", s.visible[t]),
                            book.index("keys", len(s.k)))
        total = book.compose("Σ A = {}", book.fmt(f"row_sums[{t}]", s.row_sums[t]))
        seen = book.text("{}    {}    {}", scale, seen, total, size=style.LABEL_SIZE, color=style.MUTED)
        out = grid(book, [[f"output[{t}][{c}]" for c in range(len(s.output[t]))]], s.output[t][None, :],
                   row_labels=[book.compose("z{} = Σ Aⱼ vⱼ", self.qindex())], row_color=style.ACCENT)
        fit(VGroup(query, body, seen, out).arrange(DOWN, buff=0.3), *AREA, most=GROW).move_to(DOWN * 0.05)
        self.play(Appear(query), Appear(k), Appear(v))
        for column in table:
            self.play(Appear(column), run_time=0.6)
        self.play(Appear(seen))
        dim = [v.row(j) for j in range(len(s.k)) if hidden[j]] if narrow else []
        self.play(Appear(out), *[m.animate.set_opacity(0.3) for m in dim])

    def mask_before_softmax(self):
        r, book = self.result, self.book
        causal = self.inputs["causal"]
        if not causal:
            self.step("因果掩码已关闭：M 全为零，每个查询看见全部的键，每行和为一。")
        elif len(r.nan_rows):
            row = book.index("nan_row", r.nan_rows[0])
            self.step("加性掩码 M 在 softmax 前相加；对角线也被遮住，第 {} 行全为 −∞，得到 NaN。", row)
        else:
            self.step("加性掩码 M：未来位置为 −∞，在 softmax 前相加；被遮住的权重恰为零，每行和为一。")
        self.clear_stage()
        head = (book.compose("M：triu(diagonal={}) 标出的位置为 −∞", book.index("diagonal", self.inputs["diagonal"]))
                if causal else "掩码关闭：M 全为零")
        group, *_ = self.mask_and_weights(r.steps, "", head)
        formula = self.formula()
        fit(group, 13.0, 4.4, most=GROW)
        fit(VGroup(formula, group).arrange(DOWN, buff=0.4), *AREA).move_to(DOWN * 0.05)
        self.play(Write(formula))
        self.play(Appear(group[0]))
        self.play(Appear(group[1]), Appear(group[2]))

    def other_route(self):
        r, book, post = self.result, self.book, self.result.post
        self.step("另一条路：先 softmax 再把未来置零，行和小于一；每行除以剩余和后与 −∞ 路线相同。"
                  if self.inputs["causal"] else "掩码关闭时没有未来位置可置零：先 softmax 再置零，两条路线相同。")
        self.clear_stage()
        hidden = r.steps.mask != 0
        cols = dict(col_labels=self.keys, col_color=style.KEY)
        probs = grid(book, "post_probs", post.probs, heat="weights", row_labels=self.queries,
                     row_color=style.QUERY, header="P = softmax(S)", **cols)
        zeroed = grid(book, "post_zeroed", post.zeroed, hidden=hidden, heat="weights",
                      header="未来置零", header_color=style.MASK, **cols)
        sums = grid(book, [[f"post_row_sums[{i}]"] for i in range(len(post.row_sums))],
                    post.row_sums[:, None], col_labels=["剩余和"], col_color=style.ACCENT)
        renorm = grid(book, "post_renormalised", post.renormalised, hidden=hidden, heat="weights",
                      row_labels=self.queries, row_color=style.QUERY, header="每行 ÷ 剩余和",
                      header_color=style.VALUE, **cols)
        side_by_side([probs, zeroed], buff=1.0)
        side_by_side([zeroed, sums], buff=0.15)
        arrow = book.label("→", size=style.TITLE_SIZE, color=style.MUTED)
        arrow.move_to(VGroup(probs.box_group, zeroed.box_group))
        gap = VGroup(book.label("与 −∞ 路线的 A 相同", color=style.VALUE),
                     book.text("最大差：{}", book.fmt("route_gap", r.route_gap), color=style.ACCENT)
                     ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        bottom = VGroup(renorm, gap).arrange(RIGHT, buff=0.8)
        top = VGroup(probs, arrow, zeroed, sums)
        fit(VGroup(top, bottom).arrange(DOWN, buff=0.5, aligned_edge=LEFT), *AREA, most=GROW).move_to(DOWN * 0.05)
        self.play(Appear(probs))
        self.play(Appear(arrow), Appear(zeroed), Appear(sums))
        self.play(Appear(renorm))
        self.play(Write(gap))

    def mask_the_diagonal(self):
        r, book = self.result, self.book
        d0 = r.diagonal_masked
        diag = book.index("diagonal_masked", 0)
        if len(r.diagonal_nan_rows):
            row = book.index("diagonal_nan_row", r.diagonal_nan_rows[0])
            self.step("把对角线也遮住（diagonal={}）：第 {} 行没有可见的键，softmax 得到 NaN。", diag, row)
        else:
            self.step("把对角线也遮住（diagonal={}）：有缓存时每行仍有可见的键，不出现 NaN。", diag)
        self.clear_stage()
        head = book.compose("M：triu(diagonal={})，对角线也为 −∞", diag)
        group, m, a, sums = self.mask_and_weights(d0, "_diagonal0", head)
        note = book.label("整行都是 −∞ 时，普通 softmax 得到 NaN：检查每行是否还留有可见的键。",
                          size=style.LABEL_SIZE, color=style.MUTED)
        fit(group, 13.0, 4.6, most=GROW)
        fit(VGroup(group, note).arrange(DOWN, buff=0.5), *AREA).move_to(DOWN * 0.05)
        self.play(Appear(m))
        self.play(Appear(group[1]), Appear(a), Appear(sums))
        self.play(Appear(note))

    def causality_check(self):
        r, book, t = self.result, self.book, self.result.track
        on, off = VERDICT[r.verdict_on[t]], VERDICT[r.verdict_off[t]]
        if on == off == VERDICT["moved"]:
            self.step("因果性检查：只改 K、V 的最后一行；{} 本就看得见这一行，有无掩码输出都改变。", self.qname())
        else:
            self.step("因果性检查：只改 K、V 的最后一行；{} 的输出有掩码时" + on + "，无掩码时" + off + "。",
                      self.qname())
        self.clear_stage()
        row = r.changed_row
        k = self.input_grid("K′", "k_changed", r.check_on.k_changed, style.KEY, row)
        v = self.input_grid("V′", "v_changed", r.check_on.v_changed, style.VALUE, row)
        v.remove(v.row_labels)
        delta = book.text("只改第 {} 行：K、V 各加 {}", book.index("changed_row", row),
                          book.fmt("delta", r.delta, style.decimals_for([r.delta])),
                          size=style.LABEL_SIZE, color=style.ACCENT)
        left = VGroup(side_by_side([k, v], buff=0.4), delta).arrange(DOWN, buff=0.35)
        n = range(len(self.queries))
        same = [[r.verdict_on[i] == "same", r.verdict_off[i] == "same"] for i in n]
        shifts = grid(book, [[f"shift_causal[{i}]", f"shift_open[{i}]"] for i in n],
                      [[a, b] for a, b in zip(r.check_on.shift, r.check_off.shift)], hidden=same,
                      hidden_color=style.VALUE, row_labels=self.queries, row_color=style.QUERY,
                      col_labels=["有掩码", "无掩码"], header="各输出的最大变化 max|Δz|")
        shifts.frame_row(t, style.TRACK)
        z = grid(book, [[f"{n}[{t}][{c}]" for c in range(r.check_on.before.shape[1])]
                        for n in ("causal_before", "causal_after", "open_before", "open_after")],
                 [r.check_on.before[t], r.check_on.after[t], r.check_off.before[t], r.check_off.after[t]],
                 row_labels=["有掩码 改前", "有掩码 改后", "无掩码 改前", "无掩码 改后"],
                 header=book.compose("跟踪的输出 z{}", self.qindex()), header_color=style.TRACK)
        if len(r.check_on.before[t]) <= NARROW:
            layout = VGroup(left, VGroup(shifts, z).arrange(DOWN, buff=0.45)).arrange(RIGHT, buff=0.8)
        else:
            layout = VGroup(VGroup(left, shifts).arrange(RIGHT, buff=0.8), z).arrange(DOWN, buff=0.4)
        fit(layout, *AREA, most=GROW).move_to(DOWN * 0.05)
        self.play(Appear(left))
        self.play(Appear(shifts))
        self.play(Appear(z))

    def cache_view(self):
        book, c = self.book, self.result.cache
        n_c, first = book.index("cached", c.cached), book.index("cache_visible[0]", c.visible[0])
        self.step("缓存视角：已有 {} 个位置时，新块第一行可看见 {} 个位置，而不是重新画三角形。", n_c, first)
        self.clear_stage()
        one = book.index("allowed_legend", 1)
        fresh = grid(book, "fresh", c.fresh, 0, hidden=c.fresh == 0, heat="weights",
                     row_labels=[book.index(f"fresh_row[{i}]", i) for i in range(len(c.fresh))],
                     col_labels=[book.index(f"fresh_key[{j}]", j) for j in range(len(c.fresh))],
                     row_color=style.QUERY, col_color=style.KEY, header="无缓存：每行看见对角线及其左边")
        cached = grid(book, "cache_allowed", c.allowed, 0, hidden=c.allowed == 0, heat="weights",
                      row_labels=[book.index(f"cache_row[{n}]", p) for n, p in enumerate(c.positions)],
                      col_labels=[book.index(f"cache_key[{j}]", j) for j in range(c.allowed.shape[1])],
                      row_color=style.QUERY, col_color=style.KEY,
                      header=book.compose("已缓存 {} 个位置：新块第一行看见 {} 个", n_c, first))
        for j in range(c.cached):
            cached.col_labels[j].set_color(style.MUTED)
        cached.frame_row(0, style.TRACK)
        legend = book.text("{} 表示允许参与注意力；红框为遮住的位置。", one, size=style.LABEL_SIZE,
                            color=style.MUTED)
        pair = VGroup(fresh, cached).arrange(RIGHT, buff=1.0, aligned_edge=UP)
        fit(VGroup(pair, legend).arrange(DOWN, buff=0.5), *AREA, most=GROW).move_to(DOWN * 0.05)
        self.play(Appear(fresh))
        self.play(Appear(cached), Appear(legend))
