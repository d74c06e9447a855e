"""Glyph paths built once (scenes/kit/text/drawcache.py): frames drawn with kept Cairo paths are the
frames Manim draws, pixel for pixel (fades, moves, a morph, strokes, a mobject without points,
two frame sizes), and a real mp4 decodes to the same frames. Planted keys (no context matrix;
the mobject instead of its points) show that the comparison fails."""
import sys
from pathlib import Path

import av
import numpy as np
import pytest
from manim import (DOWN, RIGHT, Camera, Circle, Line, Scene, Square, Text, Transform, VGroup, VMobject,
                   tempconfig)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from scenes.kit.text import drawcache, glyphs, style  # noqa: E402
from scenes.kit.draw.anim import Appear  # noqa: E402

drawcache.install()


def stage():
    words = Text("注意力权重 softmax", font=style.FONT, font_size=26, color=style.TEXT)
    number = glyphs.NumberText("\u22120.4223", color=style.ACCENT).next_to(words, DOWN)
    box = Square(1.2).set_stroke(style.KEY, width=4).set_fill(style.QUERY, 0.4).shift(3 * RIGHT)
    edge = Line([-4, -2, 0], [4, -2.5, 0]).set_stroke(style.MASK, width=6)
    ring = Circle(0.5).set_stroke(style.TRACK, width=8, background=True).set_fill(style.VALUE, 1).shift(DOWN * 2)
    empty = VMobject().set_fill(style.MASK, 1)       # no points: Manim fills the previous path again
    return VGroup(words, number, box, empty, edge, ring)


def frames(cameras):
    """Eighteen frames per camera: a fade, a move, a morph; each camera draws in turn."""
    drawcache.clear()
    mob, other = stage(), stage().shift(RIGHT + DOWN)
    morph = Transform(mob[0], other[0])
    morph.begin()
    out = []
    for k in range(18):
        if k < 6:
            for part in mob.family_members_with_points():
                part.fill_rgbas[:, 3] = part.fill_rgbas[:, 3] * 0.0 + (k + 1) / 6
        elif k < 12:
            mob[1:].shift(0.05 * RIGHT)
        else:
            morph.interpolate((k - 11) / 6)
        for camera in cameras:
            camera.reset()
            camera.capture_mobject(mob)
            out.append(camera.pixel_array.copy())
    return out


def cameras():
    return [Camera(pixel_width=480, pixel_height=270),
            Camera(pixel_width=480, pixel_height=270, frame_width=10, frame_height=10 * 9 / 16)]


def drawn(monkeypatch, mode):
    monkeypatch.setenv("DRAW_CACHE", mode)
    return frames(cameras())


def differing(a, b):
    return [k for k, (x, y) in enumerate(zip(a, b)) if not np.array_equal(x, y)]


def test_kept_paths_draw_the_same_pixels(monkeypatch):
    reference = drawn(monkeypatch, "off")
    before = dict(drawcache.stats)
    cached = drawn(monkeypatch, "on")
    assert drawcache.stats["hits"] - before["hits"] > 100, "the cache was never used"
    assert len(cached) == len(reference) and differing(cached, reference) == []


@pytest.mark.parametrize("planted", ["no matrix", "the mobject, not its points"])
def test_planted_key_is_caught(monkeypatch, planted):
    reference = drawn(monkeypatch, "off")
    real = drawcache.key
    if planted == "no matrix":
        monkeypatch.setattr(drawcache, "key", lambda ctx, vm: real(ctx, vm)[:3] + real(ctx, vm)[4:])
    else:
        monkeypatch.setattr(drawcache, "key", lambda ctx, vm: (id(vm), tuple(ctx.get_matrix())))
    assert differing(drawn(monkeypatch, "on"), reference), f"a key with {planted} went unnoticed"


class Demo(Scene):
    def construct(self):
        a, b = stage(), stage().shift(RIGHT)
        self.play(Appear(a), run_time=1)
        self.play(Transform(a[0], b[0]), a[1:].animate.shift(DOWN), run_time=1)
        self.wait(0.4)


def test_a_real_video_decodes_to_the_same_frames(monkeypatch, tmp_path):
    videos, hits = [], []
    for mode in ("off", "on"):
        monkeypatch.setenv("DRAW_CACHE", mode)
        drawcache.clear()
        hits.append(drawcache.stats["hits"])
        media = tmp_path / mode
        with tempconfig({"media_dir": str(media), "pixel_width": 256, "pixel_height": 144, "frame_rate": 10,
                         "verbosity": "ERROR", "progress_bar": "none", "disable_caching": True}):
            Demo().render()
        videos.append(next(media.rglob("Demo.mp4")))
    assert drawcache.stats["hits"] - hits[1] > 50 and hits[1] == hits[0], "cached only when on"
    decoded = []
    for path in videos:
        with av.open(str(path)) as box:
            decoded.append([f.to_ndarray(format="rgb24") for f in box.decode(video=0)])
    assert len(decoded[0]) >= 20 and len(decoded[0]) == len(decoded[1])
    assert differing(*decoded) == []
