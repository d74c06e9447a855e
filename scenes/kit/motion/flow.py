"""Shapes that flow from line to line (4.8's listing, 4.9's shapes exercise): each size of a
line's shape is made from sizes already on screen (the line before, the code's own numbers). Copies of
those numbers, book records of their labels, fly from where they are drawn to where the new size will
stand (the first source lands there, the others fade on the way), then the line's text appears over
them. A size made from another size of the same line (the right of "a → b") flies after it.

Each size made this way says so in its record (`derivation`: op and sources from the clip's compute
module, motion "flow"); derive.watch() gets the layout once the copies have landed (`flow`: the labels).
Pacing: derive.seconds, a flight per phase. `walk` goes down a code listing row by row this way.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import AnimationGroup, Mobject, VGroup

from scenes.kit.motion import derive
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.text.layout import snapshot
from scenes.kit.text.numbers import NumberBook


def spans(book: NumberBook, mob: Mobject) -> dict[str, VGroup]:
    """The glyphs of each number a text of the book draws, by label, in reading order; none when its
    glyphs cannot be told apart (a text has a glyph for every character but spaces)."""
    meta = book.meta.get(id(mob))
    if meta is None or meta["kind"] == "mark" or len(mob.submobjects) != len("".join(meta["text"].split())):
        return {}
    text, cursor, out = meta["text"], 0, {}
    for label in meta["numbers"]:
        found = [(text.find(r["text"], cursor), r["text"]) for r in book.records if r["label"] == label]
        if not any(at >= 0 for at, _ in found):
            return {}
        at, said = min(f for f in found if f[0] >= 0)
        first = len("".join(text[:at].split()))
        out.setdefault(label, VGroup(*mob.submobjects[first:first + len("".join(said.split()))]))
        cursor = at + len(said)
    return out


def first_record(book: NumberBook, label: str) -> dict | None:
    return next((r for r in book.records if r["label"] == label), None)


def phases(book: NumberBook, here: dict, found: dict) -> dict[str, int]:
    """label -> its flight: 0 when all its sources are elsewhere on screen, one after the latest of
    its sources in this line. Only sizes not made before, whose every source is on screen or made here."""
    out: dict[str, int] = {}
    for label in here:
        src, rec = book.sources.get(label), first_record(book, label)
        if src is None or not src.sources or rec is None or "derivation" in rec:
            continue
        if all(s in out or s in found for s in src.sources):
            out[label] = 1 + max((out[s] for s in src.sources if s in out), default=-1)
    return out


def copy_of(book: NumberBook, label: str, at: Mobject) -> Mobject:
    """The number `label` (its book record) as tall as the glyphs `at`, standing on them."""
    rec = first_record(book, label)
    mob = book.num(label, rec["value"], rec["decimals"] or 0, color=style.TRACK)
    return mob.scale(at.height / mob.height if mob.height else 1.0).move_to(at)


def flow(scene: Any, line: Mobject, around: Sequence[Mobject], show: float = 0.5, also: Sequence[Any] = (),
         quick: bool = False) -> bool:
    """Bring in `line` (not on screen yet; it appears in `show` seconds), its new sizes flying in from
    the texts `around` (nearest first: a label is copied from the first text that draws it); `also`:
    animations played with the first flight; quick: each flight as short as the pacing allows (a
    recap). False when nothing of it is made this way (the line is only shown, with `also`)."""
    book = scene.book
    here, found = spans(book, line), {}
    for mob in around:
        for label, glyphs in spans(book, mob).items():
            found.setdefault(label, glyphs)
    order = phases(book, here, found)
    landed: dict[str, Mobject] = {}
    for k in range(max(order.values(), default=-1) + 1):
        moves, count = [], 0
        for label in [lab for lab, n in order.items() if n == k]:
            sources = book.sources[label].sources
            for n, s in enumerate(sources):
                start = landed[s] if s in order else found[s]
                mob = copy_of(book, s, here[label])
                scene.add(mob)
                fly = derive.Fly(mob, start, match=True)
                moves.append(fly if n else AnimationGroup(fly, Appear(mob)))
                if n:
                    moves.append(Vanish(mob))
                else:
                    landed[label] = mob
                count += 1
            first_record(book, label)["derivation"] = {"step": book.step, "op": book.sources[label].op,
                                                       "shows": list(sources), "motion": "flow"}
        scene.play(*moves, *(also if k == 0 else ()),
                   run_time=derive.seconds(1 if quick else count, scene.pace))
    if landed and derive.MOMENTS is not None:     # tests: the layout with every copy landed
        derive.MOMENTS.append({"label": next(iter(landed)), "flow": list(landed),
                               **snapshot(scene, book, book.step)})
    scene.play(Appear(line), *[Vanish(m) for m in landed.values()], *(() if landed else also), run_time=show)
    return bool(landed)


def walk(scene: Any, listing: Any, rows: Sequence[int], band: Mobject | None = None) -> Mobject | None:
    """Highlight each row of a code listing (columns.Listing) in turn (the band moves on from
    `band`, the one already shown, if any) and bring in the shape it makes, its sizes flowing from
    the row's code and the shapes above it. Returns the band shown."""
    for i in rows:
        lit = listing.highlight(i).set_z_index(-1)
        if band is None:
            scene.play(Appear(lit), run_time=0.4)
            band = lit
        else:
            scene.play(band.animate.become(lit), run_time=0.4)
        note = listing.note(i)
        if note is not None:
            above = [listing.notes[j] for j in range(i - 1, -1, -1) if j in listing.notes]
            flow(scene, note, [listing.codes[i], *above])
        scene.wait(0.3)
    return band
