"""The `carried` record: which items at a step's end are the ones the previous step ended with.

An item (a number or label in the layout record) is carried when the mobject showing it was on
screen with the same label at the previous step's end, or when the step's matched transition
landed a flight from that label's item on it (kit/motion/carry.py; `flown_from`: the label and box
the flight left from); every other item is new.
The step where the picture changes on purpose says so (`cut`).
"""
from __future__ import annotations

from typing import Any

from manim import ReplacementTransform
from manim.animation.animation import prepare_animation

from scenes.kit.draw.anim import Vanish
from scenes.kit.motion import carry
from scenes.kit.text.layout import box, visible


class Continuity:
    """ClipScene's side of the matched transition: the caption's change and the leaving board
    wait for the step's first play, and play with it; items of the board that the play brings (or
    the page declared with `toward`) with their labels are carried there (kit/motion/carry.py)."""

    def continuity(self) -> None:
        self._pending: list[Any] = []        # the caption's change, waiting for the next picture
        self._leaving: list[Any] = []        # the board that gives way to it
        self._toward: list[Any] = []         # the page the next play begins to bring
        self._standing: list[carry.Leg] = []  # copies landed where an item not yet shown will be
        self._landed: dict[int, tuple[str, list]] = {}   # id -> the label and box a flight left from
        self._cut = False
        self._joined = False                 # playing a transition's animations together

    def leave(self, mobs: Any) -> None:
        """These leave with the next play: what it brings with their labels takes their place
        by a flight, the rest fades as the new comes."""
        self._leaving += [m for m in mobs if m not in self._leaving]

    def toward(self, page: Any) -> None:
        """The placed page the next plays build (its items carried onto even before they show)."""
        if self._leaving:
            self._toward.append(page)

    def with_next(self, *anims: Any) -> None:
        """Play these with the next play where a transition waits for it (a heading that comes with
        the board it heads), else now."""
        if self._leaving or self._pending:
            self._pending += [prepare_animation(a) for a in anims]
        else:
            self.play(*anims)

    def cut(self) -> None:
        """This step is a new picture on purpose: recorded as "cut" at its end (one a clip)."""
        self._cut = True

    def _transition(self, anims: list | None = None, run_time: float | None = None, **kwargs: Any) -> None:
        """Play `anims` with the pending caption change and the leaving board's matched transition."""
        anims = [prepare_animation(a) for a in (anims or [])]
        settings = {**kwargs, **({} if run_time is None else {"run_time": run_time})}
        for a in anims:                     # the play's settings are the clip's, not the transition's
            for k, v in settings.items():
                setattr(a, k, v)
        touched = {id(m) for a in carry.flat([*self._pending, *anims])
                   for m in (a.mobject, getattr(a, "target_mobject", None)) if m is not None}
        leaving = [m for m in self._leaving if m in self.mobjects
                   and not any(id(f) in touched for f in m.get_family())]
        on_screen = {id(f) for m in self.mobjects for f in m.get_family()}
        later = [f for page in self._toward for f in page.get_family() if id(f) not in on_screen]
        pairs = carry.matched(self.book, leaving, carry.introduced([*self._pending, *anims]) + later)
        self.flown(pairs)
        fades = [Vanish(m, run_time=carry.fade_time(anims)) for m in leaving]
        if carry.MOMENTS is not None and (pairs or self._pending or fades or anims):
            carry.MOMENTS += carry.moments(self, [*self._pending, *fades, *anims], pairs)   # tests
        legs = carry.legs(pairs, [carry.group(self.book, old) for old, _ in pairs]) if not self.fast else []
        moves = [leg.start(self) for leg in legs]
        self._standing += legs
        together = [*self._pending, *fades, *moves, *anims]
        self._pending, self._leaving, self._toward = [], [], []
        if together:                        # one play, through the scene's own play like any other
            self._joined = True
            try:
                self.play(*together)
            finally:
                self._joined = False
        for leg in carry.arrived(self._standing, [*together]):
            leg.land(self)
            self._standing.remove(leg)

    def morphed(self, anims: Any) -> None:
        """A clip's own ReplacementTransform carries too: the target's items take the labels of
        the items they morph from."""
        for a in carry.flat([a for a in anims if isinstance(a, ReplacementTransform)]):
            if isinstance(a, ReplacementTransform) and a.target_mobject is not None:
                pairs = carry.matched(self.book, [a.mobject], [a.target_mobject])
                self.flown(pairs)

    def flown(self, pairs: Any) -> None:
        """Each new item of `pairs` was reached from its old one: where that started (label, box)."""
        self._landed.update((id(new), (self.book.meta[id(old)]["label"], box(old))) for old, new in pairs)

    def settle(self) -> None:
        """At a step's end every carried item shows where its copy stands."""
        for leg in self._standing:
            leg.land(self)
        self._standing = []


def shown_ids(scene: Any, book: Any) -> list[int]:
    """The ids of the items the layout record lists, in its order (layout.snapshot's walk)."""
    out: list[int] = []
    seen: set[int] = set()

    def walk(mob: Any) -> None:
        if id(mob) in seen:
            return
        seen.add(id(mob))
        meta = book.meta.get(id(mob))
        if meta is None:
            for sub in mob.submobjects:
                walk(sub)
            return
        if not visible(mob):
            return
        out.append(id(mob))
        if meta["kind"] == "mark":
            for sub in mob.submobjects:
                walk(sub)
    for top in scene.mobjects:
        walk(top)
    return out


def mark_carried(scene: Any, record: dict) -> dict:
    """Mark each number and label of the step's layout record carried or not; the step's `cut`."""
    ids = shown_ids(scene, scene.book)
    items = record["items"]
    assert len(ids) == len(items), "the carried walk lost its place in the layout record"
    before: dict[int, str] = getattr(scene, "_ended_with", {})
    now: dict[int, str] = {}
    for i, item in zip(ids, items):
        if item["kind"] not in ("number", "label"):
            continue
        now[i] = item["label"]
        if scene.layout:                     # a previous step to carry from
            start = scene._landed.get(i)
            item["carried"] = before.get(i) == item["label"] or (start is not None and start[0] == item["label"])
            if start is not None:          # where its flight started: the label and box it left
                item["flown_from"] = {"label": start[0], "box": start[1]}
    if scene._cut:
        record["cut"] = True
    scene._ended_with, scene._landed, scene._cut = now, {}, False
    return record
