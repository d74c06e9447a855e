"""Derivations: one number of a grid seen as it is made from the numbers it comes from.

A clip names the target cell and the expression that makes it (scenes/kit/motion/expressions.py: Terms,
each a number with its label, value and precision and where it is on screen, joined by an
operation); the kit shows it:

    d = expressions.dot(scores, (j, 0), result, [(q_r, k_r), ...], room)   # or divide, softmax, ...
    band = Band([d, ...])        # an empty box the size of the widest: laid out with the page's blocks
    derive(scene, d, band)       # once the page is placed

`derive` lights up the sources (a frame on each grid cell, or on the text they are in), flies a
copy of each number into the expression in the band (a book record with the source's label and
precision: the proof checks apply to it), shows the result and lands the grid's own entry in its
cell. The expression stays until the next one in the band takes its place. Where the page had no
room for the band, `strip` finds room between the page and the caption line, or the clip skips
the derivation (`skip`); the result's record in the manifest says which (its `derivation`).
`slide` brings entries that are copies (a masked score) or constants (−∞) into their cells, and
`split` gives a grid's frame before its numbers.

Pacing: style.DERIVE_*; `seconds(terms, pace)`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import numpy as np
from manim import UP, Animation, AnimationGroup, LaggedStart, Mobject, Rectangle, VGroup

from scenes.kit.text import style
from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.draw.grids import surrounding
from scenes.kit.motion.derive_lit import lit_now
from scenes.kit.motion.expressions import SIZE, Derivation, Term, draw, record
from scenes.kit.text.glyphs import NumberText
from scenes.kit.text.layout import box as layout_box, snapshot
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area, Page, needed, plan

HEIGHT = 0.4                 # an expression's height at scale 1 (its tallest piece, a bracket)
GAP = 0.12                   # a strip keeps this far from the page and the caption
LAG = 0.35                   # the copies leave one after another
MOMENTS: list[dict[str, Any]] | None = None   # watch(): each derivation's layout at its widest moment


# ---------------------------------------------------------------- room
class Band(Rectangle):
    """Room for a page's expressions: an empty box as wide as the widest of them at scale 1 (and
    HEIGHT tall), laid out with the page's blocks; each is then drawn at the box's scale in it."""

    def __init__(self, derivations: Sequence[Derivation], where: str = "page") -> None:
        super().__init__(width=max(d.width() for d in derivations), height=HEIGHT, stroke_width=0,
                         stroke_opacity=0, fill_opacity=0)
        self.where = where
        self.shown: Mobject | None = None

    def factor(self) -> float:
        return self.height / HEIGHT


def strip(scene: Any, page: Mobject, derivations: Sequence[Derivation]) -> Band | None:
    """A band between the placed `page` and the caption line, its numbers as tall as the page's
    (at least READABLE_H); None when the widest expression does not fit there."""
    book = scene.book
    heights = [m.height for m in page.get_family() if book.meta.get(id(m), {}).get("kind") == "number"]
    natural = NumberText("0", size=SIZE).height
    scale = max(min(heights, default=natural) / natural, style.READABLE_H / natural)
    band = Band(derivations, where="caption line")
    band.scale(scale)
    top, bottom = page.get_bottom()[1] - GAP, scene._caption.get_top()[1] + GAP
    wide = scene.camera.frame_width - 2 * style.FRAME_MARGIN
    if top - bottom < band.height or band.width > wide:
        return None
    return band.move_to(np.array([0.0, (top + bottom) / 2, 0.0]))


def on_page(book: NumberBook, group: VGroup, band: Band, area: Area, lay: Any = None) -> Band | None:
    """The band stays in `group` where, laid out by `lay` and scaled into `area`, the group keeps
    every number LEGIBLE_H tall; else it leaves the group, laid out again without it (the page
    engine's plan of the two). Returns the band kept, or None."""
    def without() -> None:
        group.remove(band)
        if lay is not None:
            lay()
    plan(book, [[Page(("", (), {}), group, lay=lay)], [Page(("", (), {}), group, lay=without)]], area,
         needs=[needed(book, group, style.LEGIBLE_H), 0.0])
    return band if band in group.submobjects else None


def room(scene: Any, page: Mobject, made: Sequence[Derivation], band: Band | None = None,
         readable: bool = False) -> Band | None:
    """Where the derivations `made` are drawn: the page's band (readable: only while the placed
    page keeps its numbers READABLE_H tall), else a strip between the page and the caption line,
    else nowhere (each derivation skipped, its record saying so)."""
    if hasattr(scene, "toward"):         # the page the step's first plays build
        scene.toward(page)
    if band is not None and readable and needed(scene.book, page) > 1.0:
        band = None
    found = band if band is not None else strip(scene, page, made)
    for d in made if found is None else ():
        skip(scene.book, d, "no room")
    return found


def skip(book: NumberBook, d: Derivation, why: str) -> None:
    """Say in the result's record that its derivation was left out, and why."""
    rec = record(book, d.result.label, d.result.text())
    if rec is not None:
        rec["derivation"] = {"step": book.step, "op": d.op, "skipped": why}


# ---------------------------------------------------------------- motion
def seconds(terms: int, pace: str = "normal") -> float:
    """How long the copies take on their way into an expression of `terms` numbers."""
    each = float(np.clip(terms * style.DERIVE_PER_TERM, style.DERIVE_LEAST, style.DERIVE_MOST))
    return each * style.PACES[pace]


class Fly(Animation):
    """Move a mobject from `start` (a mobject or a point; at the start mobject's height when
    `match`) to where it stands now, without copying it."""

    def __init__(self, mobject: Mobject, start: Mobject | np.ndarray, match: bool = False,
                 **kwargs: Any) -> None:
        self.end_c, self.end_h = mobject.get_center().copy(), mobject.height
        self.start_c = start.get_center().copy() if isinstance(start, Mobject) else np.asarray(start, float)
        self.start_h = start.height if match and isinstance(start, Mobject) and start.height else self.end_h
        super().__init__(mobject, **kwargs)

    def create_starting_mobject(self) -> Mobject:
        return Mobject()

    def interpolate_mobject(self, alpha: float) -> None:
        a = self.rate_func(alpha)
        height = self.start_h + (self.end_h - self.start_h) * a
        if self.mobject.height > 0 and height > 0:
            self.mobject.scale(height / self.mobject.height)
        self.mobject.move_to(self.start_c + (self.end_c - self.start_c) * a)


def derive(scene: Any, d: Derivation, band: Band) -> VGroup:
    """Light up the sources, fly copies of their numbers into the expression in `band`, show the
    result and land the grid's entry in its cell; the expression stays (until the next one)."""
    book, pace = scene.book, style.PACES[scene.pace]
    expr = draw(book, d).scale(band.factor()).move_to(band)
    result, (i, j) = expr[-1], d.cell
    here = {id(m) for m in scene.get_mobject_family_members()}
    lights, lit = [], set()
    for t in d.terms():
        spot = t.box if t.box is not None else t.at
        if t.source and spot is not None and id(spot) in here and id(spot) not in lit:
            lit.add(id(spot))
            lights.append(light(book, spot, [t.label] if t.box is not None else None, style.TRACK))
    box = d.grid.boxes[i][j]
    lights.append(light(book, box, [d.result.label], style.ACCENT, "target"))
    gone = list(band.shown) if band.shown is not None else []
    scene.play(*[Vanish(m) for m in gone], *[Appear(m) for m in lights],
               *([Appear(box)] if id(box) not in here else []), run_time=style.DERIVE_LIGHT * pace)
    moves, flights = [], []
    for mob, p, start in zip(expr[:-1], d.pieces[:-1], starts(d, here)):
        match = start is not None and book.meta.get(id(start), {}).get("kind") == "number"
        moves.append(Appear(mob) if start is None else AnimationGroup(Fly(mob, start, match), Appear(mob)))
        if start is not None:          # where each copy leaves from, for the record
            meta = book.meta.get(id(start), {})
            flights.append({"term": p.label, "from": meta.get("label"), "kind": meta.get("kind"),
                            "box": layout_box(start)})
    scene.play(LaggedStart(*moves, lag_ratio=LAG), run_time=seconds(len(d.terms()), scene.pace))
    scene.play(Appear(result), run_time=style.DERIVE_RESULT * pace)
    entry = d.grid.entries[i][j]
    scene.add(entry)
    scene.play(Fly(entry, result, match=True), run_time=style.DERIVE_LAND * pace)
    lit_then, texts_then = lit_now(scene)        # what the screen lights as the entry lands
    if MOMENTS is not None:          # tests: everything on screen at the widest moment
        MOMENTS.append({"label": d.result.label, **snapshot(scene, book, book.step)})
    scene.play(*[Vanish(m) for m in lights], run_time=style.DERIVE_LIGHT * pace)
    scene.wait(style.DERIVE_HOLD * pace)
    band.shown = expr
    appeared(book, expr)
    rec = record(book, d.result.label, d.result.text())
    if rec is not None:
        rec["derivation"] = {"step": book.step, "op": d.op, "shows": d.shows(),
                             "with": [t.label for t in d.terms() if not t.source], "expression": d.text(),
                             "where": band.where, "shorter": d.shorter, "flights": flights, "lit": lit_then,
                             "lit_texts": texts_then}
    return expr


def starts(d: Derivation, here: set[int]) -> list[Mobject | None]:
    """Where each piece's copy flies from: its term's own mobject, where on screen (else it appears)."""
    return [p.at if isinstance(p, Term) and p.at is not None and id(p.at) in here else None for p in d.pieces[:-1]]


def light(book: NumberBook, spot: Mobject, covers: list[str] | None, color: str,
          kind: str = "source") -> Mobject:
    """A frame around a cell (a mark covering its number) or a text (a plain frame)."""
    frame = surrounding(spot, color, 0.05 if covers else 0.08, 4)
    frame.lights = kind              # read back at each landing (derive_lit.lit_now)
    return book.mark(frame, kind, covers) if covers else frame


def appeared(book: NumberBook, mobs: Mobject) -> None:
    """The numbers of `mobs` were on screen in this step (an expression is gone by its end)."""
    for m in mobs.get_family():
        meta = book.meta.get(id(m))
        if meta and meta["kind"] == "number":
            rec = record(book, meta["label"], meta["text"])
            if rec is not None and rec["step"] is None:
                rec["step"] = book.step


def slide(scene: Any, moves: Sequence[tuple[Mobject, Mobject]], drops: Sequence[tuple[Mobject, Mobject]] = (),
          op: str = "copy", run_time: float | None = None) -> None:
    """Entries arriving in their cells at once: each of `moves` (entry, the number it copies)
    slides over from that number; each of `drops` (entry, its box), a constant such as −∞,
    falls onto its cell as the box appears."""
    book = scene.book
    for entry, source in moves:
        note(book, entry, {"op": op, "shows": [book.meta[id(source)]["label"]], "motion": "slide"})
    for entry, _ in drops:
        note(book, entry, {"op": op, "shows": [], "motion": "drop"})
    # boxes under their numbers, in a render as in the fast path (an Appear of a mobject already
    # added by another animation of the same play does not add it again)
    scene.add(*[b for _, b in drops], *[e for e, _ in drops], *[e for e, _ in moves])
    anims: list[Animation] = [Fly(e, s, match=True) for e, s in moves]
    anims += [a for e, b in drops for a in (Appear(b), Appear(e), Fly(e, e.get_center() + UP * 2 * b.height))]
    if anims:
        scene.play(*anims, run_time=(run_time or style.DERIVE_LEAST) * style.PACES[scene.pace])


def note(book: NumberBook, entry: Mobject, what: dict[str, Any]) -> None:
    meta = book.meta[id(entry)]
    rec = record(book, meta["label"], meta["text"])
    if rec is not None:
        rec["derivation"] = {"step": book.step, **what}


# ---------------------------------------------------------------- grids made one number at a time
def split(book: NumberBook, grid: Any, first: Sequence[tuple[int, int]] = ()) -> tuple[VGroup, VGroup]:
    """(shell, rest): a grid's labels, header and the boxes that mark nothing (and those of the
    cells `first`, about to be derived); then the other numbers and the marked boxes, each of which
    must come with its number. The entries of `first` are in neither."""
    marked = {id(m) for m in grid.get_family() if book.meta.get(id(m), {}).get("kind") == "mark"}
    keep = set(first)
    shell, rest = VGroup(), VGroup()
    for i in range(grid.n_rows):
        for j in range(grid.n_cols):
            box = grid.boxes[i][j]
            (rest if id(box) in marked and (i, j) not in keep else shell).add(box)
            if (i, j) not in keep:
                rest.add(grid.entries[i][j])
    for part in grid.submobjects:
        if part is not grid.box_group and part is not grid.entry_group:
            (rest if id(part) in marked else shell).add(part)
    return shell, rest


def grid_slid(scene: Any, grid: Any, moves: list, op: str, *with_shell: Mobject) -> None:
    """A grid whose entries are copies: its frame (with `with_shell`), then the entries slide in."""
    every = [(i, j) for i in range(grid.n_rows) for j in range(grid.n_cols)]
    shell, rest = split(scene.book, grid, every)
    scene.play(Appear(shell), *[Appear(m) for m in with_shell])
    slide(scene, moves, op=op)
    if len(rest):
        scene.play(Appear(rest), run_time=0.4)


@contextmanager
def watch() -> Iterator[list[dict[str, Any]]]:
    """Tests: collect each derivation's layout at its widest moment (as layout.snapshot writes it)."""
    global MOMENTS
    MOMENTS = []
    try:
        yield MOMENTS
    finally:
        MOMENTS = None
