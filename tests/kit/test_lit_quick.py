"""What is lit as a number lands (scenes/kit/motion/derive_lit.lit_now) skips, by one of its points,
the numbers that lie outside every frame before it measures a number's box: the quick look never
drops a number the full rule finds inside a frame, its edges touching the frame's line (within
INSIDE) included. Checked against lit_now with no quick look, on numbers at and just past frames'
edges; planted: the quick look without the tolerance is caught."""
import random
from types import SimpleNamespace

import pytest
from manim import Rectangle, Square, VGroup

from scenes.kit.motion import derive_lit


def board(seed):
    """Squares standing for numbers (their first point a corner) and light frames set at, just
    inside and just past their edges, with a frame's tolerance in mind."""
    rng = random.Random(seed)
    meta, mobs = {}, []
    for n in range(30):
        mob = VGroup(Square(rng.uniform(0.1, 0.5)).shift([rng.uniform(-6, 6), rng.uniform(-3, 3), 0]))
        meta[id(mob)] = {"kind": "number", "label": f"x[{n}]", "text": str(n), "numbers": []}
        mobs.append(mob)
    frames = []
    for mob in rng.sample(mobs, 8):
        off = rng.choice([-0.03, -0.019, -0.01, 0.0, 0.01, 0.019, 0.03])   # >0: the frame is smaller
        frame = Rectangle(width=max(mob.width - 2 * off, 0.01), height=max(mob.height - 2 * off, 0.01),
                          stroke_width=4).move_to(mob).shift([rng.choice([0, off]), rng.choice([0, -off]), 0])
        frame.lights = "source"
        frames.append(frame)
    return SimpleNamespace(mobjects=mobs + frames, book=SimpleNamespace(meta=meta))


def without_quick_look(scene, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(derive_lit, "outside", lambda mob, frames: False)
        return derive_lit.lit_now(scene)


@pytest.mark.parametrize("seed", range(20))
def test_the_quick_look_never_drops_a_lit_number(seed, monkeypatch):
    scene = board(seed)
    assert derive_lit.lit_now(scene) == without_quick_look(scene, monkeypatch)


def test_planted_quick_look_without_the_tolerance_is_caught(monkeypatch):
    caught = 0
    for seed in range(20):
        scene = board(seed)
        with monkeypatch.context() as m:
            m.setattr(derive_lit, "outside", strict)
            planted = derive_lit.lit_now(scene)
        caught += planted != without_quick_look(scene, monkeypatch)
    assert caught


def strict(mob, frames):
    """outside() as it would be with no tolerance and no rounding margin."""
    p = derive_lit.first_point(mob)
    x, y = float(p[0]), float(p[1])
    return not any(f[0] <= x <= f[2] and f[1] <= y <= f[3] for f in frames)
