"""Step 1 of the causal-mask clip: the five steps of the tracked query as the lab's table (key |
q·k | scaled | masked | weight A, then the output Σ A·v). Each column is made in front of the
viewer: one entry derived from its sources (scenes/kit/motion/derive.py), on the first key the query
may see, then the rest of the column at once; the masked column slides the visible scores over
and drops −∞ onto the future keys. A row with no visible key says why it is NaN."""
from __future__ import annotations

from manim import RIGHT, VGroup

from scenes.clips.causal_mask.parts import AREA, NARROW, WORDS, input_grid, said
from scenes.kit.motion.sweep import sweep
from scenes.kit.motion import derive, expressions as ex
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.compose.arrange import below, beside, whole_or_halves
from scenes.kit.motion.derive import Band
from scenes.kit.page.blocks import RowNames, proxy, row_of, stack
from scenes.kit.motion.expressions import Term, cell
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.page.marked import column, grid, line, vector_text
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Page, fits, phrase

SCALE_SIZE = 30     # the ÷ √dₖ formula, as tall as the line's words
WITH_INPUTS = 0.75  # K and V stand beside the five-step table while it keeps this scale
# the worked weight with no visible key or one, an output with none, said in their place
# (scenes/kit/motion/derive.py said_as); then the number
WORK = WORDS["work"]


def five_blocks(book: NumberBook, r, inputs: dict, qname: Shown, qindex: Shown) -> tuple:
    """Step 1's lines around the table: the query, the scale and visible keys, the NaN note, the
    output row; and the divisor √dₖ (None unscaled)."""
    s, t = r.steps, r.track
    if len(s.q[t]) <= NARROW:
        query = book.text("当前查询 {query} = {q}", query=qname, q=vector_text(book, f"q[{t}]", s.q[t]),
                          color=style.QUERY)
    else:                      # a wide query: its numbers in a row of cells, its name above
        query = line(book, f"q[{t}]", s.q[t], decimals=style.decimals_for(s.q[t]),
                     header=book.compose("当前查询 {}", qname), header_color=style.QUERY)
    divisor = book.fmt("scale", s.scale) if inputs["scale"] else None
    # ÷ √dₖ as one formula (the radical and its bar drawn together, not a font's √ beside dₖ)
    scale = (book.math(r"\div \sqrt{d_k} = \div @", divisor, size=SCALE_SIZE, color=style.MUTED) if divisor
             else book.label("未缩放", size=style.LABEL_SIZE, color=style.MUTED))
    total = book.compose("Σ A = {}", book.fmt(f"row_sums[{t}]", s.row_sums[t]))
    rest = book.text("可见的键 {visible} / {keys}    {total}",
                     visible=book.index(f"visible[{t}]", s.visible[t]), keys=book.index("keys", len(s.k)),
                     total=total, size=style.LABEL_SIZE, color=style.MUTED)
    seen = VGroup(scale, rest).arrange(RIGHT, buff=0.45)
    note = (book.label("这一行的键全被遮住：softmax 得到 NaN，输出也是 NaN。",
                       size=style.LABEL_SIZE, color=style.MASK) if r.track_nan else VGroup())
    name, wide = book.compose("z{} = Σ Aⱼ vⱼ", qindex), len(s.output[t]) > NARROW
    out = line(book, f"output[{t}]", s.output[t], decimals=style.decimals_for(s.output[t]),
               row_labels=None if wide else [name], row_color=style.ACCENT,
               header=name if wide else None, header_color=style.ACCENT)
    return query, seen, note, out, divisor


def first_key(r) -> int:
    """The key the worked example takes: the first the tracked query may see (0 when none)."""
    return int(r.track_keys[0]) if len(r.track_keys) else 0


def five_say(scene, divisor: Shown | None) -> tuple[list, list]:
    """Step 1's sentences, (with the table, with the output): the scores of the tracked query, the
    worked key's numbers as they are made, the keys it sees, what its output mixes."""
    book, r, inputs = scene.book, scene.result, scene.inputs
    s, t, j, keys = r.steps, r.track, first_key(r), book.index("keys", len(scene.result.steps.k))
    qname, qindex = scene.qname(), scene.qindex()
    opening = said("five.scale", query=qname, scale=divisor) if inputs["scale"] else said("five.raw", qname)
    made = [said("work.dot", name=scene.keys[j], score=book.fmt(f"scores[{t}][{j}]", s.scores[t][j]))]
    if inputs["scale"]:
        made.append(said("work.scale", scale=divisor, scaled=book.fmt(f"scaled[{t}][{j}]", s.scaled[t][j])))
    weight = book.fmt(f"weights[{t}][{j}]", s.weights[t][j])
    if r.track_nan:
        return [opening, *made], [said("five.nan", keys)]
    made.append(said("work.one" if s.visible[t] == 1 else "work.weight", name=scene.keys[j], weight=weight))
    out = [said("work.out", out=book.fmt(f"output[{t}][0]", s.output[t][0], style.decimals_for(s.output[t])))]
    if not inputs["causal"]:
        return [opening, *made[:-1], said("five.open", keys), made[-1]], [said("out.all", qindex), *out]
    if r.track_hides:
        some = said("five.some", keys=keys, visible=book.index(f"visible[{t}]", s.visible[t]))
        return [opening, *made[:-1], some, made[-1]], [said("out.hidden", qindex), *out]
    return [opening, *made[:-1], said("five.none", keys), made[-1]], [said("out.all", qindex), *out]


class FiveSteps:
    """The table's blocks, how they are laid out, and how each column is made."""

    def __init__(self, scene) -> None:
        book, r, i = scene.book, scene.result, scene.inputs
        self.scene, self.book, self.r = scene, book, r
        s, t = r.steps, r.track
        self.hidden = hidden = s.hidden[t]
        cols = [("scores", s.scores, None, "q·k"), ("scaled", s.scaled, None, "缩放后" if i["scale"] else "未缩放"),
                ("masked", s.masked, "scores", "掩码后" if i["causal"] else "无掩码"),
                ("weights", s.weights, "weights", "权重 A")]
        self.table = [column(book, f"{name}[{t}]", vals[t], hidden=hidden if heat else None, heat=heat,
                             col_labels=[head], col_color=style.TRACK) for name, vals, heat, head in cols]
        self.query, self.seen, self.note, self.out, self.divisor = five_blocks(book, r, i, scene.qname(),
                                                                                  scene.qindex())
        self.names = names = RowNames(book, self.table[0], scene.keys, style.KEY)
        names.attach(self.table[0])
        trial = VGroup(proxy(s.k, style.decimals_for(s.k)), row_of(self.table, buff=0.2),
                       proxy(s.v, style.decimals_for(s.v))).arrange(RIGHT, buff=0.2)
        self.k = self.v = VGroup()
        page = stack(self.query, trial, self.seen, self.note, self.out, buff=0.3)
        if fits(book, page, AREA, least=WITH_INPUTS):
            names.detach(self.table[0])      # K and V beside the table
            self.k = input_grid(book, "K", "k", s.k, style.KEY, scene.keys)
            self.v = grid(book, "v", s.v, style.decimals_for(s.v), header="V", header_color=style.VALUE)
        self.grids = row_of([g for g in (self.k, *self.table, self.v) if len(g)], buff=0.2)
        self.made, self.output = self.derivations()

    # -- the worked entries
    def term(self, name: str, g, row: int, col: int, values, decimals: int) -> Term:
        """An input's number: its cell when its grid is drawn, else the number alone, coming from
        its key's name beside the table."""
        if len(g):
            return cell(self.book, g, row, col)
        return Term(f"{name}[{row}][{col}]", float(values[row][col]), decimals, at=self.names[row])

    def derivations(self) -> tuple[dict, list]:
        """(the table's derivations by column name, the output's)"""
        book, s, t, (scores, scaled, masked, weights) = self.book, self.r.steps, self.r.track, self.table
        j, room = first_key(self.r), ex.room_for(self.grids)
        q = [cell(book, self.query, 0, c) if isinstance(self.query, MatrixGrid) else
             Term(f"q[{t}][{c}]", float(s.q[t][c]), 4, at=self.query) for c in range(len(s.q[t]))]
        k = [self.term("k", self.k, j, c, s.k, style.decimals_for(s.k)) for c in range(len(s.q[t]))]
        made = {"scores": ex.dot(scores, (j, 0), cell(book, scores, j, 0), list(zip(q, k)), room)}
        if self.divisor is not None:
            made["scaled"] = ex.divide(scaled, (j, 0), cell(book, scaled, j, 0), cell(book, scores, j, 0),
                                       Term("scale", float(s.scale), 4, source=False))
        visible = self.r.track_keys
        weight = cell(book, weights, j, 0)
        if len(visible) > 1:
            made["weights"] = ex.softmax(weights, (j, 0), weight, cell(book, masked, j, 0),
                                         [cell(book, masked, n, 0) for n in visible], room)
        else:                     # no visible key (NaN), or one (its weight is 1 whatever its score)
            made["weights"] = ex.said_as(weights, (j, 0), weight, WORK["one" if len(visible) else "nan"],
                                         "softmax")
        z = cell(book, self.out, 0, 0)
        if not len(visible):
            return made, [ex.said_as(self.out, (0, 0), z, WORK["empty"], "weighted sum")]
        pairs = [(cell(book, weights, n, 0), self.term("v", self.v, n, 0, s.v, style.decimals_for(s.v)))
                 for n in visible]
        return made, [ex.weighted(self.out, (0, 0), z, pairs, room)]

    # -- layout: as before the derivations, then their bands where they keep the contract
    def pages(self, caption: tuple, say: tuple[list, list]) -> list[Page]:
        """One page: the table above the sums and the output (or beside them, when too tall);
        else two pages, the table, then the output."""
        upper = below(self.query, self.grids, gap=0.3)
        lower = below(self.seen, self.note, self.out, gap=0.3)
        whole = below(self.query, self.grids, self.seen, self.note, self.out, gap=0.3)
        boards = whole_or_halves(self.book, AREA, whole, beside(upper, lower, gap=0.6), (upper, lower),
                                 (list(self.made.values()), self.output))
        shows, says = ([[self.upper, self.lower]], [say[0] + say[1]]) if len(boards) == 1 else (
            [[self.upper], [self.lower]], list(say))
        return [Page(caption, board, lambda b=board, band=band, m=made, s=show: self.reveal(b, band, m, s),
                     words) for (board, band, made), show, words in zip(boards, shows, says)]

    # -- how the columns are made: in the page's band, or by the caption line, or left out (derive.room)
    def reveal(self, page, band: Band | None, made: list, parts: list) -> list:
        """A page's reveal, once it is placed: where its derivations go, then its parts made in
        turn (their animations are played here: none are left)."""
        band = derive.room(self.scene, page, made, band)
        for show in parts:
            show(band)
        return []

    def fill(self, g, d, band: Band | None, *also) -> None:
        """A column (or the output row): its frame, the one entry derived, the rest swept in."""
        shell, rest = derive.split(self.book, g, [d.cell] if band is not None else [])
        self.scene.play(Appear(shell), run_time=0.5)
        if band is not None:
            derive.derive(self.scene, d, band)
        sweep(self.scene, rest, *also)

    def upper(self, band: Band | None) -> None:
        scene, (scores, scaled, masked, weights) = self.scene, self.table
        scene.play(Appear(self.query), Appear(self.k), Appear(self.v))
        self.fill(scores, self.made["scores"], band)
        rows = range(scores.n_rows)
        if "scaled" in self.made:
            self.fill(scaled, self.made["scaled"], band)
        else:                      # not scaled: the scores move over as they are
            scene.play(Appear(derive.split(self.book, scaled)[0]), run_time=0.5)
            derive.slide(scene, [(scaled.entries[n][0], scores.entries[n][0]) for n in rows], op="divide")
        scene.play(Appear(derive.split(self.book, masked)[0]), run_time=0.5)
        seen = [n for n in rows if not self.hidden[n]]
        derive.slide(scene, [(masked.entries[n][0], scaled.entries[n][0]) for n in seen],
                     [(masked.entries[n][0], masked.boxes[n][0]) for n in rows if n not in seen], op="mask")
        self.fill(weights, self.made["weights"], band)

    def lower(self, band: Band | None) -> None:
        scene, hidden = self.scene, self.hidden
        scene.play(Appear(self.seen), Appear(self.note))
        rows = [j for j in range(len(hidden)) if hidden[j]] if len(self.v) else []
        self.fill(self.out, self.output[0], band, *[a for j in rows for a in dimmed(self.v, j)])


def dimmed(grid: MatrixGrid, row: int) -> list:
    """A row the query cannot see, seen through: its entries and frames at 0.3 opacity (a cell
    with no fill keeps none: Manim's default fill under it is white)."""
    out = []
    for j in range(grid.n_cols):
        box = grid.box(row, j)
        out.append(grid.entry(row, j).animate.set_opacity(0.3))
        out.append(box.animate.set_stroke(opacity=0.3).set_fill(opacity=min(box.get_fill_opacity(), 0.3)))
    return out


def five_steps(scene) -> list[Page]:
    """Step 1's pages: the table and the output on one board, or on two."""
    i = scene.inputs
    five = FiveSteps(scene)
    caption = WORDS["five"]["scale" if i["scale"] else "raw"]["causal" if i["causal"] else "open"]
    return five.pages(phrase(caption, scene.qname()), five_say(scene, five.divisor))
