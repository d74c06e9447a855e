"""Drawing beside encoding (scenes/pipeline/video/overlap.py): a clip's segments encoded while
the next plays are drawn give the step videos, clip and manifest of Manim's way (each play
joined at its end) byte for byte; the drawing does go on past a play's end."""
import os
import subprocess
import sys
from pathlib import Path

import av
import numpy as np

from conftest import ROOT, inputs_for
from scenes.pipeline.run import runner
from scenes.pipeline.video import holds, overlap
from test_steps import differences


def render(out: Path) -> Path:
    runner.render_clip("dropout", inputs_for("dropout"), "tiny", "mp4", out, sections=True)
    return out


def in_flight(monkeypatch) -> list[int]:
    """The segments in flight each time a play's segment is sealed (the drawing goes on)."""
    from manim.scene.scene_file_writer import SceneFileWriter
    seen: list[int] = []
    close = SceneFileWriter.close_partial_movie_stream

    def sealed(self):
        close(self)
        seen.append(len(self._inflight_encode_jobs))
    monkeypatch.setattr(SceneFileWriter, "close_partial_movie_stream", sealed)
    return seen


def test_the_overlapped_encoder_gives_manims_files(tmp_path, monkeypatch, tiny_chapter):
    """tiny_chapter's dropout (render.py, overlapped) against Manim's way in a fresh process, byte
    for byte; here, Manim's way joins every play (one segment in flight at most), ours lets them
    run on, and the two give the same files (this process's state the same for both)."""
    monkeypatch.setenv("OVERLAP", "off")
    manims = in_flight(monkeypatch)
    render(tmp_path / "off-here")
    assert max(manims) == 0
    monkeypatch.setenv("OVERLAP", "on")
    ours = in_flight(monkeypatch)
    render(tmp_path / "on-here")
    assert 1 <= max(ours) < overlap.LANE
    assert differences(tmp_path / "on-here", tmp_path / "off-here", "dropout") == []
    fresh = f"from conftest import ROOT, inputs_for; from test_overlap import render; from pathlib import Path; " \
            f"render(Path({str(tmp_path / 'off')!r}))"
    done = subprocess.run([sys.executable, "-c", fresh], env=dict(os.environ, OVERLAP="off", PYTHONPATH=os.pathsep.join(
        [str(ROOT / "tests"), str(ROOT / "tests" / "pipeline"), str(ROOT)])), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert differences(tiny_chapter, tmp_path / "off", "dropout") == []


def test_planted_a_frame_changed_on_the_way_is_caught(tmp_path, monkeypatch, tiny_chapter):
    """Planted: the overlapped job writes one frame of one segment with a pixel changed."""
    put = overlap.ChainedJob.put
    count = [0]

    def changed(self, repeat, frame):
        count[0] += 1
        if count[0] == 40:                    # the writer made it PyAV's frame (holds.HoldWriter)
            pixels = np.array(frame.to_ndarray() if isinstance(frame, av.VideoFrame) else frame)
            pixels[0, 0] = 255 - pixels[0, 0]
            frame = holds.rgba_frame(pixels)
        put(self, repeat, frame)
    monkeypatch.setattr(overlap.ChainedJob, "put", changed)
    found = differences(render(tmp_path / "on"), tiny_chapter, "dropout")
    assert any(f.startswith("dropout.sections/") for f in found), found


def encoded(frames, make) -> list[bytes]:
    """x264's packets (the project's settings) for RGBA arrays made into frames by `make`."""
    from scenes.pipeline.run.runner import ENCODER
    context = av.CodecContext.create("libx264", "w")
    context.width, context.height, context.pix_fmt = frames[0].shape[1], frames[0].shape[0], "yuv420p"
    context.time_base, context.options = __import__("fractions").Fraction(1, 5), dict(ENCODER)
    out = []
    for n, pixels in enumerate(frames):
        frame = make(pixels)
        frame.pts = n
        out += [bytes(p) for p in context.encode(frame)]
    return out + [bytes(p) for p in context.encode(None)]


def frame_problems(make) -> list[str]:
    rng = np.random.default_rng(7)
    frames = [rng.integers(0, 256, (144, 256, 4), dtype=np.uint8) for _ in range(6)]
    found = [f"frame {n}: other pixels or format" for n, p in enumerate(frames)
             if make(p).format.name != "rgba" or not np.array_equal(make(p).to_ndarray(), p)]
    manims = encoded(frames, lambda p: av.VideoFrame.from_ndarray(p, format="rgba"))
    return found + ([] if encoded(frames, make) == manims else ["x264's packets differ from from_ndarray's"])


def test_a_drawn_frame_is_made_as_from_ndarray_makes_it():
    """holds.rgba_frame (one copy into PyAV's plane) encodes to from_ndarray's packets, byte for byte;
    planted: the rows made bottom up."""
    assert frame_problems(holds.rgba_frame) == []
    assert frame_problems(lambda p: holds.rgba_frame(p[::-1].copy())) != []
