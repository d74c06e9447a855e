"""A drawn frame converted to YUV only where it changed (scenes/pipeline/video/convert.py) is the
frame converted whole, byte for byte: for random patches on every edge of a frame, and for every
frame of a real render, whose mp4 is the same bytes either way (at 480p, whose rows have padding,
every frame is left to PyAV's own conversion). Planted: a patch written without
the samples its change reaches (REACH 0), or converted without the margin they read (MARGIN 0),
is caught."""
import os
import random
import subprocess
import sys

import av
import numpy as np
import pytest

from conftest import ROOT, inputs_for
from scenes.pipeline.run.runner import render_clip
from scenes.pipeline.video import convert
from scenes.pipeline.video.holds import rgba_frame


def whole(frame):
    return frame.reformat(format="yuv420p")


def same(a, b, width):
    return all(np.array_equal(p[:, :w], q[:, :w])
               for p, q, w in zip(convert.planes(a), convert.planes(b), [width, width // 2, width // 2]))


def picture(rng, height, width):
    """A dark board with coloured, antialiased-looking blocks (sharp edges and soft ones)."""
    pixels = np.zeros((height, width, 4), np.uint8)
    pixels[..., 3] = 255
    for _ in range(12):
        y, x = rng.randrange(height), rng.randrange(width)
        h, w = rng.randint(1, height // 3), rng.randint(1, width // 3)
        pixels[y:y + h, x:x + w, :3] = [rng.randrange(256) for _ in range(3)]
    return pixels


def edits(rng, pixels, count):
    """Frames that each change one small patch of the one before: anywhere, edges included."""
    height, width = pixels.shape[:2]
    for _ in range(count):
        pixels = pixels.copy()
        h, w = rng.randint(1, 40), rng.randint(1, 60)
        y = rng.choice([0, height - h, rng.randrange(height - h + 1)])
        x = rng.choice([0, width - w, rng.randrange(width - w + 1)])
        pixels[y:y + h, x:x + w, :3] = rng.randrange(256)
        yield pixels


def mismatches(height=144, width=256, count=60, seed=1):
    rng = random.Random(seed)
    frames = convert.Frames("yuv420p")
    bad = 0
    start = picture(rng, height, width)
    frames.yuv(rgba_frame(start))
    for pixels in edits(rng, start, count):
        frame = rgba_frame(pixels)
        bad += not same(frames.yuv(frame), whole(frame), width)
    return bad, frames


@pytest.mark.parametrize("size", [(144, 256), (720, 1280), (1080, 1920)])
def test_a_patch_converted_is_the_frame_converted_whole(size):
    bad, frames = mismatches(*size, count=40 if size[0] > 500 else 80)
    assert bad == 0
    assert frames.patched >= 39 and frames.whole == 1


def test_an_unchanged_frame_is_the_last_one_again():
    frame = rgba_frame(picture(random.Random(2), 144, 256))
    frames = convert.Frames("yuv420p")
    first = frames.yuv(frame)
    again = frames.yuv(rgba_frame(convert.rgba_array(frame).copy()))
    assert again is not first and same(again, first, 256)


def test_a_patch_without_the_samples_its_change_reaches_is_caught(monkeypatch):
    monkeypatch.setattr(convert, "REACH", 0)
    assert mismatches()[0] > 0


def test_a_patch_converted_without_its_margin_is_caught(monkeypatch):
    monkeypatch.setattr(convert, "MARGIN", 0)
    assert mismatches()[0] > 0


def both_ways(quality: str, out: str) -> None:
    """Render dropout converted whole, then patched, into out/whole and out/patch; write the
    frames patched to out/patched (run in a fresh process by the test below)."""
    from pathlib import Path
    counted = []
    made = convert.Frames.__init__

    def counting(self, *args):
        made(self, *args)
        counted.append(self)
    convert.Frames.__init__ = counting
    for way in ("whole", "patch"):
        os.environ["CONVERT"] = way
        render_clip("dropout", inputs_for("dropout"), quality, "mp4", Path(out) / way)
    (Path(out) / "patched").write_text(str(sum(f.patched for f in counted)))


def test_a_real_render_is_the_same_bytes_either_way(tmp_path):
    """tiny (256 wide): most frames patched, the mp4 the same bytes. The pair is drawn by one fresh
    process (as test_overlap's: a CI worker's process, after other tests, once drew a render
    differently from the next)."""
    code = f"from test_convert import both_ways; both_ways('tiny', {str(tmp_path)!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                              [str(ROOT / "tests"), str(ROOT / "tests" / "pipeline"), str(ROOT)])))
    assert done.returncode == 0, done.stderr[-2000:]
    videos = {way: (tmp_path / way / "dropout.mp4").read_bytes() for way in ("whole", "patch")}
    assert videos["patch"] == videos["whole"]
    assert int((tmp_path / "patched").read_text()) > 100
    with av.open(str(tmp_path / "patch" / "dropout.mp4")) as video:
        assert video.streams.video[0].frames > 300


def test_a_480p_frame_is_left_to_pyav():
    """854 wide (rows with padding): every frame goes to PyAV's own conversion as it encodes, as
    before. (Not compared as mp4 bytes: at 854 wide x264 reads memory past the frame's rows,
    and the same frames encoded twice in one process may differ in the last macroblock column.)"""
    frames = convert.Frames("yuv420p")
    rng = random.Random(3)
    start = picture(rng, 480, 854)
    for pixels in [start, *edits(rng, start, 3)]:
        frame = rgba_frame(pixels)
        assert frames.yuv(frame) is frame
    assert frames.patched == frames.whole == 0
