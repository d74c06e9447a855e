"""A tensor of element ids on the page (the lab's 唯一编号): one layout of it as grids in rows,
each grid a fixed choice of the first two indices under its header, and a stage that moves every
id from one layout to the next (reshape, transpose, merge) under lines that say what changed,
and turns the headers into the next layout's (a header stays on the board, its text changing).

    stage = Stage(scene)
    stage.show("start", ids, track=2, lines=[(text, colour), ...])     # the first layout
    stage.show("split", ids.reshape(...), track=2, lines=...)          # every id moves there
    stage.show("transposed", ..., passing=True)     # a step that passes through a layout and goes on:
    stage.show("wrong", ...)                         # the headers it began with come back, the same ones

Every id, index and shape is drawn through the NumberBook; where the grids go is blocks.tiles.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np
from manim import (UP, Animation, DashedVMobject, Mobject, ReplacementTransform, SurroundingRectangle,
                   Transform, VGroup)

from scenes.kit.draw import notes
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.draw.arrays import spelled_grid
from scenes.kit.page.blocks import tiles
from scenes.kit.draw import paths
from scenes.kit.text.layout import box, content_width, fit, visible
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area

# The ids' layout is drawn for cells 0.68 x 0.48 (an id such as e95 plus room for the tracking
# frame) and grown by UNIT to MatrixGrid's cells, at least MIN_CELL_H tall; the ids (set at ID_SIZE)
# and the headers (at label size) grow with it, so every box stays where that layout puts it.
UNIT = style.MIN_CELL_H / 0.48
ID_SIZE = 22
CELL_W = 0.68 * UNIT
GAP_X, GAP_Y, BATCH_GAP = 0.35 * UNIT, 0.14 * UNIT, 0.22 * UNIT
HEADER_PAD = 0.18 * UNIT     # header to its cells: clear of the tracking frame
FRAME_BUFF = 0.06 * UNIT     # the outer line of the double frame, outside the cell
MAX_SCALE = 2.0 / UNIT
LEGIBLE = 0.95 / UNIT        # ids at this scale read well at 480p
INFO_GAP = 0.25              # between the lines and the tensor
ONE_BY_ONE = 32              # a tensor of at most this many elements: each one's way planned (else a block's)


def coords_text(book: NumberBook, label: str, values: Sequence[int], open_axes: int = 0) -> Shown:
    """'[0, 1, :, :]': fixed indices recorded, then ':' for each open axis."""
    parts = [book.index(f"{label}[{k}]", v) for k, v in enumerate(values)]
    return book.compose("[" + ", ".join(["{}"] * len(parts) + [":"] * open_axes) + "]", *parts)


def shape_line(book: NumberBook, label: str, axes: Sequence[str], shape: Sequence[int]) -> Shown:
    """'[B, T, H, d] = [1, 3, 2, 2]' with each size recorded."""
    return book.compose("[" + ", ".join(axes) + "] = {}", book.coords(label, shape))


class TensorView:
    """One layout of the id tensor, in reading order: a grid per fixed first two indices
    ('[0, 0, :]' is a row of D ids; '[0, 1, :, :]' a small matrix) under its header, the grids
    in rows (blocks.tiles): for each number of columns the roomier header side, and the fewest
    columns that keep the ids at LEGIBLE (else the roomiest).

    Each id is a number ("e5", recorded as the id at that index of this layout, in its cell).
    Not a Mobject itself: add `parts()` to the scene, move ids with `morph`.
    """

    def __init__(self, book: NumberBook, name: str, ids: Any, track: int | None = None,
                 marks: Iterable[int] | None = None, top: float = style.CONTENT_TOP) -> None:
        """The view fills the content area's width between `top` and the content's bottom."""
        self.book, ids = book, np.asarray(ids)
        self.label_of: dict[int, str] = {}
        self.texts: dict[int, Mobject] = {}
        self.boxes: dict[int, Mobject] = {}
        header_of: dict[int, Mobject] = {}
        blocks: list[Any] = []
        for i0, i1 in np.ndindex(ids.shape[:2]):
            sub = np.atleast_2d(ids[i0, i1])
            at = (lambda i, j: (i0, i1, i, j)) if ids.ndim == 4 else (lambda i, j: (i0, i1, j))
            labels = [[name + "".join(f"[{k}]" for k in at(i, j)) for j in range(sub.shape[1])]
                      for i in range(sub.shape[0])]
            grid = spelled_grid(book, "e{}", labels, sub, size=ID_SIZE, cell_w=CELL_W)
            grid.box_group.set_stroke(width=1.5)
            for entry in grid.entry_group:
                entry.scale(UNIT)
            words = coords_text(book, f"{name}.group[{i0}][{i1}]", (i0, i1), ids.ndim - 2)
            header = book.label(words, color=style.MUTED, size=style.LABEL_SIZE).scale(UNIT)
            for (i, j), n in np.ndenumerate(sub):
                n = int(n)
                self.texts[n], self.boxes[n] = grid.entries[i][j], grid.boxes[i][j]
                self.label_of[n], header_of[n] = labels[i][j], header
            blocks.append((header, grid))
        self.headers = VGroup(*[header for header, _ in blocks])
        self.riders: list[Mobject] = []     # old headers riding along on this layout's (see `headers`)
        self.after: list[Any] = []          # what the move into this layout leaves to settle
        self.box_group = VGroup(*[grid.box_group for _, grid in blocks])
        area = Area(content_width(), top=top, bottom=style.CONTENT_BOTTOM, most=MAX_SCALE)
        self.scale = tiles(blocks, area, LEGIBLE, ids.shape[1], HEADER_PAD, (GAP_X, GAP_Y), BATCH_GAP)
        for n in (marks if marks is not None else ()):
            self.texts[int(n)].set_color(style.MASK)
        if track is not None:
            self.texts[track].set_color(style.TRACK)
            header_of[track].set_color(style.TRACK)

    def parts(self) -> list[Mobject]:
        return [self.box_group, self.headers, *self.texts.values()]

    def frame(self, n: int) -> Mobject:
        """The double frame around element n (the lab's 双线框)."""
        box = self.boxes[n]
        inner = SurroundingRectangle(box, buff=0.0, color=style.TRACK, stroke_width=3)
        outer = SurroundingRectangle(box, buff=FRAME_BUFF * self.scale, color=style.TRACK, stroke_width=2)
        return self.book.mark(VGroup(inner, outer), "track", [self.label_of[n]])

    def ghost(self, n: int) -> DashedVMobject:
        """A dashed frame: where element n belongs."""
        rect = SurroundingRectangle(self.boxes[n], buff=0.05 * UNIT * self.scale, color=style.TRACK,
                                    stroke_width=2)
        return DashedVMobject(rect, num_dashes=16)


def morph(old: TensorView, new: TensorView, frames: Iterable[tuple[Mobject, Mobject, int]] = (),
          home: dict[int, str] | None = None, passing: bool = False, around: Iterable[Mobject] = ()) -> list[Animation]:
    """Move every id from its place in `old` to its place in `new` (and each frame, (old, new, the id
    it frames), on its id's way), each on a way that meets no other id nor the texts `around`
    (kit/draw/paths.py), and turn the old
    headers into the new ones (`headers`); the box lines fade out and in."""
    turns = headers(old, new, {} if home is None else home, passing)
    anims: list[Animation] = [Vanish(old.box_group), Appear(new.box_group), *turns]
    ids = list(old.texts)
    moves = [(box(old.texts[n]), box(new.texts[n])) for n in ids]
    # each element its own way; a large tensor's by blocks of the layout (the plan's cost), each
    # shrinking on its way (a crowd); the headers that move and show, each its own way too
    groups: list = ids if len(ids) <= ONE_BY_ONE else [together(old, new, n) for n in ids]
    heads = [a for a in turns if isinstance(a, Transform) and (visible(a.mobject) or visible(a.target_mobject))]
    fading = [a.mobject for a in turns if isinstance(a, Appear)]          # headers fading out or in
    ways = paths.plan(moves + [(box(a.mobject), box(a.target_mobject)) for a in heads],
                      groups + [("header", k) for k in range(len(heads))], paths.stage(),
                      [box(m) for m in [*around, *fading]], small=len(ids) > ONE_BY_ONE)
    for a, way in zip(heads, ways[len(ids):]):
        a.path_func = paths.path_func(way, box(a.mobject), box(a.target_mobject)) or a.path_func
    along = {n: (way, start, end) for n, (start, end), way in zip(ids, moves, ways)}
    for n in ids:
        anims.append(ReplacementTransform(old.texts[n], new.texts[n], path_func=paths.path_func(*along[n])))
    anims += [ReplacementTransform(a, b, path_func=paths.path_func(*along[n]) if n in along else None)
              for a, b, n in frames]
    return anims


def together(old: TensorView, new: TensorView, n: int) -> tuple:
    """What moves with element n in a large tensor: the elements of its block of the old layout
    that land in its row of the new one (a row's run of elements keeping its order)."""
    return (*old.label_of[n].split("]")[:2], *new.label_of[n].split("]")[:-2])


def headers(old: TensorView, new: TensorView, home: dict[int, str], passing: bool) -> list[Animation]:
    """The headers on the board (`old`'s, and those riding along with them) become `new`'s, each
    new header reached from one old header, its text changing on the way (`morphs`): one with its
    label moves there (carried by label); else the one that showed its label when the step began
    (`home`: id -> that label) goes back to it, the same mobject (carried: kept); else the others,
    in reading order, spread over the new ones left. On a layout the step only passes through
    (`passing`: it goes on to another, where they may go back) the old headers stay the same
    mobjects (kept by `new` in place of its own), and those left over merge into the new header of
    their rank (riding along unseen, to come out of it again); else those left over fade. New
    headers left over fade in. What the play leaves to settle is in `new.after`."""
    book = old.book
    label = lambda m: book.meta[id(m)]["label"]
    olds, news = [*old.headers, *old.riders], list(new.headers)
    plan: dict[int, tuple[Mobject, str]] = {}        # new header's index -> (old header, how: same, home, rank)
    free = list(olds)
    for how in ("same", "home"):
        for j, n in enumerate(news):
            found = next((c for c in free if j not in plan
                          and (label(c) if how == "same" else home.get(id(c))) == label(n)), None)
            if found is not None:
                plan[j] = (found, how)
                free.remove(found)
    left = [j for j in range(len(news)) if j not in plan]
    targets, riders = left or list(range(len(news))), []
    for k, c in enumerate(free):
        j = targets[k * len(targets) // len(free)] if targets else None
        if j is None or j in plan:
            riders.append((c, j))
        else:
            plan[j] = (c, "rank")
    anims: list[Animation] = []
    shown, new.after, new.riders = list(news), [], []
    for j, (c, how) in plan.items():
        n = news[j]
        if how == "same":
            anims.append(ReplacementTransform(c, n))
            if id(c) in home:
                home[id(n)] = home[id(c)]
        elif how == "home" or passing:    # the same mobject, now showing (and recorded as) the new header
            anims.append(Transform(c, morphs(book, c, n)))
            book.meta[id(c)] = book.meta[id(n)]
            shown[j] = c
            new.after.append(lambda scene, c=c, n=n: settle(c, n))
        else:                             # turns into the new header, which then stands in its place
            anims.append(Transform(c, morphs(book, c, n)))
            new.after.append(lambda scene, c=c, n=n: scene.replace(c, n))
    anims += [Appear(n) for j, n in enumerate(news) if j not in plan]
    for c, j in riders:
        if passing and j is not None:
            anims.append(Transform(c, morphs(book, c, news[j]).set_opacity(0)))
            book.meta[id(c)] = book.meta[id(news[j])]
            new.riders.append(c)
            new.after.append(lambda scene, c=c, n=news[j]: settle(c, n, hidden=True))
        else:
            anims.append(Vanish(c))
    new.headers = VGroup(*shown)
    return anims


def glyphs_of(book: NumberBook, mob: Mobject) -> str:
    """The characters a text draws, one a glyph (spaces draw none)."""
    return "".join(book.meta[id(mob)]["text"].split())


def morphs(book: NumberBook, c: Mobject, n: Mobject) -> Mobject:
    """A copy of n for c to turn into, glyph for glyph where their texts agree at the start and at
    the end ('[0, 1, :]' into '[0, 1, :, :]': only ', :' grows, between ':' and ']'); the side
    with fewer glyphs in between gets glyphs of no size there (c in place: it becomes n's anyway)."""
    target = n.copy()
    a, b = glyphs_of(book, c), glyphs_of(book, n)
    if len(c.submobjects) != len(a) or len(target.submobjects) != len(b):
        return target                     # its glyphs cannot be told apart: Manim's own matching
    p = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    s = next((k for k in range(min(len(a), len(b)) - p) if a[-1 - k] != b[-1 - k]), min(len(a), len(b)) - p)
    for mob, have, want in ((c, len(a), len(b)), (target, len(b), len(a))):
        if want > have:
            glyphs = list(mob.submobjects)
            cut = have - s
            edge = glyphs[cut].get_left() if cut < have else glyphs[-1].get_right()
            seeds = [glyphs[min(cut, have - 1)].copy().scale(1e-3).move_to(edge) for _ in range(want - have)]
            mob.submobjects = glyphs[:cut] + seeds + glyphs[cut:]
    return target


def settle(c: Mobject, n: Mobject, hidden: bool = False) -> None:
    """After the play: c draws n's glyphs exactly (none of no size left over), unseen if `hidden`."""
    c.submobjects = [g.copy() for g in n.submobjects]
    if hidden:
        c.set_opacity(0)


def moved(book: NumberBook, old: TensorView, new: TensorView, n: int) -> None:
    """Id n, moved from its place in `old` to `new`: its record says from which label (op "move", as
    a derivation of scenes/kit/motion/derive.py says it), the first time that layout's id is made."""
    label = new.label_of[n]
    rec = next((r for r in book.records if r["label"] == label), None)
    if rec is not None and "derivation" not in rec and label in book.sources:
        rec["derivation"] = {"step": book.step, "op": "move", "shows": [old.label_of[n]], "motion": "morph"}


def info_lines(book: NumberBook, lines: Sequence[tuple[Shown | str, str]]) -> Mobject:
    """The lines above the tensor: (text, colour) pairs, left-aligned, under the title."""
    group = fit(notes.lines(book, lines, size=style.LABEL_SIZE, buff=0.14), content_width())
    return group.move_to(np.array([0.0, style.CONTENT_TOP, 0.0]), aligned_edge=UP)


class Stage:
    """The id tensor on a scene under its lines: the first `show` brings the layout in, each
    next one moves every id (and the tracked id's double frame) into the new layout, and turns the
    headers into the new ones; a layout the step only passes through (`passing`) lets a header that
    leaves it ride along, so that one whose label comes back in the step goes back to it."""

    def __init__(self, scene: Any) -> None:
        self.scene = scene
        self.view: TensorView | None = None
        self.frame: Any = None
        self.info: Any = None
        self.step = 0                      # the step of the last show
        self.home: dict[int, str] = {}     # the headers at the step's start: id -> the label they showed

    def show(self, name: str, ids: Any, track: int, lines: Sequence[tuple[Shown | str, str]],
             marks: Iterable[int] | None = None, passing: bool = False) -> TensorView:
        """Lay the ids out as `name` (each recorded under that label) under new lines; `passing`:
        the step goes on to another layout (the next `show` of the same step)."""
        scene, book = self.scene, self.scene.book
        info = info_lines(book, lines)
        view = TensorView(book, name, ids, track, marks, top=info.get_bottom()[1] - INFO_GAP)
        frame = view.frame(track)
        if self.view is None:
            scene.play(*[Appear(p) for p in view.parts()], Appear(frame), Appear(info))
        else:
            if book.step != self.step:
                self.home = {id(h): book.meta[id(h)]["label"] for h in self.view.headers}
            lines = [*self.info.submobjects, *info.submobjects]          # the lines leaving and coming
            scene.play(*morph(self.view, view, [(self.frame, frame, track)], self.home, passing, lines),
                       Vanish(self.info), Appear(info), run_time=style.RUN_TIME * 1.5)
            for done in view.after:
                done(scene)
            scene.bring_to_front(*view.texts.values(), frame)   # the new cells appeared over them
            for n in view.texts:       # every id, the tracked one with the others
                moved(book, self.view, view, n)
        self.view, self.frame, self.info = view, frame, info
        self.step = book.step
        return view
