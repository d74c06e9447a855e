"""Holds that cost one frame.

A hold (a Wait with nothing moving: ClipScene's pause at the end of every step) is already drawn
once by Manim 0.22 (Scene.is_current_animation_frozen_frame: Cairo renders the frame once and
hands it to the encoder with repeat=N), but Manim's VideoSegmentEncoder then converts that RGBA
frame to yuv420p and runs x264 on it N times: at 1080p60 about 13 ms of CPU per held frame, the
better part of a clip's render.

HoldWriter (Manim's file writer; runner.py renders through renderer()) gives every segment a
HoldEncoder. Animation frames (repeat=1) are encoded exactly as Manim does. A held frame
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
import re
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import av
import numpy as np
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene.scene_file_writer import SceneFileWriter
from manim.scene.video_segment_encoder import VideoSegmentEncoder

MODES = ("copy", "repeat", "frames")
MODE = "copy"


def mode() -> str:
    chosen = os.environ.get("HOLDS_MODE", MODE)
    if chosen not in MODES:
        raise ValueError(f"HOLDS_MODE={chosen}: give one of {', '.join(MODES)}")
    return chosen


# -- H.264, as much as renumbering a P frame needs (ITU-T H.264 7.3.2.1, 7.3.3)
START = re.compile(b"\x00\x00\x01")


def nal_units(data: bytes) -> list[bytes]:
    """The NAL units of an Annex B packet (what libx264 returns), start codes removed."""
    starts = [m.end() for m in START.finditer(data)]
    ends = [s - 3 for s in starts[1:]] + [len(data)]
    return [data[s:e].rstrip(b"\x00") for s, e in zip(starts, ends)]   # a unit never ends in 00


def unescape(unit: bytes) -> bytearray:
    """The payload of a NAL unit: emulation prevention bytes (00 00 03) removed."""
    return bytearray(unit.replace(b"\x00\x00\x03", b"\x00\x00"))


def escape(payload: bytes | bytearray) -> bytes:
    """A NAL unit from its payload: 03 after any 00 00 followed by 00-03, or at the end."""
    out, zeros = bytearray(), 0
    for byte in payload:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    if zeros >= 2:
        out.append(3)
    return bytes(out)


class Bits:
    """Reads bits from a payload (u(n) and ue(v) of the standard) and writes fixed-width ones."""

    def __init__(self, data: bytearray, pos: int = 0) -> None:
        self.data, self.pos = data, pos

    def u(self, n: int) -> int:
        value = 0
        for _ in range(n):
            value = value << 1 | self.data[self.pos >> 3] >> (7 - (self.pos & 7)) & 1
            self.pos += 1
        return value

    def ue(self) -> int:
        zeros = 0
        while self.u(1) == 0:
            zeros += 1
        return (1 << zeros) - 1 + self.u(zeros)

    def put(self, pos: int, n: int, value: int) -> None:
        for i in range(n):
            bit, at = value >> (n - 1 - i) & 1, pos + i
            self.data[at >> 3] = self.data[at >> 3] & ~(0x80 >> (at & 7)) | bit << (7 - (at & 7))


@dataclass(frozen=True)
class Sps:
    frame_num_bits: int
    poc_type: int
    poc_bits: int
    colour_plane: bool        # separate_colour_plane_flag: a colour_plane_id in each slice header


HIGH_PROFILES = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135}


def parse_sps(unit: bytes) -> Sps | None:
    """What a slice header's first fields need from the sequence parameter set; None for a
    stream this does not renumber (scaling matrices, fields, picture order count type 1)."""
    r = Bits(unescape(unit), 8)
    profile = r.u(8)
    r.u(16)                                   # constraint flags, level
    r.ue()                                    # seq_parameter_set_id
    colour_plane = False
    if profile in HIGH_PROFILES:
        if r.ue() == 3:                       # chroma_format_idc
            colour_plane = bool(r.u(1))
        r.ue(), r.ue(), r.u(1)                # bit depths, qpprime_y_zero_transform_bypass
        if r.u(1):                            # seq_scaling_matrix_present_flag
            return None
    frame_num_bits = r.ue() + 4
    poc_type = r.ue()
    if poc_type == 1:
        return None
    poc_bits = r.ue() + 4 if poc_type == 0 else 0
    r.ue(), r.u(1), r.ue(), r.ue()            # max_num_ref_frames, gaps, width, height in MBs
    if not r.u(1):                            # frame_mbs_only_flag: fields have other headers
        return None
    return Sps(frame_num_bits, poc_type, poc_bits, colour_plane)


def slice_fields(unit: bytes, sps: Sps) -> tuple[int, int, int, int, int]:
    """(slice_type, frame_num, its bit position, pic_order_cnt_lsb, its bit position) of a
    slice NAL unit's header (the positions in its unescaped payload)."""
    r = Bits(unescape(unit), 8)
    r.ue()                                    # first_mb_in_slice
    slice_type = r.ue() % 5
    r.ue()                                    # pic_parameter_set_id
    if sps.colour_plane:
        r.u(2)
    frame_at = r.pos
    frame_num = r.u(sps.frame_num_bits)
    if unit[0] & 0x1F == 5:
        r.ue()                                # idr_pic_id
    poc_at = r.pos
    poc = r.u(sps.poc_bits)
    return slice_type, frame_num, frame_at, poc, poc_at


def renumbered(unit: bytes, sps: Sps, frames: int, pocs: int) -> bytes:
    """A slice NAL unit whose frame_num is `frames` and picture order count `pocs` on
    (both wrap as the standard says); nothing else changes."""
    _, frame_num, frame_at, poc, poc_at = slice_fields(unit, sps)
    payload = unescape(unit)
    bits = Bits(payload)
    bits.put(frame_at, sps.frame_num_bits, (frame_num + frames) % (1 << sps.frame_num_bits))
    if sps.poc_type == 0:
        bits.put(poc_at, sps.poc_bits, (poc + pocs) % (1 << sps.poc_bits))
    return escape(payload)


def skip_copies(extradata: bytes, previous: bytes, template: bytes) -> Callable[[int], bytes] | None:
    """A function n -> `template` renumbered n frames on (n=0: itself), as a packet's bytes,
    when `template` is a P frame that can be repeated by renumbering (`previous`, the packet
    before it, gives the picture order count's step); else None."""
    sps = next((parse_sps(u) for u in nal_units(extradata) if u and u[0] & 0x1F == 7), None)
    units = nal_units(template)
    if sps is None or not units or any(u[0] & 0x1F != 1 for u in units):
        return None
    fields = [slice_fields(u, sps) for u in units]
    before = [slice_fields(u, sps) for u in nal_units(previous) if u and u[0] & 0x1F in (1, 5)]
    if any(f[0] != 0 for f in fields) or not before:        # every slice a P slice
        return None
    step = (fields[0][3] - before[0][3]) % (1 << sps.poc_bits) if sps.poc_type == 0 else 0
    if sps.poc_type == 0 and step == 0:
        return None
    reference = units[0][0] & 0x60 != 0      # a reference picture: the next one's frame_num is one on

    def copy(n: int) -> bytes:
        return b"".join(b"\x00\x00\x00\x01" + renumbered(u, sps, n if reference else 0, n * step)
                        for u in units)
    return copy


def pictures(extradata: bytes, packets: list[bytes]) -> list[np.ndarray]:
    """The pictures these H.264 packets decode to (from the first, in order)."""
    decoder = av.CodecContext.create("h264", "r")
    decoder.extradata = extradata
    out = []
    for data in packets + [None]:
        out += [f.to_ndarray() for f in decoder.decode(av.Packet(data) if data is not None else None)]
    return out


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


@dataclass
class Work:
    """What one segment cost (tests/test_holds.py counts it)."""
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
        self.work = Work()
        self._flushed = False

    def write_frame(self, pixels: Any, *, repeat: int = 1) -> None:
        if repeat == 1:
            self.work.encoded += 1
            return super().write_frame(pixels, repeat=1)
        self._validate_frame(pixels, repeat)
        self.work.held += repeat
        try:
            frame = av.VideoFrame.from_ndarray(pixels, format="rgba").reformat(format=self.spec.pixel_format)
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


class HoldWriter(SceneFileWriter):
    """Manim's file writer whose segments are encoded by HoldEncoder."""

    work: list[Work] = []      # the last render's segments, in order (not the encoders: each
                               # holds x264's buffers, ~150 MB at 1080p, until it is dropped)

    def _create_segment_encoder(self, target: Path) -> VideoSegmentEncoder:
        chosen = mode()
        if chosen == "frames" or self.video_encoder is None:
            return super()._create_segment_encoder(target)
        encoder = HoldEncoder(target=target, spec=self.video_encoder, hold=chosen)
        HoldWriter.work.append(encoder.work)
        return encoder


def renderer(skip_animations: bool = False) -> CairoRenderer:
    """Manim's Cairo renderer writing through HoldWriter: pass as a scene's renderer=."""
    HoldWriter.work = []
    return CairoRenderer(file_writer_class=HoldWriter, skip_animations=skip_animations)
