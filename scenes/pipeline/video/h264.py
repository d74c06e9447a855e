"""H.264, as much as renumbering a P frame needs (ITU-T H.264 7.3.2.1, 7.3.3): NAL units,
emulation prevention, the sequence parameter set, a slice's frame_num and picture order count,
and the copies of a P frame that holds.py writes for a held frame (checked by decoding them)."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import av
import numpy as np

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
