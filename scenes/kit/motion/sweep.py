"""The rest of a grid filled in front of the viewer: after its first entry's derivation, the other
entries land one after another in reading order, each with its sources lit (no expression).

    sweep(scene, rest, *also)       # rest: derive.split's numbers (and their marked boxes)

A grid of up to SMALL cells is swept whole, within SWEEP_TIME at normal pace; a larger one sweeps
its first row and the rest appears at once. Each swept entry's record says so:
{"motion": "sweep", "sweep": "all" | "first row", "from": the labels lit, "shows": the same,
"op": its provenance's op, "skipped" kept where its derivation had no room, "lit": the labels inside
the frames on screen as it lands, read back from the scene: derive_lit.lit_now}; the sources are the compute package's provenance (book.sources), lit
where they are on screen (`shorter` where some are not).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

from manim import Mobject, VGroup

from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.motion import carry
from scenes.kit.motion.derive import light, note
from scenes.kit.motion.derive_lit import landed
from scenes.kit.motion.expressions import record
from scenes.kit.text import style
from scenes.kit.text.layout import visible

SMALL = 16            # cells: a grid this small is swept entry by entry
SWEEP_TIME = 2.4      # seconds for a whole sweep at normal pace
ENTRY_TIME = 0.3      # the most one entry takes


def entries_of(book: Any, rest: Mobject) -> tuple[list[tuple[Mobject, list[Mobject]]], list[Mobject]]:
    """The numbers of `rest` in reading order, each with the marked boxes that cover it; and the
    parts that are neither (shown with the first)."""
    marks = defaultdict(list)
    numbers, others = [], []
    for part in rest.submobjects:
        meta = book.meta.get(id(part), {})
        if meta.get("kind") == "number" and "row" in meta.get("place", {}):
            numbers.append(part)
        elif meta.get("kind") == "mark":
            for label in meta["covers"]:
                marks[label].append(part)
        else:
            others.append(part)
    place = lambda m: (book.meta[id(m)]["place"]["row"], book.meta[id(m)]["place"]["col"])
    numbers.sort(key=place)
    out = [(m, marks.pop(book.meta[id(m)]["label"], [])) for m in numbers]
    return out, others + [b for boxes in marks.values() for b in boxes]


def on_screen(scene: Any) -> dict[str, list[Mobject]]:
    """label -> the visible items showing it."""
    found = defaultdict(list)
    for (_, label), mob in carry.labelled(scene.book, scene.mobjects):
        if visible(mob):
            found[label].append(mob)
    return found


def sources_lit(scene: Any, label: str, shown: dict[str, list[Mobject]]) -> tuple[list[str], list[Mobject], bool]:
    """(the source labels lit, their frames, whether some source is not on screen)."""
    source = scene.book.sources.get(label)
    wanted = list(source.sources) if source is not None else []
    lit = [s for s in wanted if shown.get(s)]
    frames = [light(scene.book, shown[s][0], [s], style.TRACK) for s in lit]
    return lit, frames, len(lit) < len(wanted) or source is None


def sweep(scene: Any, rest: Mobject, *also: Any, run_time: float = 0.6) -> None:
    """Fill `rest` (the numbers a grid still lacks) by the sweep, then show `also`."""
    book = scene.book
    numbers, others = entries_of(book, rest)
    if not numbers:
        scene.play(Appear(rest), *also, run_time=run_time)
        return
    places = [book.meta[id(m)]["place"] for m, _ in numbers]
    cells = (max(p["row"] for p in places) + 1) * (max(p["col"] for p in places) + 1)
    whole = cells <= SMALL
    swept = numbers if whole else [(m, b) for (m, b), p in zip(numbers, places) if p["row"] == places[0]["row"]]
    pace = style.PACES[scene.pace]
    each = min(ENTRY_TIME, SWEEP_TIME / len(swept)) * pace
    shown, lights = on_screen(scene), []
    for n, (entry, boxes) in enumerate(swept):
        label = book.meta[id(entry)]["label"]
        lit, frames, short = sources_lit(scene, label, shown)
        op = book.sources[label].op if label in book.sources else "sweep"
        skipped = (record(book, label, book.meta[id(entry)]["text"]) or {}).get("derivation", {}).get("skipped")
        note(book, entry, {"op": op, "motion": "sweep", "sweep": "all" if whole else "first row",
                           "from": lit, "shows": lit, "shorter": short, **({"skipped": skipped} if skipped else {})})
        first = [Appear(m) for m in others] if n == 0 else []
        scene.play(*[Vanish(f) for f in lights], *[Appear(f) for f in frames], *first,
                   *[Appear(m) for m in (*boxes, entry)], run_time=each)
        landed(scene, entry)         # the labels lit on screen as it lands
        lights = frames
    left = VGroup(*[m for e, b in numbers[len(swept):] for m in (*b, e)])
    closing = [*[Vanish(f) for f in lights], *([Appear(left)] if len(left) else []), *also]
    if closing:
        scene.play(*closing, run_time=run_time if len(left) or also else each)

