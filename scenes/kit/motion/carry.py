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
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Sequence

import numpy as np
from manim import (AnimationGroup, Create, DrawBorderThenFill, FadeIn, GrowArrow, GrowFromCenter,
                   LaggedStart, Mobject, Succession, Transform, Write)

from scenes.kit.draw.anim import Appear

MOVE_TIME = 0.8           # a carried item's flight to its new place, seconds
FADE_TIME = 0.5           # the leaving board's fade, at least (as long as the new one's, at most LONGEST)
LONGEST = 1.0
CARRIED_KINDS = ("number", "label")
INTRODUCING = (FadeIn, Write, Create, GrowArrow, GrowFromCenter, DrawBorderThenFill)


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
    """Old and new items with the same kind and label, paired in reading order (top to bottom,
    left to right) within each label; an item left over on either side fades."""
    olds, news = defaultdict(list), defaultdict(list)
    for key, mob in labelled(book, leaving):
        olds[key].append(mob)
    for key, mob in labelled(book, incoming):
        news[key].append(mob)
    pairs = []
    for key in olds:                     # in the old page's order: a set's would change with the hash seed
        if key in news:
            pairs += zip(reading_order(olds[key]), reading_order(news[key]))
    return pairs


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

    def start(self, scene: Any, run_time: float = MOVE_TIME) -> Transform:
        for saved in self.saved:
            set_opacities(saved, 0.0)
        scene.add(self.copy)
        return Transform(self.copy, self.target, run_time=run_time)

    def land(self, scene: Any) -> None:
        """The new item shows where the copy stands, the copy goes."""
        for saved in self.saved:
            set_opacities(saved)
        if self.copy in scene.mobjects:
            scene.mobjects.remove(self.copy)   # only the copy itself: the boards holding the items stay


def arrived(legs: Sequence[Leg], anims: Iterable[Any]) -> list[Leg]:
    """The legs whose new item these animations bring onto the board."""
    if not legs:
        return []
    brought = {id(f) for m in introduced(anims) for f in m.get_family()}
    return [leg for leg in legs if id(leg.new) in brought]
