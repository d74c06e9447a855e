"""Bounding boxes found faster (scenes/kit/text/bounds.py) are Manim's own, to the bit: every critical
point (corners, edge centres, centre) and every width, height and depth of random trees of
glyphs, rectangles, lines, dots and empty groups, shifted so that some extremes are exactly zero
or negative zero; planted: a reduction that drops the submobjects' points, a centre a
thousandth of a width off."""
import numpy as np
import pytest
from manim import DL, DOWN, DR, LEFT, ORIGIN, RIGHT, UL, UP, UR, Dot, Line, Mobject, Rectangle, VGroup

from scenes.kit.text import bounds, glyphs, style

DIRECTIONS = [UL, UP, UR, LEFT, ORIGIN, RIGHT, DL, DOWN, DR, np.array([0.0, -0.0, 1.0])]


def leaf(rng):
    kind = rng.integers(5)
    if kind == 0:
        return glyphs.NumberText(f"{rng.uniform(-99, 99):.4f}", color=style.TEXT)
    if kind == 1:
        return Rectangle(width=rng.uniform(0.1, 2), height=rng.uniform(0.1, 2))
    if kind == 2:
        return Line(ORIGIN, [rng.uniform(-2, 2), 0, 0])       # zero height, an end at 0
    if kind == 3:
        return Dot([rng.choice([0.0, -0.0, 1.5]), rng.choice([0.0, -0.0, -1.0]), 0])
    return VGroup()                                            # no points at all


def tree(rng, depth=0):
    group = VGroup(*[tree(rng, depth + 1) if depth < 2 and rng.random() < 0.4 else leaf(rng)
                     for _ in range(rng.integers(1, 5))])
    if rng.random() < 0.5:
        group.shift(-group.get_corner(DL) if rng.random() < 0.5 else [0.0, 0.0, 0.0])
    return group


def manims(mob):
    """Every box figure through Manim's own methods."""
    found = [bounds._manims_critical_point(mob, d) for d in DIRECTIONS]
    found += [bounds._manims_reduce(mob, f, dim) for f in (max, min) for dim in range(3)]
    return found


def ours(mob):
    found = [mob.get_critical_point(d) for d in DIRECTIONS]
    found += [mob.reduce_across_dimension(f, dim) for f in (max, min) for dim in range(3)]
    return found


def same(a, b):
    return all((x is None and y is None) or (x is not None and y is not None
               and np.asarray(x).tobytes() == np.asarray(y).tobytes()) for x, y in zip(a, b))


def test_every_box_is_manims_to_the_bit():
    rng = np.random.default_rng(26)
    for _ in range(120):
        t = tree(rng)
        for mob in t.get_family():
            assert same(ours(mob), manims(mob)), mob
        if t.has_points() or t.family_members_with_points():
            assert t.width == bounds._manims_reduce(t, max, 0) - bounds._manims_reduce(t, min, 0)


def test_other_reductions_and_empty_groups_are_manims():
    assert Mobject.reduce_across_dimension(VGroup(), max, 0) is None
    group = VGroup(Rectangle(), VGroup())
    middle = lambda v: sorted(v)[len(v) // 2]     # noqa: E731  not max or min: Manim's own
    assert group.reduce_across_dimension(middle, 1) == bounds._manims_reduce(group, middle, 1)


@pytest.mark.parametrize("planted", ["own points only", "a centre off by a little"])
def test_planted_box_bugs_are_caught(monkeypatch, planted):
    if planted == "own points only":
        monkeypatch.setattr(Mobject, "reduce_across_dimension",
                            lambda self, f, dim: f(self.points[:, dim]) if len(self.points) else None)
    else:
        real = bounds.critical_point
        monkeypatch.setattr(Mobject, "get_critical_point",
                            lambda self, d: real(self, d) + (0 if d[0] else real(self, RIGHT)[0] * 1e-3))
    rng = np.random.default_rng(26)
    groups = [tree(rng) for _ in range(20)]
    assert not all(same(ours(m), manims(m)) for g in groups for m in g.get_family())
