"""One picture from step to step, read back from the real video.

No frame of a clip's real mp4 after its opening (OPENING seconds) has an empty content band
(the frame between the title band and the caption band with under EMPTY of its pixels lit),
except inside a step recorded "cut" (at most one a clip). Planted: the board cleared first
(the slide deck's turn: the board fades out, then the next one fades in).
"""
import json

import av
import numpy as np
import pytest

from conftest import inputs_for
from scenes.kit.text import style
from support.pixels import to_pixels

OPENING = 1.5         # seconds: the clip's first picture may build on an empty board
EMPTY = 0.001         # a band with fewer lit pixels than this share is empty
LIT = 40              # luma this far from the band's background is drawn
CLIPS = ("weighted-average", "score-grid", "causal-mask", "future-check", "dropout", "multihead",
         "implementation", "exercises")


def band_rows(height, width, frame):
    """The content band's rows, in pixels of a frame of this size (from the manifest's frame)."""
    box = [-frame["width"] / 2, style.CONTENT_BOTTOM, frame["width"] / 2, style.CONTENT_TOP]
    r0, r1, _, _ = to_pixels(box, width, height, frame["width"], frame["height"])
    return r0 + 1, r1 - 1


def empty_times(mp4, manifest):
    """The times (s) of frames after the opening whose content band is empty, outside cut steps."""
    cuts = [(s["start"], s["end"]) for s, lay in zip(manifest["steps"], manifest["layout"]) if lay.get("cut")]
    out = []
    with av.open(str(mp4)) as box:
        for frame in box.decode(box.streams.video[0]):
            t = float(frame.time)
            if t < OPENING or any(a <= t < b for a, b in cuts):
                continue
            rgb = frame.to_ndarray(format="rgb24")
            r0, r1 = band_rows(*rgb.shape[:2], manifest["frame"])
            luma = rgb[r0:r1].astype(float) @ [0.299, 0.587, 0.114]
            if (np.abs(luma - np.median(luma)) > LIT).mean() < EMPTY:
                out.append(round(t, 2))
    return out


def cut_problems(manifest):
    cuts = [lay["step"] for lay in manifest["layout"] if lay.get("cut")]
    return [f"{len(cuts)} steps recorded cut: {cuts}"] if len(cuts) > 1 else []


def clear_first(scene, keep=()):
    """The slide deck's clear_stage: the caption changes, the board fades out, then the next."""
    from scenes.kit.draw.anim import Vanish
    gone = [m for m in scene.mobjects if m not in (scene.title_mob, scene._caption, *keep)]
    scene._play_now([*scene._pending, *[Vanish(m, run_time=0.5) for m in gone]])
    scene._pending = []


@pytest.mark.sampled(4)
@pytest.mark.parametrize("clip", CLIPS)
def test_the_real_video_never_shows_an_empty_board(tiny_chapter, clip):
    manifest = json.loads((tiny_chapter / f"{clip}.numbers.json").read_text("utf-8"))
    assert empty_times(tiny_chapter / f"{clip}.mp4", manifest) == []
    assert cut_problems(manifest) == []


def test_a_board_cleared_first_is_caught(tmp_path, monkeypatch):
    """The slide deck's turn: everything fades out, then the next picture fades in."""
    from scenes.pipeline.run.runner import render_clip
    monkeypatch.setattr("scenes.kit.scene.base.ClipScene.clear_stage", clear_first)
    render_clip("weighted-average", inputs_for("weighted-average"), quality="tiny", out=tmp_path)
    manifest = json.loads((tmp_path / "weighted-average.numbers.json").read_text("utf-8"))
    found = empty_times(tmp_path / "weighted-average.mp4", manifest)
    starts = [s["start"] for s in manifest["steps"]]
    assert found and all(any(0 <= t - s < 1.5 for s in starts) for t in found), found


def test_two_cuts_in_one_clip_are_caught():
    manifest = {"layout": [{"step": 1, "items": []}, {"step": 2, "items": [], "cut": True},
                           {"step": 3, "items": [], "cut": True}]}
    assert cut_problems(manifest) == ["2 steps recorded cut: [2, 3]"]
