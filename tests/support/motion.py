"""Every motion arrives: on the real render path (frames drawn, not the fast path's jump to each
animation's end), each mover of a Transform (a carried number's flight, 4.7's element moves,
dropout's bar, a fade's shift ...) is, when its play ends, where the Transform was taking it: each
piece of the mover's family at its target's place (their boxes within LANDED frame units). A
mover that stops short shows its last frame short of its place and jumps there when the next piece
is drawn (or, for a ReplacementTransform, when the target takes its place); it is named with its
clip, step and label.

    with landings() as seen: render_clip(...)      # in this process, any quality but the fast path
    seen.checked          how many movers were checked
    seen.problems         one line each: "CLIP step N: LABEL stops X units short of its landing"
"""
import contextlib

import numpy as np
from manim import Scene, Transform
from manim.animation.animation import prepare_animation

LANDED = 1e-3          # frame units (8 across): well under a pixel at 2160p


class Seen:
    def __init__(self):
        self.checked = 0
        self.problems = []


def _leaves(anims):
    """The animations a play runs, groups and successions opened."""
    for a in anims:
        inner = getattr(a, "animations", None)
        if inner:
            yield from _leaves(inner)
        else:
            yield a


def _boxes(mob):
    """Each piece with points of a family: its box's corners."""
    return [np.concatenate([m.points.min(axis=0), m.points.max(axis=0)]) for m in mob.get_family()
            if len(m.points)]


def label_of(scene, anim):
    """The book's label of the mover (or of its target, or of a piece of either); for a copy (a
    carried number's), the label of the book's item standing at its landing; else its class."""
    meta = scene.book.meta
    for mob in (anim.mobject, getattr(anim, "target_mobject", None)):
        for m in (mob.get_family() if mob is not None else []):
            if id(m) in meta and meta[id(m)].get("label"):
                return meta[id(m)]["label"]
    want = _boxes(anim.target_copy)
    for m in scene.book.kept:
        have = _boxes(m)
        if id(m) in meta and meta[id(m)].get("label") and len(have) == len(want) and \
                max(np.abs(a - b).max() for a, b in zip(have, want)) < LANDED:
            return meta[id(m)]["label"]
    return type(anim.mobject).__name__


def short_by(anim):
    """How far (frame units) the mover's pieces are from their targets' at the play's end; None
    where the Transform does not mean to end on its target (a rate function that returns, as
    Indicate's there-and-back) or the shapes cannot be compared."""
    target = getattr(anim, "target_copy", None)
    if target is None or abs(anim.rate_func(1.0) - 1.0) > 1e-9:
        return None
    have, want = _boxes(anim.mobject), _boxes(target)
    if len(have) != len(want) or not have:
        return None
    return float(max(np.abs(a - b).max() for a, b in zip(have, want)))


@contextlib.contextmanager
def landings():
    """Spy on every real play of this process (Manim's Scene.play, under ClipScene's): after it,
    each Transform's mover against its target."""
    seen, real = Seen(), Scene.play

    def play(self, *args, **kwargs):
        anims = [prepare_animation(a) for a in args]
        step = getattr(getattr(self, "book", None), "step", None)
        result = real(self, *anims, **kwargs)
        if getattr(self, "fast", True):
            return result
        for anim in _leaves(anims):
            if not isinstance(anim, Transform):
                continue
            gap = short_by(anim)
            if gap is None:
                continue
            seen.checked += 1
            if gap > LANDED:
                seen.problems.append(f"{self.spec.name} step {step}: {label_of(self, anim)} "
                                     f"({type(anim).__name__}) stops {gap:.3f} units short of its landing")
        return result
    Scene.play = play
    try:
        yield seen
    finally:
        Scene.play = real
