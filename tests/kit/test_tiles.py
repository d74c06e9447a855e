"""The cells of colour-only pictures (grids.tile: strips, T x T pictures, colour grids) are the
Rectangles Manim builds from the same arguments, attribute for attribute and bit for bit, and no
two share an array."""
import numpy as np
import pytest
from manim import Rectangle

from scenes.kit.draw import grids
from scenes.kit.text import style

CASES = [(0.26, 0.28, "#FFB74D", 1, 0.5, 1.0), (0.36, 0.36, style.BACKGROUND, 0, 1, 0.4),
         (0.3, 0.2, "#4FC3F7", 0.9, 0.5, 1.0), (0.36, 0.36, style.MASK, 1, 1, 1)]


def attributes(mob):
    """Every attribute but the copy's own id, arrays as bytes."""
    return {k: (v.tobytes() if isinstance(v, np.ndarray) else repr(v))
            for k, v in vars(mob).items() if k not in ("original_id", "path_obj")}


def built(width, height, fill, fill_opacity, stroke_width, stroke_opacity):
    return Rectangle(width=width, height=height, stroke_width=stroke_width, stroke_color=style.GRID_LINE,
                     stroke_opacity=stroke_opacity, fill_color=fill, fill_opacity=fill_opacity)


@pytest.mark.parametrize("case", CASES)
def test_a_tile_is_the_rectangle_manim_builds(case):
    for _ in range(2):                          # the first builds the prototype, the second copies it
        assert attributes(grids.tile(*case)) == attributes(built(*case))


def shared(case):
    """Whether changing one tile changes the next one of the same kind."""
    a, b = grids.tile(*case), grids.tile(*case)
    a.shift([1, 0, 0]).set_fill("#000000")
    return attributes(b) != attributes(built(*case))


def test_tiles_share_nothing():
    assert not shared(CASES[0])


def test_planted_prototype_handed_out_or_key_without_stroke_is_caught(monkeypatch):
    monkeypatch.setattr(grids, "_TILES", {})
    monkeypatch.setattr(grids, "clone", lambda mob: mob)                  # the prototype itself
    assert shared(CASES[0])
    monkeypatch.undo()

    class Forgetful(dict):                   # a key without the stroke's opacity
        def __contains__(self, key):
            return dict.__contains__(self, key[:3] + key[4:])

        def __getitem__(self, key):
            return dict.__getitem__(self, key[:3] + key[4:])

        def __setitem__(self, key, value):
            dict.__setitem__(self, key[:3] + key[4:], value)
    monkeypatch.setattr(grids, "_TILES", Forgetful())
    opaque, faint = (0.36, 0.36, style.MASK, 0, 1, 1.0), (0.36, 0.36, style.MASK, 0, 1, 0.4)
    grids.tile(*opaque)
    assert attributes(grids.tile(*faint)) != attributes(built(*faint))


FRAMES = [(style.TRACK, 0.05, 4), (style.ACCENT, 0.08, 4), (style.MASK, 0.06, 5)]


def spots():
    """Things a frame goes around: cells, a curved glyph-like shape, a group, far from the centre."""
    from manim import Circle, Square, VGroup
    return [Square(0.4).shift([3.1, -1.7, 0]), Rectangle(width=1.37, height=0.29).shift([-6.2, 3.3, 0]),
            Circle(0.23).shift([0.011, 0.7, 0]), VGroup(Square(0.3), Circle(0.2).shift([1, 0.3, 0])).shift([-2, -3, 0])]


@pytest.mark.parametrize("look", FRAMES)
def test_a_frame_is_the_surrounding_rectangle_manim_builds(look):
    from manim import SurroundingRectangle
    color, buff, width = look
    for spot in spots():
        for _ in range(2):                      # the first builds the prototype, the second copies it
            made = grids.surrounding(spot, color, buff, width)
            assert type(made) is SurroundingRectangle
            assert attributes(made) == attributes(SurroundingRectangle(spot, color=color, buff=buff,
                                                                       stroke_width=width))


def test_planted_frame_unmoved_is_caught(monkeypatch):
    from manim import SurroundingRectangle
    monkeypatch.setattr(grids, "_FRAMES", {})
    monkeypatch.setattr(grids.SurroundingRectangle, "move_to", lambda self, where: self, raising=False)
    spot = spots()[0]
    made = grids.surrounding(spot, style.TRACK, 0.05, 4)
    monkeypatch.undo()
    assert attributes(made) != attributes(SurroundingRectangle(spot, color=style.TRACK, buff=0.05, stroke_width=4))
