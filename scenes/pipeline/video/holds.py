"""Holds that cost one frame.

A hold (a Wait with nothing moving: ClipScene's pause at the end of every step) is already drawn
once by Manim 0.22 (Scene.is_current_animation_frozen_frame: Cairo renders the frame once and
hands it to the encoder with repeat=N), but Manim's VideoSegmentEncoder then converts that RGBA
frame to yuv420p and runs x264 on it N times: at 1080p60 about 13 ms of CPU per held frame, the
better part of a clip's render.

HoldWriter (Manim's file writer; runner.py renders through renderer()) gives every segment a
HoldEncoder. Animation frames (repeat=1) are encoded as Manim does, each made into PyAV's frame
by one copy (rgba_frame: from_ndarray's frame, at an eighth of its cost). A held frame
(repeat=N; a Wait is a segment of its own) is converted once and, by MODE:

  "copy"    x264 encodes the hold's first ENCODED frames (an IDR, then P frames: its
            look-ahead gives the first frame the quality of a long-shown frame, and the first
            P frames refine it, as in Manim's holds); the other frames are copies of the last
            P frame with only its frame_num and picture order count renumbered (~90 bytes
            each at 1080p), and every KEYINT frames the encoded ones again (a keyframe as
            often as x264 puts one). The mp4 stays constant frame rate: every frame of the
            hold is a real frame. The copies are checked before they are written: three of
            them must decode to the last encoded picture, bit for bit (the same slices on the
            same picture, so every later copy does too). Where they do not, for a codec other
            than H.264, or for a hold of ENCODED + 1 frames or fewer, the hold is encoded as
            "repeat".
  "repeat"  x264 encodes the converted frame N times.
  "frames"  Manim's own encoder, unchanged (the benchmark's "before").

HOLDS_MODE in the environment overrides MODE (bench/run.py renders "frames" side by side).
"""
from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, cast

import av
import numpy as np
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene.scene_file_writer import SceneFileWriter
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from scenes.pipeline.video.convert import Frames
from scenes.pipeline.video.h264 import pictures, skip_copies
from scenes.pipeline.video.overlap import Overlapped

MODES = ("copy", "repeat", "frames")
MODE = "copy"


def mode() -> str:
    chosen = os.environ.get("HOLDS_MODE", MODE)
    if chosen not in MODES:
        raise ValueError(f"HOLDS_MODE={chosen}: give one of {', '.join(MODES)}")
    return chosen


# Frames of a hold that x264 encodes in "copy": its first (an IDR, as every segment's), then
# P frames. x264 looks 10 frames ahead at veryfast (rc-lookahead) and gives the first frame the
# quality a frame shown that long earns (fed 2 frames, weighted-average's last step at 1080p
# reads 42.8 dB; 12: 46.6 dB, as Manim's own holds); the first P frames refine it (940 and 217
# bytes, to 47.05 dB, Manim's 47.1); from the third on, a P frame mostly says "as before"
# (88 bytes) and decodes, applied to its own picture, to that picture.
ENCODED = 12
# A keyframe at least every KEYINT frames, as x264 puts one (its keyint, 250: 4.2 s at 60 fps)
# in Manim's holds, so that a seek decodes no more: the encoded frames are repeated from there,
# bytes unchanged (an IDR may repeat its idr_pic_id when it does not follow another IDR).
KEYINT = 250
PNG_LEVEL = 1          # a still's zlib level (HoldWriter.save_image)


def rgba_frame(pixels: np.ndarray) -> av.VideoFrame:
    """PyAV's frame of an RGBA array, as VideoFrame.from_ndarray makes it (the same picture, format
    and properties), by one copy into its plane: from_ndarray took ~8x as long at 1080p (30 ms
    against 3.8 ms a frame under load), once for every drawn frame. A plane whose rows are padded
    takes from_ndarray's way."""
    height, width = pixels.shape[:2]
    frame = av.VideoFrame(width, height, "rgba")
    if frame.planes[0].line_size != width * 4:
        return av.VideoFrame.from_ndarray(pixels, format="rgba")
    frame.planes[0].update(cast(bytes, pixels))          # any buffer: the array, not a bytes copy
    return frame


def as_frame(pixels: Any) -> av.VideoFrame:
    return pixels if isinstance(pixels, av.VideoFrame) else rgba_frame(pixels)


class FramePool:
    """PyAV frames for the drawn frames, used again once nothing else holds them.

    A new 8 MB frame a drawn frame at 1080p, made in the drawing thread and freed in an
    encoder's, grew a render by GBs in glibc's arenas (dropout at 1080p60 peaked at 4.3 GB,
    0.68 GB before the frames were made there). A frame is free again when only the pool holds
    it: the encoder's queue, Frames' frame before and the frame being encoded each hold theirs
    (x264 copies a frame as it is encoded). Frames whose rows have padding (480p) are made new."""

    FREE = 3           # references to a free frame as it is looked at: the pool's, the loop's, getrefcount's
    MOST = 64          # frames kept at most (in flight at once: LANE queues of 8, each encoder's last, one being made)

    def __init__(self) -> None:
        self.kept: list[av.VideoFrame] = []
        self.made = 0                     # new frames (tests count them)

    def frame(self, pixels: np.ndarray) -> av.VideoFrame:
        height, width = pixels.shape[:2]
        for kept in self.kept:
            if sys.getrefcount(kept) == self.FREE and (kept.width, kept.height) == (width, height):
                kept.planes[0].update(cast(bytes, pixels))
                return kept
        made = rgba_frame(pixels)
        self.made += 1
        if len(self.kept) < self.MOST and made.planes[0].line_size == width * 4:
            self.kept.append(made)
        return made


@dataclass
class Work:
    """What one segment cost (tests/pipeline/test_holds.py counts it)."""
    held: int = 0             # frames of a held frame written
    encoded: int = 0          # frames handed to x264
    copied: int = 0           # frames written as renumbered copies
    refused: str = ""         # why a hold was not copied


class HoldEncoder(VideoSegmentEncoder):
    """Manim's segment encoder, with a held frame (repeat > 1) converted once and encoded as
    MODE says."""

    def __init__(self, *, target: Path, spec: Any, hold: str) -> None:
        super().__init__(target=target, spec=spec)
        self.hold = hold
        self.frames = Frames(spec.pixel_format)     # an animation frame converted where it changed
        self.work = Work()
        self._flushed = False

    def _validate_frame(self, pixels: Any, repeat: int) -> None:
        if not isinstance(pixels, av.VideoFrame):
            return super()._validate_frame(pixels, repeat)
        if (pixels.width, pixels.height, pixels.format.name) != (self.spec.width, self.spec.height, "rgba"):
            raise ValueError(f"Video segment frames must be {self.spec.width}x{self.spec.height} rgba; got "
                             f"{pixels.width}x{pixels.height} {pixels.format.name}.")
        super()._validate_frame(np.empty((self.spec.height, self.spec.width, 4), np.uint8), repeat)

    def write_frame(self, pixels: Any, *, repeat: int = 1) -> None:
        """An RGBA array, or PyAV's frame of one (HoldWriter.write_frame made it)."""
        if repeat == 1:
            self._validate_frame(pixels, repeat)
            try:
                for packet in self._encode(self.frames.yuv(as_frame(pixels)), self._next_pts):
                    self._container.mux(packet)
                self._next_pts += 1
            except BaseException as error:
                raise self._operation_error("encode", error) from error
            return
        self._validate_frame(pixels, repeat)
        self.work.held += repeat
        try:
            frame = as_frame(pixels).reformat(format=self.spec.pixel_format)
            if (self.hold == "copy" and repeat > ENCODED + 1 and self._next_pts == 0
                    and self.spec.codec == "libx264" and self._copy(frame, repeat)):
                return
            frame.pict_type = av.video.frame.PictureType.NONE
            for slot in range(repeat):
                for packet in self._encode(frame, self._next_pts + slot):
                    self._container.mux(packet)
            self._next_pts += repeat
        except BaseException as error:
            raise self._operation_error("encode", error) from error

    def _encode(self, frame: av.VideoFrame | None, pts: int = 0) -> list[av.Packet]:
        """x264's packets for `frame` at `pts` (None: the ones it still holds)."""
        stream = cast(av.video.stream.VideoStream, self._stream)
        if frame is None:
            return list(stream.encode(None))
        frame.pts = pts
        frame.time_base = Fraction(self.spec.frame_rate.denominator, self.spec.frame_rate.numerator)
        self.work.encoded += 1
        return list(stream.encode(frame))

    def _copy(self, frame: av.VideoFrame, repeat: int) -> bool:
        """The hold as ENCODED frames from x264 (the first as x264 chooses, then P frames) and
        repeat - ENCODED renumbered copies of the last; False, with nothing written and the
        segment started again, where the copies would not be exact."""
        packets = []
        for slot in range(ENCODED):
            frame.pict_type = av.video.frame.PictureType.P if slot else av.video.frame.PictureType.NONE
            packets += self._encode(frame, slot)
        packets += self._encode(None)
        extradata = bytes(self._stream.codec_context.extradata or b"")
        data = [bytes(p) for p in packets]
        in_order = [p.pts for p in packets] == list(range(ENCODED))
        copies = skip_copies(extradata, data[-2], data[-1]) if in_order else None
        # the last encoded picture and three copies: once a copy decodes to its reference, so
        # does the next (the same slices on the same picture); three cover x264's references
        tail = pictures(extradata, data + [copies(n) for n in (1, 2, 3)])[-4:] if copies else []
        if copies is None or len(tail) < 4 or not all(np.array_equal(t, tail[0]) for t in tail):
            self.work.refused = ("not a P frame in display order" if copies is None else
                                 "copies decode to other pictures: " + " ".join(
                                     str(int((t != tail[0]).sum())) for t in tail[1:]) + " samples differ")
            with suppress(Exception):
                self._container.close()
            super().__init__(target=self.target, spec=self.spec)    # the segment from the start
            return False
        time_base = packets[0].time_base
        starts = range(0, repeat - ENCODED + 1, KEYINT)    # the encoded frames again every KEYINT
        for slot in range(repeat):
            at = slot - max(s for s in starts if s <= slot)
            packet = av.Packet(data[at] if at < ENCODED else copies(at - ENCODED + 1))
            packet.is_keyframe = packets[at].is_keyframe if at < ENCODED else False
            packet.pts = packet.dts = slot
            packet.time_base = time_base
            packet.stream = self._stream
            self._container.mux(packet)
        self.work.copied += repeat - ENCODED * len(starts)
        self._next_pts = repeat
        self._flushed = True
        return True

    def finish(self) -> None:
        if not self._flushed:
            return super().finish()
        self._closed = True
        try:
            self._container.close()
        except Exception as error:
            raise self._operation_error("finish", error) from error


class HoldWriter(Overlapped, SceneFileWriter):
    """Manim's file writer whose segments are encoded by HoldEncoder, drawn beside their
    encoding (scenes/pipeline/video/overlap.py)."""

    work: list[Work] = []      # the last render's segments, in order (not the encoders: each
                               # holds x264's buffers, ~150 MB at 1080p, until it is dropped)

    def __init__(self, settings: Any) -> None:
        super().__init__(self.overlap_settings(settings))
        self.frames = FramePool()

    def takes_live(self) -> bool:
        """Whether write_frame makes its frame there and then (the renderer may hand the camera's own array)."""
        job = self._current_encode_job
        return (self.output_spec.is_video and not self.output_spec.is_image_sequence and job is not None
                and isinstance(job.encoder, HoldEncoder))

    def write_frame(self, pixels: Any, *, repeat: int = 1) -> None:
        """Manim's, with a frame for a HoldEncoder made into PyAV's frame here, in the drawing
        thread (one copy: the camera's array may be drawn over once this returns)."""
        if self.takes_live() and isinstance(pixels, np.ndarray):
            pixels = self.frames.frame(pixels)
        super().write_frame(pixels, repeat=repeat)

    def save_image(self, pixels: Any) -> None:
        """Manim's still, written at zlib level 1 (PNG's default is 6): the same pixels, ~3% larger,
        in 10 ms instead of 16 at 480p (a lab still costs 0.1-0.3 s in all)."""
        if not self.output_spec.enabled:
            return
        from PIL import Image
        self.image_file_path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(pixels).save(self.image_file_path, compress_level=PNG_LEVEL)
        self.print_file_ready_message(self.image_file_path)

    def _create_segment_encoder(self, target: Path) -> VideoSegmentEncoder:
        chosen = mode()
        if chosen == "frames" or self.video_encoder is None:
            return super()._create_segment_encoder(target)
        encoder = HoldEncoder(target=target, spec=self.video_encoder, hold=chosen)
        HoldWriter.work.append(encoder.work)
        return encoder


ENCODER_THREAD = "partial-movie-encoder-"      # Manim's name for a segment's encoder thread


@contextmanager
def encoders_released() -> Iterator[None]:
    """A render that stops on an exception (a Ctrl-C above all) tells every Manim encoder thread
    still waiting for frames that its segment is aborted. Manim aborts the segment it knows of, but
    a Ctrl-C between an encoder thread's start and the writer taking note of it (the segment's
    __init__) left one waiting on its queue, and the process hung at exit, joining it."""
    try:
        yield
    except BaseException:
        release_encoders()
        raise


def release_encoders() -> None:
    for thread in threading.enumerate():
        job: Any = getattr(getattr(thread, "_target", None), "__self__", None)
        if thread.name.startswith(ENCODER_THREAD) and job is not None and hasattr(job, "abort"):
            with suppress(Exception):
                job.abort()
                thread.join(timeout=10)


class HoldRenderer(CairoRenderer):
    """Manim's Cairo renderer that hands HoldWriter the camera's own array for a frame it writes
    (HoldWriter makes its frame before the next is drawn), not a copy of it: one 8 MB copy a
    drawn frame fewer at 1080p. The static image a play draws over stays Manim's copy."""

    def live_frame(self) -> Any:
        writer = self.file_writer
        return self.camera.pixel_array if isinstance(writer, HoldWriter) and writer.takes_live() else self.get_frame()

    def render(self, scene: Any, time: float, moving_mobjects: Any = None) -> None:
        self.update_frame(scene, moving_mobjects)
        self.add_frame(self.live_frame())

    def freeze_current_frame(self, duration: float) -> None:
        self.add_frame(self.live_frame(), num_frames=int(duration / (1 / self.camera.frame_rate)))


def renderer(skip_animations: bool = False) -> CairoRenderer:
    """Manim's Cairo renderer writing through HoldWriter: pass as a scene's renderer=."""
    HoldWriter.work = []
    return HoldRenderer(file_writer_class=HoldWriter, skip_animations=skip_animations)
