"""A drawn frame's conversion to the encoder's YUV, only where it changed.

x264 takes yuv420p; PyAV converts each RGBA frame whole with swscale (2.3-3.6 ms a frame at
1080p: a seventh of a 1080p render's CPU, perf). An animation frame mostly differs from the one
before in a small patch (a number flying: half a percent of the pixels at the median in dropout),
so Frames keeps the last RGBA frame and its YUV, finds the rows and columns that changed, grows
them by REACH (the samples a changed pixel enters), converts that patch with a margin, and writes
the patch without its margin into a copy of the last YUV.

swscale's conversion of a pixel reads only pixels near it (luma: itself; chroma: a few around
it), so a patch converted with MARGIN pixels more on every side, where the frame has them, gives
its inside exactly as the whole frame's conversion does; patches start on even rows and columns,
so that their chroma samples are the frame's. tests/pipeline/test_convert.py holds random patches
on every edge to the whole conversion, and a real render's mp4 to its bytes converted whole. A size
whose rows have padding (480p's 854) is converted as before (`unpadded`). CONVERT=whole in the
environment converts every frame as before (the bench's "before").
"""
from __future__ import annotations

import os
from typing import cast

import av
import numpy as np

REACH = 8        # pixels around a change whose conversion it changes (a chroma sample reads 2-4 rows and columns)
MARGIN = 16      # pixels converted around a patch and not kept (what those read)
ALIGN = 16       # a patch's edges, inside and converted, on multiples of this (even: 4:2:0)
WHOLE = 0.5      # a patch larger than this share of the frame: the frame converted whole


def enabled() -> bool:
    chosen = os.environ.get("CONVERT", "patch")
    if chosen not in ("patch", "whole"):
        raise ValueError(f"CONVERT={chosen}: give patch or whole")
    return chosen == "patch"


def planes(frame: av.VideoFrame) -> list[np.ndarray]:
    """A frame's planes as arrays over its own memory (rows as long as their line size)."""
    return [np.frombuffer(cast(bytes, p), np.uint8).reshape(p.height, p.line_size) for p in frame.planes]


def rgba_array(frame: av.VideoFrame) -> np.ndarray:
    """An RGBA frame's pixels, (height, width, 4), over its own memory (its rows' padding left out)."""
    plane = frame.planes[0]
    rows = np.frombuffer(cast(bytes, plane), np.uint8).reshape(plane.height, plane.line_size)
    return rows[:, :frame.width * 4].reshape(plane.height, frame.width, 4)


def changed(now: np.ndarray, before: np.ndarray) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right), end-exclusive: the rows and columns where two RGBA arrays differ
    (compared two pixels at a time where a row has an even number)."""
    height, width = now.shape[:2]
    pair = width % 2 == 0
    kind = np.uint64 if pair else np.uint32
    a, b = now.reshape(height, width * 4).view(kind), before.reshape(height, width * 4).view(kind)
    differs = a != b
    rows = np.flatnonzero(differs.any(axis=1))
    if not len(rows):
        return None
    top, bottom = int(rows[0]), int(rows[-1]) + 1
    cols = np.flatnonzero(differs[top:bottom].any(axis=0))
    left, right = int(cols[0]), int(cols[-1]) + 1
    return (top, bottom, 2 * left, 2 * right) if pair else (top, bottom, left, right)


def unpadded(width: int, height: int, pixel_format: str) -> bool:
    """Whether a frame of this size has rows with no padding in every plane (1080p, 720p, 144p; not
    480p's 854). At 854 wide x264 reads memory past a frame's rows (its last macroblock column
    is 16 wide): a frame converted here, whole or patched, gave the same pictures in other
    bytes, and even the same frames encoded twice in one process may differ there (a few
    levels, in the last 32 columns); such a size is left to PyAV's own conversion, as before.
    Odd sizes: x264's 4:2:0 has none."""
    if width % 2 or height % 2:
        return False
    return all(p.line_size == p.width for p in av.VideoFrame(width, height, pixel_format).planes)


def _down(v: int) -> int:
    return v - v % ALIGN


def _up(v: int, limit: int) -> int:
    return min(limit, v + (-v) % ALIGN)


class Frames:
    """yuv(frame): the encoder's frame for an RGBA frame; each call's answer is a new frame
    (x264 may still hold the one before). Every frame given must be a new one, never drawn over
    later (HoldWriter makes each one: holds.rgba_frame)."""

    def __init__(self, pixel_format: str) -> None:
        self.pixel_format = pixel_format
        self.on = enabled() and pixel_format == "yuv420p"
        self.last_rgba: av.VideoFrame | None = None        # the frame before (each frame is a new one)
        self.last_yuv: av.VideoFrame | None = None
        self.patched = self.whole = 0           # frames converted each way (tests count them)

    def yuv(self, frame: av.VideoFrame) -> av.VideoFrame:
        if self.last_rgba is None:
            self.on = self.on and unpadded(frame.width, frame.height, self.pixel_format)
        if not self.on:
            return frame                  # converted by PyAV as it encodes it
        now = rgba_array(frame)
        patch = None if self.last_rgba is None else changed(now, rgba_array(self.last_rgba))
        height, width = now.shape[:2]
        if self.last_rgba is None or (patch is not None and
                                      (patch[1] - patch[0]) * (patch[3] - patch[2]) > WHOLE * height * width):
            out = frame.reformat(format=self.pixel_format)
            self.whole += 1
        else:
            out = self._copy_of_last()
            if patch is not None:
                self._convert(now, out, patch)
            self.patched += 1
        self.last_rgba, self.last_yuv = frame, out
        return out

    def _copy_of_last(self) -> av.VideoFrame:
        last = self.last_yuv
        assert last is not None
        out = av.VideoFrame(last.width, last.height, self.pixel_format)
        for mine, theirs in zip(planes(out), planes(last)):
            np.copyto(mine, theirs)
        return out

    def _convert(self, now: np.ndarray, out: av.VideoFrame, patch: tuple[int, int, int, int]) -> None:
        """Convert `patch` (grown to ALIGN, then by MARGIN where the frame goes on) and write its
        inside into `out`."""
        height, width = now.shape[:2]
        top, bottom = _down(max(0, patch[0] - REACH)), _up(patch[1] + REACH, height)
        left, right = _down(max(0, patch[2] - REACH)), _up(patch[3] + REACH, width)
        y0, y1 = _down(max(0, top - MARGIN)), _up(bottom + MARGIN, height)
        x0, x1 = _down(max(0, left - MARGIN)), _up(right + MARGIN, width)
        crop = av.VideoFrame(x1 - x0, y1 - y0, "rgba")
        np.copyto(rgba_array(crop), now[y0:y1, x0:x1])
        converted = crop.reformat(format=self.pixel_format)
        for n, (mine, theirs) in enumerate(zip(planes(out), planes(converted))):
            s = 1 if n == 0 else 2                       # the chroma planes are half in each direction (rounded up)
            mine[top // s:-(-bottom // s), left // s:-(-right // s)] = \
                theirs[(top - y0) // s:-(-(bottom - y0) // s), (left - x0) // s:-(-(right - x0) // s)]
