"""What is lit when a number lands, read from the screen (not from the plan that lit it).

derive.light tags each frame it makes (`frame.lights = "source"` or "target"); at the moment a
number lands, `lit_now(scene)` walks the scene's mobjects as they are at that frame: every visible
source frame, and the labels of the visible numbers that lie inside it (`lit`), and of each
visible label text inside one, the numbers it draws (`lit_texts`). A sweep and a derivation record
them in the landing number's `derivation`; the tests compare it with the number's provenance (tests/support/lit.py).
"""
from __future__ import annotations

from typing import Any

from manim import Mobject

from scenes.kit.motion.carry import labelled
from scenes.kit.text.bounds import critical_point
from scenes.kit.text.layout import box, visible

INSIDE = 0.02     # frame units: a number touching its frame's line is inside it


def _inside(inner: list[float], outer: list[float]) -> bool:
    return (inner[0] >= outer[0] - INSIDE and inner[2] <= outer[2] + INSIDE
            and inner[1] >= outer[1] - INSIDE and inner[3] <= outer[3] + INSIDE)


def frames_now(scene: Any, kind: str = "source") -> list[list[float]]:
    """The boxes of the visible light frames of `kind` on screen now (a light is added to the scene
    on its own: the top level is enough)."""
    return [box(m) for m in scene.mobjects if getattr(m, "lights", None) == kind and visible(m)]


def first_point(mob: Mobject) -> Any:
    """The first point of the first member of mob's family that has points (None: none has)."""
    todo = [mob]
    while todo:
        m = todo.pop()
        if len(m.points):
            return m.points[0]
        todo.extend(reversed(m.submobjects))
    return None


def outside(mob: Mobject, frames: list[list[float]]) -> bool:
    """Whether mob lies outside every frame, seen from one of its points (its box holds every
    point that starts or ends a curve, the first included): a quick answer that never says yes
    to a number whose box (rounded, as box() rounds it) is inside a frame."""
    if type(mob).get_critical_point is not critical_point:
        return False
    p = first_point(mob)
    if p is None:
        return False
    x, y, off = float(p[0]), float(p[1]), INSIDE + 1e-4
    return not any(f[0] - off <= x <= f[2] + off and f[1] - off <= y <= f[3] + off for f in frames)


def lit_now(scene: Any, kind: str = "source") -> tuple[list[str], list[list[str]]]:
    """What is lit now: the labels of the visible numbers inside a visible light frame of `kind`,
    and for each visible label text inside one, the numbers it draws (a row's name draws its
    index), in the order the scene draws them."""
    frames = frames_now(scene, kind)
    if not frames:
        return [], []
    book, numbers, texts = scene.book, [], []
    for (what, label), mob in labelled(book, scene.mobjects):
        if what not in ("number", "label") or outside(mob, frames):
            continue
        where = box(mob)
        if not any(_inside(where, f) for f in frames) or not visible(mob):
            continue
        if what == "number" and label not in numbers:
            numbers.append(label)
        elif what == "label":
            texts.append(list(book.meta[id(mob)].get("numbers", [])))
    return numbers, texts


def landed(scene: Any, entry: Mobject) -> None:
    """Record in `entry`'s derivation what is lit as it lands (now)."""
    from scenes.kit.motion.expressions import record
    meta = scene.book.meta.get(id(entry))
    rec = record(scene.book, meta["label"], meta["text"]) if meta else None
    if rec is not None and "derivation" in rec:
        rec["derivation"]["lit"], rec["derivation"]["lit_texts"] = lit_now(scene)
