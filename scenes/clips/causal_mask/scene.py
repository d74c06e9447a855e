"""4.4–4.5 因果掩码为什么应放在 softmax 前: the lab's five-step table, the −∞ mask,
the post-softmax route, the masked diagonal, the causality check and the cache view."""
from manim import LEFT, ORIGIN, Write

from scenes.clips.causal_mask.five import five_steps
from scenes.clips.causal_mask.parts import (AREA, WORDS, cache_grids, diagonal_words, formula, mask_case,
                                            mask_say, route_grids, route_note, route_words, said,
                                            shrink_words)
from scenes.clips.causal_mask.check import changed_inputs, check_note, check_say
from scenes.clips.causal_mask.padding import padding_step
from scenes.compute import masking as compute, padding as padded
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.scene.inputs import InputError, flag, integer, matrix, number, tokens
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.compose.arrange import below, beside_or_below, by_column, head_beside, linked, part
from scenes.kit.page.blocks import RowNames, arrow, row_of
from scenes.kit.page.marked import column, grid
from scenes.kit.page.page import Page, phrase, plan, turn


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
    pad = integer(raw.get("pad", min(2, len(k) - 1)), "pad", 0, len(k) - 1)
    pad_side = str(raw.get("pad_side", "left"))
    if pad_side not in ("left", "right"):
        raise InputError("pad_side", pad_side, "must be left or right")
    return {"q": q, "k": k, "v": v, "track": track, "scale": not flag(raw.get("no_scale")),
            "causal": causal, "diagonal": diagonal, "cached": cached,
            "tokens": tokens(raw.get("tokens"), len(k)), "delta": delta, "cache_view": cache_view,
            "pad": pad, "pad_side": pad_side}


class CausalMask(ClipScene):
    spec = Clip(
        name="causal-mask", section="4.4", title="因果掩码为什么应放在 softmax 前",
        summary="4.4 softmax 前的因果掩码、五步查询表与因果性检查",
        rules=rules,
        defaults={"q": "1 0; 0 1; 1 1", "k": "1 0; 0 1; 1 1", "v": "1 0; 0 1; 1 1",
                  "delta": 10, "cache_view": 3},
        options=(
            Option('q', "queries, e.g. '1 0; 0 1; 1 1'"),
            Option('k', 'keys (as wide as Q)'),
            Option('v', 'values (as many rows as K)'),
            Option('track', 'the query row followed'),
            Option('no-scale', 'do not divide by sqrt(d_k)', flag=True),
            Option('no-causal', 'no mask', flag=True),
            Option('diagonal', 'triu diagonal: 1 keeps the diagonal, 0 masks it too'),
            Option('cached', 'positions already in the cache'),
            Option('tokens', 'one label per key, separated by spaces'),
            Option('delta', 'causality check: added to the last row of K and V'),
            Option('cache-view', 'cached positions drawn in the cache view when --cached is 0'),
            Option('pad', 'padding step: pad keys, 0 <= N < keys (default 2, or keys - 1)'),
            Option('pad-side', 'padding step: pads on the left (a prefix) or the right (a suffix)'),
        ),
    )

    def provenance(self) -> dict:
        i = self.inputs
        out = compute.provenance(self.result, i["diagonal"], i["cached"], i["causal"])
        out.update(padded.provenance(self.result.padding, len(self.result.steps.q), len(self.result.steps.k)))
        return out

    def kinds(self) -> dict:
        return compute.kinds(self.result, self.inputs["cached"])

    def compute(self) -> compute.CausalLesson:
        i = self.inputs
        r = compute.causal_lesson(i["q"], i["k"], i["v"], i["track"], i["scale"], i["causal"],
                                  i["diagonal"], i["cached"], i["delta"], i["cache_view"], i["pad"], i["pad_side"])
        book, tokens = self.book, i["tokens"]
        self.keys = ([book.user_text(t) for t in tokens] if tokens
                     else [book.compose("k{}", book.index(f"key[{j}]", j)) for j in range(len(r.steps.k))])
        # a query is called by its position among the keys when it has one (cached + row)
        self.called = [int(p) if r.aligned else n for n, p in enumerate(r.positions)]
        self.queries = [book.user_text(tokens[p]) if tokens and r.aligned
                        else book.compose("q{}", book.index(f"query[{n}]", self.called[n]))
                        for n, p in enumerate(r.positions)]
        # on grids long tokens are cut short, so that columns keep their width
        self.key_names = [book.abbreviated(t, style.LABEL_CUT) for t in tokens] if tokens else self.keys
        self.query_names = ([book.abbreviated(tokens[p], style.LABEL_CUT) for p in r.positions]
                            if tokens and r.aligned else self.queries)
        return r

    def construct(self) -> None:
        self.storyboard(
            self.five_steps,
            self.mask_before_softmax,
            self.other_route,
            self.other_diagonal,
            self.padding,
            self.causality_check,
            self.cache_view,
        )

    # -- helpers
    def qname(self):
        return self.queries[self.result.track]

    def qindex(self):
        t = self.result.track
        return self.book.index(f"query[{t}]", self.called[t])

    def page(self, caption, blocks, reveal, say=()) -> Page:
        """A page of a step: its blocks (related: kit/compose/arrange.py) laid out as plan() measures it."""
        blocks = part(blocks)
        return Page(caption, blocks.group, reveal, say, lay=blocks.lay(self.book, AREA))

    def mask_pages(self, whole, alone, head, steps, suffix, say, top=None, note=None):
        """M (0 / −∞) linked to A with each row's sum: one step, or two (M, then A) when together
        they would be too small to read; whole, alone: phrases; say: what is said of (M, A)."""
        book = self.book
        m = grid(book, f"mask{suffix}", steps.mask, 0, row_labels=self.query_names, row_color=style.QUERY,
                 col_labels=self.key_names, col_color=style.KEY, header=head, header_color=style.MASK)
        a = grid(book, f"weights{suffix}", steps.weights, hidden=steps.hidden, heat="weights",
                 col_labels=self.key_names, col_color=style.KEY, header="A = softmax(S + M)")
        sums = column(book, f"row_sums{suffix}", steps.row_sums, col_labels=["行和"], col_color=style.ACCENT)
        weights, link = row_of([a, sums], buff=0.15), arrow(book)
        made = linked(m, link, weights, RowNames(book, a, self.query_names, style.QUERY))
        first, second = made.apart()
        intro = [[Write(top)]] if top is not None else []
        ending = [[Appear(note)]] if note is not None else []
        one = self.page(whole, below(top, made, note, gap=0.45),
                        intro + [[Appear(m)], [Appear(link), Appear(weights)]] + ending, say)
        two = [self.page(whole, below(top, first, gap=0.45), intro + [[Appear(m)]], say[:1]),
               self.page(alone, below(second, note, gap=0.45), [[Appear(weights)]] + ending, say[1:])]
        turn(self, plan(book, [[one], two], AREA), AREA)

    # -- steps
    def five_steps(self):
        turn(self, five_steps(self), AREA)

    def mask_before_softmax(self):
        r, book, causal = self.result, self.book, self.inputs["causal"]
        case = mask_case(r, causal)
        slots = {"row": book.index("nan_row", r.nan_rows[0])} if case == "nan" else {"one": book.const(1)}
        diagonal = self.inputs["diagonal"]
        triu = book.index("triu_diagonal", diagonal + self.inputs["cached"]) if causal else None
        head = book.compose("M：triu(diagonal={}) 标出的位置为 −∞", triu) if causal else "掩码关闭：M 全为零"
        whole, alone = WORDS["mask"][case]
        self.mask_pages(phrase(whole, **slots), phrase(alone, **slots), head, r.steps, "",
                        mask_say(case, diagonal, triu, slots), top=formula(book, self.inputs["scale"]))

    def other_route(self):
        r, book, post = self.result, self.book, self.result.post
        probs, sums, zeroed, renorm = route_grids(book, post, r.steps, self.inputs["causal"],
                                                  self.query_names, self.key_names)
        if not r.steps.hides_any:        # nothing to zero: the two routes are one
            page = row_of([probs, sums], buff=0.15)
            say = said("route.none" if self.inputs["causal"] else "route.none.open")
            none = WORDS["route_none"]["causal" if self.inputs["causal"] else "open"]
            only = Page(phrase(none), page, [[Appear(page)]], [say])
            return turn(self, [only], AREA)
        (cut, shrink), (route, tail) = shrink_words(book, r.shrink_case), route_words(book, r)
        intro = [said("route.intro"), said(shrink)]
        note, link, right = route_note(book, r), arrow(book), row_of([zeroed, sums], buff=0.15)
        top = linked(probs, link, right, RowNames(book, zeroed, self.query_names, style.QUERY), gap=1.0)
        bottom = beside_or_below(renorm, note, edge=ORIGIN)
        alone, zeroed_alone = top.apart()
        shown = [[Appear(probs)], [Appear(link), Appear(right)]]
        last = self.page(phrase("{route}。", route=route), bottom, [[Appear(renorm)], [Appear(note)]], tail)
        options = [
            [self.page(phrase("另一条路：先 softmax 再把未来置零，{cut}；{route}。", cut=cut, route=route),
                       below(top, bottom, gap=0.5, edge=LEFT), shown + [[Appear(renorm)], [Appear(note)]],
                       intro + tail)],
            [self.page(phrase("另一条路：先 softmax 再把未来置零，{cut}。", cut=cut), top, shown, intro), last],
            [self.page(phrase("另一条路：先对全部的键做 softmax，得到 P。"), alone, [[Appear(probs)]], [said("route.p")]),
             self.page(phrase("再把未来置零，{cut}。", cut=cut), zeroed_alone, [[Appear(right)]],
                       [said("route.zero"), intro[1]]),
             last]]
        turn(self, plan(book, options, AREA), AREA)

    def other_diagonal(self):
        r, book, causal = self.result, self.book, self.inputs["causal"]
        d = r.variant_diagonal
        says, slots, case = diagonal_words(book, r, causal)
        triu = book.index("variant_triu", d + self.inputs["cached"])
        head = book.compose(WORDS["diagonal_head"][str(d)], triu)
        note = book.label("整行都是 −∞ 时，普通 softmax 得到 NaN：检查每行是否还留有可见的键。",
                          size=style.LABEL_SIZE, color=style.MUTED)
        alone = (phrase("A = softmax(S + M)：第 {} 行没有可见的键，得到 NaN。", slots["row"])
                 if d == 0 and case == "nan"
                 else phrase("A = softmax(S + M)：每行都还有可见的键，每行和为 {one}。", one=book.const(1)))
        self.mask_pages(phrase(says, **slots), alone, head, r.variant, f"_diagonal{d}",
                        [said(f"diag{d}.{case}.m", **slots), said(f"diag{d}.{case}.a")], note=note)

    def padding(self):
        padding_step(self)

    def causality_check(self):
        r, book, t = self.result, self.book, self.result.track
        verdict = book.compose(WORDS["verdict"][r.verdict_on[t]][r.verdict_off[t]], self.qname())
        caption = phrase("因果性检查：只改 K、V 的最后一行；{}。", verdict)
        row, ch = r.changed_row, r.check_on
        changed = book.index("changed_row", row)
        by = book.fmt("delta", r.delta, style.decimals_for([r.delta]))
        delta = book.text("只改第 {row} 行：K、V 各加 {delta}", row=changed, delta=by, size=style.LABEL_SIZE,
                          color=style.ACCENT)
        n = range(len(self.queries))
        shifts = grid(book, [[f"shift_causal[{i}]", f"shift_open[{i}]"] for i in n],
                      [[a, b] for a, b in zip(ch.shift, r.check_off.shift)],
                      hidden=r.unchanged, hidden_mark="unchanged",
                      hidden_color=style.VALUE, row_labels=self.query_names, row_color=style.QUERY,
                      col_labels=["有掩码", "无掩码"], header="各输出的最大变化 max|Δz|").frame_row(t, style.TRACK)
        outputs = [ch.before[t], ch.after[t], r.check_off.before[t], r.check_off.after[t]]
        z = grid(book, [[f"{n}[{t}][{c}]" for c in range(ch.before.shape[1])]
                        for n in ("causal_before", "causal_after", "open_before", "open_after")],
                 outputs, style.decimals_for(outputs),
                 row_labels=["有掩码 改前", "有掩码 改后", "无掩码 改前", "无掩码 改后"],
                 header=book.compose("跟踪的输出 z{}", self.qindex()), header_color=style.TRACK)
        note = check_note(self)
        shown = by_column(changed_inputs(self, row, delta, proxies=True), shifts, z, note)
        # the inputs in full where that reads
        left = changed_inputs(self, row, delta, proxies=False, full=shown.reads(book, AREA))
        found = check_say(self, changed)
        ask = [said("check.ask"), said("check.change", row=changed, delta=by)]
        inputs = Page(caption, left, [[Appear(left)]], ask + [said("check.rule")])
        after = phrase("只有最后一行变了：{}。", verdict)
        # One page; or the inputs on a page of their own, the outputs stacked or beside, or on two pages.
        options = [
            [self.page(caption, by_column(left, shifts, z, note),
                       [[Appear(left)], [Appear(shifts)], [Appear(z), Appear(note)]], ask + found)],
            [inputs, self.page(after, head_beside(shifts, z, note),
                               [[Appear(shifts)], [Appear(z), Appear(note)]], [*found, said("check.why")])],
            [inputs, Page(after, shifts, [[Appear(shifts)]], found),
             self.page(after, below(z, note, gap=0.45), [[Appear(z), Appear(note)]], [said("check.why")])]]
        turn(self, plan(book, options, AREA), AREA)

    def cache_view(self):
        book, c, d = self.book, self.result.cache, self.inputs["diagonal"]
        n_c, first = book.index("cached", c.cached), book.index("cache_visible[0]", c.visible[0])
        self.step(WORDS["cache"]["causal" if self.inputs["causal"] else "open"], cached=n_c, seen=first)
        view = said(f"cache.diag{d}" if c.hides_any else "cache.full",
                    allowed=book.index("allowed_legend", 1), cached=n_c, seen=first)
        for template, slots, named in [view] if self.inputs["causal"] else [said("cache.open"), view]:
            self.narrate(template, *slots, **named)
        self.clear_stage()
        fresh, cached, legend = cache_grids(book, c, d, n_c, first)
        below(beside_or_below(fresh, cached, gap=1.0), legend, gap=0.5).place(book, AREA)
        self.play(Appear(fresh))
        self.play(Appear(cached), Appear(legend))
