"""The glyph copies (scenes/kit/text/glyphs.py): `clone` is copy.deepcopy (the same objects, arrays,
colours and sharing, none of it shared with the original), and a NumberText is, to the bit, the
number built the plain Manim way (a deep copy of each glyph, move_to, set_color, center)."""
import copy
import sys
from pathlib import Path

import numpy as np
import pytest
from manim import DL, MarkupText, MathTex, Text, VGroup
from manim.utils.color import ManimColor

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from scenes.kit.text import glyphs, style, textcache  # noqa: E402

textcache.install()
NUMBERS = ["\u22120.4223", "13.3024", "\u2212\u221e", "NaN", "0", "1.235", ""]
COLOURS = [style.TEXT, style.ACCENT, ManimColor([0.2, 0.4, 0.6, 0.75])]


def plain_number(text, size, color):
    """NumberText as it was first written: Manim's own calls, each glyph a deep copy."""
    group = VGroup()
    pen = 0.0
    for char in text:
        glyph, dx, dy, advance = glyphs._glyph(char, size)
        part = copy.deepcopy(glyph, {id(glyph.path_obj): glyph.path_obj})
        part.move_to([pen + dx, dy, 0], aligned_edge=DL)
        group.add(part)
        pen += advance
    group.set_color(color)
    group.center()
    return group


def arrays(mob):
    """Every array of the number and its parts, as bytes (exact)."""
    keys = ("points", "fill_rgbas", "stroke_rgbas", "background_stroke_rgbas")
    return [(k, getattr(m, k).tobytes()) for m in mob.get_family() for k in keys]


@pytest.mark.parametrize("size", [22, 26, 34])
def test_a_number_is_the_plain_manim_number_to_the_bit(size):
    for text in NUMBERS:
        for color in COLOURS:
            made, plain = glyphs.NumberText(text, size=size, color=color), plain_number(text, size, color)
            assert len(made.submobjects) == len(text)
            assert arrays(made) == arrays(plain), (text, size, color)
            assert made.get_center().tobytes() == plain.get_center().tobytes()


def structure(value, seen):
    """Types, array bytes and the sharing between objects (each object named by the order it is
    first met), skipping the atoms and what a copy renames (original_id)."""
    if isinstance(value, (int, float, str, bool, type(None))):
        return [value]
    if id(value) in seen:
        return [("ref", seen[id(value)])]
    seen[id(value)] = len(seen)
    if isinstance(value, np.ndarray):
        return [("array", value.dtype.str, value.shape, value.tobytes())]
    if isinstance(value, (list, tuple)):
        return [(type(value).__name__, len(value))] + [x for v in value for x in structure(v, seen)]
    if isinstance(value, dict):
        return [("dict", len(value))] + [x for k, v in value.items()
                                         for x in structure(k, seen) + structure(v, seen)]
    if hasattr(value, "__dict__") and type(value).__module__.startswith(("manim", "scenes")):
        return [type(value).__name__] + [x for k, v in vars(value).items() if k != "original_id"
                                         for x in [k] + structure(v, seen)]
    return [repr(value)]


def objects(value, found):
    """Every mutable object reachable from value (by id), but the parsed SVG path."""
    if isinstance(value, (int, float, str, bool, type(None))) or id(value) in found:
        return found
    found[id(value)] = value
    if isinstance(value, (list, tuple)):
        for v in value:
            objects(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            objects(v, found)
    elif hasattr(value, "__dict__") and type(value).__module__.startswith(("manim", "scenes")):
        for k, v in vars(value).items():
            if k != "path_obj":
                objects(v, found)
    return found


@pytest.fixture(scope="module")
def samples():
    return [Text("注意力 0.5", font=style.FONT, font_size=26, color=style.TEXT),
            MarkupText("<b>粗</b> q", font=style.FONT, font_size=26),
            MathTex(r"\frac{q \cdot k}{\sqrt{d_k}}", color=style.TEXT),
            glyphs.NumberText("\u22120.4223", color=style.ACCENT)]


def test_clone_is_deepcopy_and_shares_nothing(samples):
    for mob in samples:
        paths = [getattr(m, "path_obj", None) for m in mob.get_family()]
        made, reference = glyphs.clone(mob), copy.deepcopy(mob, {id(p): p for p in paths if p is not None})
        assert structure(made, {}) == structure(reference, {}), type(mob).__name__
        ours, theirs = objects(made, {}), objects(mob, {})
        shared = [type(v).__name__ for k, v in ours.items() if k in theirs and not isinstance(v, type)
                  and not isinstance(v, (tuple, frozenset)) and type(v).__module__ != "enum"]
        assert not [s for s in shared if s not in ("LineJointType", "CapStyleType")], shared
        assert all(m.original_id == str(id(o)) for m, o in zip(made.get_family(), mob.get_family()))
        first = made.family_members_with_points()[0]
        before = mob.family_members_with_points()[0].points.copy()
        first.points += 1
        assert np.array_equal(mob.family_members_with_points()[0].points, before)


def copies_problems(make):
    """What is wrong with the numbers `make` hands out (text, size, colour -> a number): each must
    be the NumberText of the same text, size and colour, also after the ones handed out before it
    were moved and recoloured as a scene moves and colours them."""
    problems = []
    for text in NUMBERS:
        for color in COLOURS:
            plain = glyphs.NumberText(text, size=26, color=color)
            made = [make(text, 26, color) for _ in range(3)]
            if not all(arrays(m) == arrays(plain) and m.text == text for m in made):
                problems.append(("not the number", text, color))
            made[0].shift([1, 0, 0])
            made[1].set_color("#000000")
            if arrays(make(text, 26, color)) != arrays(plain):
                problems.append(("changed by an earlier one", text, color))
    return problems


def test_a_repeated_number_is_a_copy_of_the_first_to_the_bit(monkeypatch):
    """number_text: the first is built, the rest copied from an untouched copy of it."""
    monkeypatch.setattr(glyphs, "_NUMBERS", glyphs.OrderedDict())
    assert copies_problems(glyphs.number_text) == []


def test_planted_kept_number_handed_out_is_caught():
    kept = {}

    def handed_out(text, size, color):            # the kept number itself, no copy
        return kept.setdefault((text, size, str(color)), glyphs.NumberText(text, size=size, color=color))
    assert copies_problems(handed_out)
