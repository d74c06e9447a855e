"""One picture from step to step: the matched transition between two boards.

When a step's board gives way to the next, what leaves and what comes are matched by the
book's labels (a number's label, a text's label): an item on both boards moves (and rescales,
and morphs its text) from its old place to its new one, while the rest of the old board fades
out and the rest of the new one fades in, in one transition with the caption's change.

    pairs = matched(book, leaving, incoming)          # [(old item, new item)], in reading order
    flight = Flight(pairs)                              # a copy of each old item flies to its new one
    scene.play(*flight.anims(run_time), *fades, ...)
    flight.land(scene)                                  # the copies go, the new items show

Nothing here knows a clip: ClipScene (kit/scene/base.py) holds the pending transition and
records, at each step's end, which items were carried (`carried`): on screen at the previous
step's end, the same mobject, or landed there by a flight from the item with that label.

Tests see a transition mid-way without a frame drawn: under `watch()` each transition's board is
taken at a few moments (`moments`), on copies of the board and of the play's animations.
"""
from __future__ import annotations

import copy
from collections import defaultdict
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
from manim import (AnimationGroup, Create, DrawBorderThenFill, FadeIn, GrowArrow, GrowFromCenter,
                   LaggedStart, Mobject, Succession, Transform, Write)

from scenes.kit.draw.anim import Appear
from scenes.kit.draw import paths
from scenes.kit.text.layout import box, visible

MOVE_TIME = 0.8           # a carried item's flight to its new place, seconds
FADE_TIME = 0.5           # the leaving board's fade, at least (as long as the new one's, at most LONGEST)
LONGEST = 1.0
CARRIED_KINDS = ("number", "label")
INTRODUCING = (FadeIn, Write, Create, GrowArrow, GrowFromCenter, DrawBorderThenFill)
ALPHAS = tuple(k / 20 for k in range(1, 20))   # the moments of a transition `moments` takes, in its play
MOMENTS: list[dict[str, Any]] | None = None   # watch(): each transition's board at those moments


def flat(anims: Iterable[Any]) -> list[Any]:
    """Every animation inside groups, laggards and successions."""
    out: list[Any] = []
    for anim in anims:
        if isinstance(anim, (AnimationGroup, LaggedStart, Succession)):
            out += flat(anim.animations)
        else:
            out.append(anim)
    return out


def introduced(anims: Iterable[Any]) -> list[Mobject]:
    """The mobjects these animations bring onto the board."""
    return [a.mobject for a in flat(anims)
            if isinstance(a, INTRODUCING) or (type(a) is Appear and not a.vanish)]


def fade_time(anims: Sequence[Any]) -> float:
    """The leaving board fades while the new one comes: as long as the play's longest
    introducing animation (the two add up to one board at every moment), within limits."""
    coming = [a.run_time for a in anims if introduced([a])]
    return min(max([FADE_TIME, *coming]), LONGEST)


def labelled(book: Any, mobs: Iterable[Mobject]) -> list[tuple[tuple[str, str], Mobject]]:
    """The book's items under these mobjects, as the layout record walks them (an item's own
    parts are not items): ((kind, label), mobject) in drawing order."""
    out, seen = [], set()
    todo = list(reversed(list(mobs)))
    while todo:
        mob = todo.pop()
        if id(mob) in seen:
            continue
        seen.add(id(mob))
        meta = book.meta.get(id(mob))
        if meta is not None and meta["kind"] in CARRIED_KINDS:
            out.append(((meta["kind"], meta["label"]), mob))
            continue
        todo.extend(reversed(mob.submobjects))
    return out


def matched(book: Any, leaving: Iterable[Mobject], incoming: Iterable[Mobject]) -> list[tuple[Mobject, Mobject]]:
    """Old and new items with the same kind and label, paired within each label by their place
    (a grid's row or column label goes with the same grid's: it travels with its grid), else in
    reading order (top to bottom, left to right); an item left over on either side fades."""
    olds, news = defaultdict(list), defaultdict(list)
    for key, mob in labelled(book, leaving):
        olds[key].append(mob)
    for key, mob in labelled(book, incoming):
        news[key].append(mob)
    pairs = []
    for key in olds:                     # in the old page's order: a set's would change with the hash seed
        if key in news:
            pairs += by_place(book, reading_order(olds[key]), reading_order(news[key]))
    return pairs


def place(book: Any, mob: Mobject) -> tuple | None:
    """Where an item stands in a grid, the grid's serial left out: (grid, axis or row, index or
    column); None for an item of no grid."""
    where = book.meta[id(mob)]["place"]
    if "grid" not in where:
        return None
    return (where["grid"].split("#")[0], where.get("axis", where.get("row")), where.get("index", where.get("col")))


def group(book: Any, mob: Mobject) -> tuple:
    """What moves with an item: its grid's numbers (a number of a grid), its grid's axis (a row or
    column label), else only itself."""
    meta = book.meta[id(mob)]
    where = meta["place"]
    if "grid" not in where:
        return ("item", meta["label"], id(mob))
    return (where["grid"], where["axis"]) if "axis" in where else (where["grid"],)


def by_place(book: Any, olds: list[Mobject], news: list[Mobject]) -> list[tuple[Mobject, Mobject]]:
    """Pairs of one label: each old and new item of the same place; where none is, the items in
    order. (Where the label travels with its grid, its other items fade: a plane's tag crossing
    the grid's numbers to a new grid's row label is a path through the moving board.)"""
    free = list(news)
    pairs = []
    for old in olds:
        mine = place(book, old)
        new = next((n for n in free if mine is not None and place(book, n) == mine), None)
        if new is not None:
            pairs.append((old, new))
            free.remove(new)
    return pairs or list(zip(olds, news))


def reading_order(mobs: Sequence[Mobject]) -> list[Mobject]:
    return sorted(mobs, key=lambda m: (-round(float(m.get_center()[1]), 2), float(m.get_center()[0])))


def opacities(mob: Mobject) -> list[tuple[Mobject, np.ndarray, np.ndarray]]:
    return [(m, np.array(m.fill_rgbas[:, 3]), np.array(m.stroke_rgbas[:, 3]))
            for m in mob.family_members_with_points()]


def set_opacities(saved: list, scale: float = 1.0) -> None:
    for m, fill, stroke in saved:
        m.fill_rgbas[:, 3] = fill * scale
        m.stroke_rgbas[:, 3] = stroke * scale


class Leg:
    """One carried item: a copy of the old item flies onto the new one; while it flies both are
    hidden (the old board fades around its hole, the new one appears around its place)."""

    def __init__(self, old: Mobject, new: Mobject) -> None:
        self.old, self.new = old, new
        self.copy, self.target = old.copy(), new.copy()
        self.saved = (opacities(old), opacities(new))
        self.way = paths.STRAIGHT             # unless `legs` planned another way

    def start(self, scene: Any, run_time: float = MOVE_TIME) -> Transform:
        for saved in self.saved:
            set_opacities(saved, 0.0)
        scene.add(self.copy)
        way = paths.path_func(self.way, box(self.copy), box(self.target))
        return Transform(self.copy, self.target, run_time=run_time, path_func=way)

    def land(self, scene: Any) -> None:
        """The new item shows where the copy stands, the copy goes."""
        for saved in self.saved:
            set_opacities(saved)
        if self.copy in scene.mobjects:
            scene.mobjects.remove(self.copy)   # only the copy itself: the boards holding the items stay


def legs(pairs: Sequence[tuple[Mobject, Mobject]], groups: Sequence[tuple]) -> list[Leg]:
    """A leg a pair, each on its way (kit/draw/paths.py: no two copies touch in flight); a grid's
    numbers go one way, an axis's labels one way (`groups`: each old item's `group`)."""
    out = [Leg(old, new) for old, new in pairs]
    for leg, way in zip(out, paths.plan([(box(leg.copy), box(leg.target)) for leg in out], groups, paths.stage())):
        leg.way = way
    return out


def arrived(legs: Sequence[Leg], anims: Iterable[Any]) -> list[Leg]:
    """The legs whose new item these animations bring onto the board."""
    if not legs:
        return []
    brought = {id(f) for m in introduced(anims) for f in m.get_family()}
    return [leg for leg in legs if id(leg.new) in brought]


@contextmanager
def watch() -> Iterator[list[dict[str, Any]]]:
    """Tests: collect each transition's board at ALPHAS of its play (`moments`)."""
    global MOMENTS
    MOMENTS = []
    try:
        yield MOMENTS
    finally:
        MOMENTS = None


class Stage:
    """A scene's stand-in for copied mobjects: what the animations add and remove."""

    def __init__(self, mobjects: Sequence[Mobject]) -> None:
        self.mobjects = list(mobjects)

    def get_mobject_family_members(self) -> list[Mobject]:
        return [f for m in self.mobjects for f in m.get_family()]

    def add(self, *mobs: Mobject) -> None:
        self.mobjects += [m for m in mobs if m not in self.mobjects]

    def remove(self, *mobs: Mobject) -> None:
        self.mobjects = [m for m in self.mobjects if m not in mobs]


def moments(scene: Any, anims: Sequence[Any], pairs: Sequence[tuple[Mobject, Mobject]],
            alphas: Sequence[float] = ALPHAS) -> list[dict[str, Any]]:
    """The board at `alphas` of the play of `anims` with the flights of `pairs` (a transition's,
    before it plays; `time`: the moment's in the video): every text the book made that shows, with
    its box and its part ("kept"; "old": fading; "new": coming; "flying": a carried copy, with the
    boxes it leaves and lands on). Played on deep copies of the board and the animations (a grid's
    book is the scene's): nothing on screen changes."""
    groups = [group(scene.book, old) for old, _ in pairs]
    memo: dict[int, Any] = {id(scene): scene, id(scene.book): scene.book}
    board, anims, pairs = copy.deepcopy((list(scene.mobjects), list(anims), list(pairs)), memo)
    real = {id(c): i for i, c in memo.items() if isinstance(c, Mobject)}
    stage = Stage(board)
    flying = legs(pairs, groups)
    flights = {id(leg.copy): (box(leg.old), box(leg.target)) for leg in flying}
    real.update((id(leg.copy), real[id(leg.old)]) for leg in flying)
    together = [*anims, *[leg.start(stage) for leg in flying]]
    for a in together:
        a._setup_scene(stage)
        a.begin()
    parts = {id(f): "new" for m in introduced(together) for f in m.get_family()}
    parts.update((id(f), "old") for a in flat(together) if getattr(a, "remover", False) and not introduced([a])
                 for f in a.mobject.get_family())
    length = max((a.run_time for a in together), default=0.0)
    out = []
    for alpha in alphas:
        for a in together:
            a.interpolate(alpha * length / a.run_time if a.run_time else 1.0)
        items = []
        for mob, meta in texts(stage.mobjects, scene.book.meta, real):
            item = {"kind": meta["kind"], "label": meta["label"], "text": meta["text"], "box": box(mob),
                    "part": "flying" if id(mob) in flights else parts.get(id(mob), "kept")}
            if id(mob) in flights:
                item["from"], item["to"] = flights[id(mob)]
            items.append(item)
        out.append({"step": scene.book.step, "alpha": alpha, "time": round(scene.renderer.time + alpha * length, 3),
                    "items": items})
    return out


def texts(mobs: Sequence[Mobject], meta: dict, real: dict[int, int]) -> list[tuple[Mobject, dict]]:
    """The visible texts among copied mobjects, with the book's meta of the mobject each copies
    (`real`: a copy's id -> its mobject's)."""
    out: list[tuple[Mobject, dict]] = []
    seen: set[int] = set()
    todo = list(reversed(list(mobs)))
    while todo:
        mob = todo.pop()
        if id(mob) in seen:
            continue
        seen.add(id(mob))
        found = meta.get(real.get(id(mob), -1))
        if found is not None and found["kind"] != "mark":
            if visible(mob):
                out.append((mob, found))
            continue
        todo.extend(reversed(mob.submobjects))
    return out
