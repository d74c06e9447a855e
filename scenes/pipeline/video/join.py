"""Joining the chapter: the clips and their title cards in book order into chapter04.mp4
(video remuxed, not re-encoded; the voice, where there is one, mixed into one AAC track at
each part's start), chapter04.srt, chapter04.chapters.json and chapter04.script.md."""
from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path
from typing import cast

import av
import numpy as np
from av.container import InputContainer, OutputContainer

from scenes.kit.text import lang as language
from scenes.pipeline.jobs.registry import Clip
from scenes.pipeline.jobs.files import own_part, srt_text, stem, write_atomic

NAME = "chapter04"
RATE = 48000            # the chapter's audio: 48 kHz mono AAC


def duration(path: Path) -> float:
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        if stream.duration is None or stream.time_base is None:
            raise RuntimeError(f"{path} has no duration")
        return float(stream.duration * stream.time_base)


def join(out: Path, clips: dict[str, Clip], lang: str = language.SOURCE) -> list[Path]:
    """chapter04.mp4 (remuxed, not re-encoded), chapter04.srt and the section list
    (chapter04.en.mp4 ... in English)."""
    parts, sections, captions, clock = [], [], [], 0.0
    book = stem(NAME, lang)
    for clip, spec in clips.items():
        name = stem(clip, lang)
        title, video = out / ".titles" / f"{name}.mp4", out / f"{name}.mp4"
        start = clock
        clock += duration(title)
        steps = json.loads((out / f"{name}.numbers.json").read_text("utf-8"))["steps"]
        captions += [(clock + s["start"], clock + s["end"], s["caption"]) for s in steps]
        clock += duration(video)
        parts += [title, video]
        sections.append({"clip": clip, "section": spec.section, "title": spec.heading(lang),
                         "start": round(start, 3), "end": round(clock, 3)})
    tmp = own_part(out / f"{book}.mp4", ".mp4")     # this process's own (see files.write_atomic)
    starts = np.cumsum([0.0] + [duration(p) for p in parts[:-1]])
    remux(parts, tmp, sections, mixed_audio(parts, starts))
    os.replace(tmp, out / f"{book}.mp4")
    write_atomic(out / f"{book}.srt", srt_text(captions))
    write_atomic(out / f"{book}.chapters.json", json.dumps(sections, ensure_ascii=False, indent=1) + "\n")
    scripts = [out / f"{stem(clip, lang)}.script.md" for clip in clips]
    write_atomic(out / f"{book}.script.md", "\n".join(p.read_text("utf-8") for p in scripts if p.exists()))
    return [out / f"{book}.{ext}" for ext in ("mp4", "srt", "chapters.json", "script.md")]


def mixed_audio(parts: list[Path], starts: np.ndarray) -> np.ndarray | None:
    """Every part's sound placed at the part's start (silence elsewhere); None when all are silent."""
    pieces = []
    for path, start in zip(parts, starts):
        with av.open(str(path)) as box:
            if not box.streams.audio:
                continue
            resampler = av.AudioResampler(format="flt", layout="mono", rate=RATE)
            chunks = [f.to_ndarray().reshape(-1) for frame in box.decode(audio=0) for f in resampler.resample(frame)]
            chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
            pieces.append((int(round(start * RATE)), np.concatenate(chunks) if chunks else np.zeros(0, np.float32)))
    if not pieces:
        return None
    total = int(round((starts[-1] + duration(parts[-1])) * RATE))
    track = np.zeros(total, np.float32)
    for offset, samples in pieces:
        end = min(total, offset + len(samples))
        track[offset:end] += np.asarray(samples[:end - offset], np.float32)
    return np.clip(track, -1, 1)


def remux(parts: list[Path], target: Path, sections: list[dict], audio: np.ndarray | None = None) -> None:
    """Copy each part's video packets, shifted to the part's start, into one mp4 with chapter
    marks; add the mixed audio (if any) as one AAC track."""
    with cast(OutputContainer, av.open(str(target), "w", format="mp4")) as dst:
        copy = None
        ms = Fraction(1, 1000)
        dst.set_chapters([{"id": n, "start": int(s["start"] * 1000), "end": int(s["end"] * 1000),
                           "time_base": ms, "metadata": {"title": f"{s['section']} {s['title']}"}}
                          for n, s in enumerate(sections)])
        sound = dst.add_stream("aac", rate=RATE, layout="mono") if audio is not None else None
        offset = Fraction(0)
        for part in parts:
            with cast(InputContainer, av.open(str(part))) as src:
                stream = src.streams.video[0]
                if copy is None:
                    copy = dst.add_stream_from_template(template=stream)
                base = stream.time_base or Fraction(1, 1000)
                shift = int(round(offset / base))
                for packet in src.demux(stream):
                    if packet.dts is None:
                        continue
                    packet.pts = (packet.pts or 0) + shift
                    packet.dts += shift
                    packet.stream = copy
                    dst.mux(packet)
                offset += Fraction(duration(part)).limit_denominator(10**6)
        if sound is not None and audio is not None:
            for n in range(0, len(audio), 1024):
                frame = av.AudioFrame.from_ndarray(audio[None, n:n + 1024], format="flt", layout="mono")
                frame.sample_rate, frame.pts = RATE, n
                dst.mux(sound.encode(frame))
            dst.mux(sound.encode(None))
