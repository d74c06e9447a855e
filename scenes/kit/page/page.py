"""The page engine: a step's blocks on one board, or on several boards in turn.

A clip builds its blocks (grids, lines, notes) and declares how they may be arranged
(`ways`: beside, stacked, …, the book's first) and how a step may be split (`options`: a list
of page lists, the whole step on one page first). The engine measures each arrangement in
the page's area, keeps every number at least READABLE_H tall where it can (the legibility
contract, style.LEGIBLE_H, is checked again by the tests), chooses, and turns the pages:
each page is its own captioned step with its narration.

    page = stack(query, grids, note)
    pages = plan(book, [[Page(caption, page, say=said)],            # one board
                        [Page(caption, upper), Page(caption, lower)]])   # or two
    turn(scene, pages)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from manim import Mobject, VGroup

from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.text.numbers import NumberBook, Shown

Way = Callable[[], object]      # places the parts of a group (beside, stacked, …)


# ---------------------------------------------------------------- sentences
def phrase(template: str, *slots: Shown, **named: Shown) -> tuple:
    """A caption or a sentence: (template, slots in order, slots by name), for step() or narrate()."""
    return template, slots, named


class Said(tuple):
    """A caption (a phrase) with what the lecturer says while it shows (phrases)."""
    narration: tuple = ()


def said(caption: tuple, narration: tuple | list = ()) -> Said:
    out = Said(caption)
    if isinstance(narration, (list, Joined)):
        out.narration = tuple(narration)
    elif narration:
        out.narration = (narration,)
    return out


class Joined(tuple):
    """Sentences (phrases) said one after another."""


def join(*pieces: tuple) -> Joined:
    """Sentences (phrases), or runs of them, said one after another."""
    return Joined(s for p in pieces for s in (p if isinstance(p, Joined) else (p,)))


# ---------------------------------------------------------------- the area and legibility
@dataclass(frozen=True)
class Area:
    """Where a page is drawn: at most width x height (height: top to bottom unless given),
    centred between top and bottom, never grown past `most`."""
    width: float = style.PAGE_WIDTH
    top: float = style.CONTENT_TOP
    bottom: float = style.CONTENT_BOTTOM
    height: float | None = None
    most: float = 1.0

    def tall(self) -> float:
        return self.top - self.bottom if self.height is None else self.height

    def room(self, mob: Mobject, most: float | None = None) -> float:
        """The scale at which `mob` fills the area (never past the area's most, nor `most`)."""
        return min(self.width / max(mob.width, 1e-9), self.tall() / max(mob.height, 1e-9),
                   self.most, np.inf if most is None else most)

    def center(self) -> np.ndarray:
        return np.array([0.0, (self.top + self.bottom) / 2, 0.0])

    def place(self, mob: Mobject, most: float | None = None) -> Mobject:
        """Scale `mob` into the area (never past `most`) and centre it there."""
        if mob.width or mob.height:
            mob.scale(self.room(mob, most))
        return mob.move_to(self.center())


def number_heights(book: NumberBook, mob: Mobject) -> list[float]:
    return [m.height for m in mob.get_family() if book.meta.get(id(m), {}).get("kind") == "number"]


def needed(book: NumberBook, mob: Mobject, height: float = style.READABLE_H) -> float:
    """The least scale at which every number in `mob` is still `height` tall (0: no numbers)."""
    heights = number_heights(book, mob)
    return height / min(heights) if heights else 0.0


def fits(book: NumberBook, mob: Mobject, area: Area, height: float = style.READABLE_H,
         least: float = 0.0) -> bool:
    """Placed in `area`, every number of `mob` is at least `height` tall (and `mob` at least `least`
    of its size)."""
    return area.room(mob) >= max(least, needed(book, mob, height))


def keeps_contract(book: NumberBook, mob: Mobject, area: Area) -> bool:
    return fits(book, mob, area, style.LEGIBLE_H)


def choose(group: Mobject, ways: Sequence[Way], area: Area, need: float = 0.0,
           prefer: float = style.PREFER) -> float:
    """Arrange `group` each way in turn and keep the roomiest, or an earlier way (the book's
    order) that is within `prefer` of it and still at least `need`; returns its scale."""
    scales = []
    for way in ways:
        way()
        scales.append(area.room(group))
    pick = int(np.argmax(scales))
    for n in range(pick):
        if scales[n] * prefer >= scales[pick] and scales[n] >= need:
            pick = n
            break
    ways[pick]()
    return scales[pick]


def arrange(book: NumberBook, group: Mobject, ways: Sequence[Way], area: Area) -> bool:
    """`choose` with the readable scale as the need; whether the chosen way keeps it."""
    choose(group, ways, area, needed(book, group))
    return fits(book, group, area)


# ---------------------------------------------------------------- pages
@dataclass
class Page:
    """One board of a step. blocks: a laid-out group (scaled into the area when shown), or a
    function of the page's scale that lays the pieces out (buffs times the scale) and returns
    them. reveal: batches of animations, or a function returning them once the page is placed;
    None: each piece of the group appears through `show`. say: the narration (phrases);
    most: the largest scale this page may take; lay: arranges the blocks (the way this page
    shows pieces another option arranges otherwise), run before the page is measured; need:
    the least scale this page may take, set by its own lay (a zoom: kit/page/zoom.py)."""
    caption: tuple
    blocks: Mobject | Callable[[float], VGroup]
    reveal: Any = None
    say: Sequence[tuple] = ()
    most: float | None = None
    lay: Callable[[], object] | None = None
    need: float | None = None
    scale: float = field(default=1.0, init=False)

    def laid_out(self, scale: float = 1.0) -> Mobject:
        return self.blocks(scale) if callable(self.blocks) else self.blocks


def plan(book: NumberBook, options: Sequence[Sequence[Page]], area: Area,
         needs: Sequence[float] | None = None, zoom: Sequence[Page] | None = None) -> list[Page]:
    """The first option whose every page fits the area at its need or more (a scale: the page's
    own, else the option's, by default the one keeping every number READABLE_H tall), else the
    last option. zoom: one more option, tried before the last (the tracked row drawn again:
    kit/page/zoom.py). Each page is laid (`lay`) as it is measured: the chosen option's pages stay as laid."""
    options, needs = list(options), None if needs is None else list(needs)
    if zoom is not None:
        options.insert(len(options) - 1, zoom)
        if needs is not None:
            needs.insert(len(needs) - 1, 0.0)
    pages: Sequence[Page] = []
    for n, pages in enumerate(options):
        for page in pages:
            if page.lay is not None:
                page.lay()
            mob = page.laid_out(1.0)
            page.scale = area.room(mob, page.most)
        need = needs[n] if needs else None
        if all(p.scale >= (p.need if p.need is not None else needed(book, p.laid_out(1.0)) if need is None
                           else need) for p in pages):
            break
    return list(pages)


def turn(scene: Any, pages: Sequence[Page], area: Area, show: Callable | None = None,
         keep: Sequence[Mobject] = (), first: Callable | None = None) -> None:
    """Give each page its step: caption and narration, its blocks placed, then its reveal (or
    each piece shown); the board before gives way to the page's first play (scene.leave: the
    items on both move, the rest fades while the new comes, the caption changes with them)."""
    for n, page in enumerate(pages):
        template, slots, named = page.caption
        scene.step(template, *slots, **named)
        for template, slots, named in (page.say or getattr(page.caption, "narration", ())):
            scene.narrate(template, *slots, **named)
        scene.leave([m for m in scene.mobjects if m not in (scene.title_mob, scene._caption, *keep)])
        group = _placed(page, area)
        scene.toward(group)
        if n == 0 and first is not None:
            first()
        if page.reveal is None:
            for m in group.submobjects:
                (show or (lambda mob: scene.play(Appear(mob))))(m)
            continue
        for anims in page.reveal() if callable(page.reveal) else page.reveal:
            scene.play(*anims)


def _placed(page: Page, area: Area) -> Mobject:
    if not callable(page.blocks):
        return area.place(page.blocks, page.most)
    for m in page.blocks(page.scale).submobjects:      # each piece at this page's scale
        m.scale(page.scale / getattr(m, "page_scale", 1.0))
        setattr(m, "page_scale", page.scale)   # a piece shown on several pages keeps its own
    return page.blocks(page.scale).move_to(area.center())


def speak(scene: Any, sentences: Sequence[str], **slots: Shown) -> None:
    """Narrate the sentences in turn, each taking the named slots it holds (every slot held by one)."""
    from scenes.kit.text.numbers import NAMED
    unused = set(slots)
    for sentence in sentences:
        names = set(NAMED.findall(sentence))
        scene.narrate(sentence, **{name: slots[name] for name in names})
        unused -= names
    assert not unused, f"slots no sentence holds: {sorted(unused)}"


def named(template: str, slots: dict) -> dict:
    """The slots a template names ({p}, {d_in}): one dict can serve a step's caption, its
    narration and its lines, each template taking only its own."""
    return {k: v for k, v in slots.items() if "{" + k + "}" in template}
