"""A held frame costs one frame (scenes/pipeline/video/holds.py): during a hold Cairo draws the frame
once, x264 encodes ENCODED frames of it (again every KEYINT frames), and the rest are
renumbered copies of the last P frame. The mp4 stays constant frame rate, every frame of the
hold present and decoding to the held picture. Planted: holds drawn per frame again (a
time-based updater) and holds encoded per frame again (the copy refused) are both caught.
"""
from fractions import Fraction

import av
import numpy as np
import pytest
from manim import Create, Scene, Square, tempconfig
from manim.camera.camera import Camera

from conftest import inputs_for
from scenes.kit.scene.base import ClipScene
from scenes.pipeline.video import h264, holds
from scenes.pipeline.run.runner import ENCODER, render_clip

FPS, SIZE = 60, (256, 144)
CHEAPEST = "weighted-average"


class Drawn:
    """Counts Cairo's drawings of the scene (Camera.capture_mobjects) inside each wait."""

    def __init__(self, monkeypatch, scene_class):
        self.per_wait, self.inside = [], False
        capture, wait = Camera.capture_mobjects, scene_class.wait

        def counted_capture(camera, *args, **kwargs):
            if self.inside:
                self.per_wait[-1] += 1
            return capture(camera, *args, **kwargs)

        def counted_wait(scene, *args, **kwargs):
            if self.inside:                     # a wait inside a wait (ClipScene -> Scene)
                return wait(scene, *args, **kwargs)
            self.inside = True
            self.per_wait.append(0)
            try:
                return wait(scene, *args, **kwargs)
            finally:
                self.inside = False
        monkeypatch.setattr(Camera, "capture_mobjects", counted_capture)
        monkeypatch.setattr(scene_class, "wait", counted_wait)


HOLD = 10          # seconds: 600 frames, past two keyframe intervals


class Held(Scene):
    """A square drawn (0.5 s), then held, the way a step ends."""

    def construct(self):
        self.play(Create(Square()), run_time=0.5)
        self.wait(HOLD)


def blocks(held):
    """Where a hold of `held` frames has its encoded frames (0, KEYINT, ...)."""
    return list(range(0, held - holds.ENCODED + 1, holds.KEYINT))


def render_held(tmp_path, scene_class=Held):
    """scene_class rendered at 256x144, 60 fps, with the project's encoder, through holds."""
    settings = {"media_dir": str(tmp_path), "pixel_width": SIZE[0], "pixel_height": SIZE[1],
                "frame_rate": FPS, "format": "mp4", "output_file": "held", "verbosity": "ERROR",
                "progress_bar": "none", "disable_caching": True, "video_encoder_options": ENCODER}
    with tempconfig(settings):
        scene_class(renderer=holds.renderer()).render()
    return next(p for p in tmp_path.rglob("held.mp4") if "partial" not in str(p))


def hold_problems(work, drawn):
    """What shows a hold costing more than one frame: Cairo drawing it more than once (the
    frozen frame: the still part and the moving part, once each), or x264 encoding more than
    ENCODED frames of it."""
    out = [f"wait {n}: Cairo drew the scene {count} times" for n, count in enumerate(drawn, 1) if count > 2]
    for n, e in enumerate([e for e in work if e.held], 1):
        if e.encoded > min(e.held, holds.ENCODED):             # x264 saw it no more than once
            out.append(f"hold {n}: x264 encoded {e.encoded} of its {e.held} frames")
        if e.held > holds.ENCODED + 1 and e.copied != e.held - holds.ENCODED * len(blocks(e.held)):
            out.append(f"hold {n}: {e.copied} copies for {e.held} frames")
    return out


def frames_of(mp4):
    """(packet times in frames, keyframe times, duration in s, nominal rate, decoded luma planes)."""
    with av.open(str(mp4)) as box:
        stream = box.streams.video[0]
        tick = 1 / (stream.time_base * FPS)
        packets = [p for p in box.demux(stream) if p.pts is not None]
        times = sorted(round(p.pts / tick) for p in packets)
        keys = sorted(round(p.pts / tick) for p in packets if p.is_keyframe)
        duration = float(stream.duration * stream.time_base)
        rate = stream.guessed_rate
    with av.open(str(mp4)) as box:
        pictures = [f.to_ndarray(format="gray") for f in box.decode(video=0)]
    return times, keys, duration, rate, pictures


def test_a_hold_is_drawn_once_and_encoded_twelve_frames_a_keyframe(tmp_path, monkeypatch):
    drawn = Drawn(monkeypatch, Scene)
    mp4 = render_held(tmp_path)
    held = [e for e in holds.HoldWriter.work if e.held]
    n = HOLD * FPS
    assert [(e.held, e.encoded, e.copied) for e in held] == [(n, holds.ENCODED, n - 3 * holds.ENCODED)]
    assert blocks(n) == [0, 250, 500]
    assert hold_problems(holds.HoldWriter.work, drawn.per_wait) == []
    # constant frame rate: every frame of the video is a packet, one frame apart
    times, keys, duration, rate, pictures = frames_of(mp4)
    start = int(0.5 * FPS)
    assert rate == FPS and duration == pytest.approx(0.5 + HOLD)
    assert times == list(range(start + n))
    # a keyframe where the hold starts and at least every KEYINT frames, as x264 puts them
    assert {start + b for b in blocks(n)} <= set(keys)
    assert max(np.diff(keys + [len(times)])) <= holds.KEYINT
    # the hold shows one picture: from each block's last encoded frame on, every frame is the same
    hold = pictures[start:]
    assert len(hold) == n
    last = hold[holds.ENCODED - 1]
    for b, end in zip(blocks(n), blocks(n)[1:] + [n]):
        assert all(np.array_equal(p, last) for p in hold[b + holds.ENCODED - 1:end])
        assert all(np.abs(p.astype(int) - last).mean() < 1 for p in hold[b:end])   # x264's refinement


def test_a_clip_holds_every_step_at_the_cost_of_one_frame(tmp_path, monkeypatch):
    """The cheapest clip at tiny quality (5 fps): every ClipScene hold is one drawing, and
    every hold longer than ENCODED + 1 frames is copies past the ENCODED first."""
    drawn = Drawn(monkeypatch, ClipScene)
    render_clip(CHEAPEST, inputs_for(CHEAPEST), quality="tiny", out=tmp_path)
    problems = hold_problems(holds.HoldWriter.work, drawn.per_wait)
    problems += [f"{e.held} frames not copied: {e.refused}" for e in holds.HoldWriter.work if e.refused]
    assert problems == [], "\n".join(problems)
    assert sum(e.copied for e in holds.HoldWriter.work) > 0


def test_planted_holds_drawn_per_frame_are_caught(tmp_path, monkeypatch):
    """A time-based updater makes Manim draw every frame of a wait (Scene.should_update_mobjects)."""
    class Updating(Held):
        def construct(self):
            self.add_updater(lambda dt: None)
            super().construct()
    drawn = Drawn(monkeypatch, Scene)
    render_held(tmp_path, Updating)
    problems = hold_problems(holds.HoldWriter.work, drawn.per_wait)
    assert any("Cairo drew the scene" in p for p in problems), problems


def test_planted_holds_encoded_per_frame_are_caught(tmp_path, monkeypatch):
    """The copy refused: x264 encodes every frame of the hold again (Manim's way). The video is
    still whole (the fallback), and the check names the hold."""
    monkeypatch.setattr(holds, "skip_copies", lambda *args: None)
    drawn = Drawn(monkeypatch, Scene)
    mp4 = render_held(tmp_path)
    problems = hold_problems(holds.HoldWriter.work, drawn.per_wait)
    n = HOLD * FPS
    assert problems == [f"hold 1: x264 encoded {holds.ENCODED + n} of its {n} frames",
                        f"hold 1: 0 copies for {n} frames"]
    assert [e.refused for e in holds.HoldWriter.work if e.held] == ["not a P frame in display order"]
    times, _, duration, _, _ = frames_of(mp4)
    assert times == list(range(int(0.5 * FPS) + n)) and duration == pytest.approx(0.5 + HOLD)


def test_a_copy_is_the_p_frame_renumbered():
    """The renumbering changes frame_num and the picture order count and nothing else; a copy
    of a payload escapes back to the same bytes."""
    ctx = av.CodecContext.create("libx264", "w")
    ctx.width, ctx.height, ctx.pix_fmt = SIZE[0], SIZE[1], "yuv420p"
    ctx.framerate, ctx.time_base = FPS, Fraction(1, FPS)
    ctx.options = dict(ENCODER)
    ctx.flags |= av.codec.context.Flags.global_header
    image = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    image[40:100, 60:200] = (230, 200, 90)
    frame = av.VideoFrame.from_ndarray(image, format="rgb24").reformat(format="yuv420p")
    packets = []
    for n in range(holds.ENCODED):
        frame.pts = n
        frame.pict_type = av.video.frame.PictureType.P if n else av.video.frame.PictureType.NONE
        packets += ctx.encode(frame)
    packets += ctx.encode(None)
    data = [bytes(p) for p in packets]
    extradata = bytes(ctx.extradata)
    sps = next(h264.parse_sps(u) for u in h264.nal_units(extradata) if u[0] & 0x1F == 7)
    for unit in h264.nal_units(data[-1]):
        assert h264.escape(h264.unescape(unit)) == unit
        assert h264.renumbered(unit, sps, 0, 0) == unit
        kind, frame_num, _, poc, _ = h264.slice_fields(unit, sps)
        again = h264.slice_fields(h264.renumbered(unit, sps, 3, 6), sps)
        assert (kind, again[1], again[3]) == (0, (frame_num + 3) % (1 << sps.frame_num_bits),
                                              (poc + 6) % (1 << sps.poc_bits))
    copies = h264.skip_copies(extradata, data[-2], data[-1])
    pictures = h264.pictures(extradata, data + [copies(n) for n in range(1, 40)])   # frame_num wraps at 16
    assert len(pictures) == holds.ENCODED + 39
    assert all(np.array_equal(p, pictures[holds.ENCODED - 1]) for p in pictures[holds.ENCODED - 1:])
