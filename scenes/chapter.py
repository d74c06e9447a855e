"""The chapter video: every clip with the book's inputs, two renders at a time,
then the clips joined in book order behind a title card each, with one .srt and
the section list as mp4 chapters (and chapter04.chapters.json).

A clip whose inputs, quality and code are unchanged since its last render is
reused (a stamp per clip in OUT/.stamps), so a re-run only redoes what changed.
"""
import hashlib
import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import av

from scenes.clip_inputs import check, manifest_inputs
from scenes.inputs import raw_inputs
from scenes.runner import available, srt_text, write_atomic

ROOT = Path(__file__).resolve().parent.parent
NAME = "chapter04"


def code_hash():
    """Everything that shapes a frame: the scene code and the pinned packages."""
    h = hashlib.sha256()
    for path in sorted(p for p in (ROOT / "scenes").glob("*.py") if p.name != "chapter.py") + [ROOT / "requirements.txt"]:
        h.update(path.read_bytes())
    return h.hexdigest()


def stamp_of(clip, quality, sections):
    inputs = manifest_inputs(check(clip, raw_inputs(clip)))
    text = json.dumps([clip, quality, sections, inputs, code_hash()], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def fresh(out, clip, stamp, files):
    path = out / ".stamps" / f"{clip}.txt"
    return path.exists() and path.read_text() == stamp and all((out / f).exists() for f in files)


def tasks_for(out, quality, sections):
    """(label, command, stamp file, stamp) for each render that is out of date."""
    tasks, py = [], [sys.executable, str(ROOT / "render.py")]
    common = ["--quality", quality, "--out", str(out)]
    for clip in available():
        stamp = stamp_of(clip, quality, sections)
        if not fresh(out, clip, stamp, [f"{clip}.mp4", f"{clip}.srt", f"{clip}.numbers.json"]):
            tasks.append((clip, py + [clip] + common + (["--sections"] if sections else []), clip, stamp))
        if not fresh(out, f"title-{clip}", stamp, [f".titles/{clip}.mp4"]):
            tasks.append((f"title {clip}", py + ["title-card", clip] + common, f"title-{clip}", stamp))
    return tasks


def run_all(tasks, out, jobs=2):
    """Run the renders `jobs` at a time with one progress line for the whole chapter."""
    start, running, done, pending, shown = time.monotonic(), [], 0, list(tasks), ""
    (out / ".stamps").mkdir(parents=True, exist_ok=True)
    while pending or running:
        while pending and len(running) < jobs:
            label, cmd, key, stamp = pending.pop(0)
            running.append((label, key, stamp, subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                                                stderr=subprocess.PIPE, text=True)))
        time.sleep(0.2)
        for item in [r for r in running if r[3].poll() is not None]:
            running.remove(item)
            label, key, stamp, proc = item
            if proc.returncode:
                for _, _, _, other in running:
                    other.terminate()
                err = (proc.stderr.read().strip().splitlines() or ["no message"])[-1]
                raise RuntimeError(f"{label}: {err}")
            (out / ".stamps" / f"{key}.txt").write_text(stamp)
            done += 1
        shown = progress(start, done, len(tasks), shown)
    if tasks:
        print(file=sys.stderr)


def progress(start, done, total, shown):
    """One line for the whole chapter: renders done, elapsed, estimate (redrawn each second)."""
    elapsed = time.monotonic() - start
    left = f"~{elapsed / done * (total - done):.0f} s left" if done else "estimating"
    line = f"[chapter] {done}/{total} renders · {elapsed:.0f} s elapsed · {left}"
    tty = sys.stderr.isatty()
    if line != shown and (tty or line.split(" · ")[0] != shown.split(" · ")[0]):
        print(("\r" + line + "   ") if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
        return line
    return shown


def duration(path):
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        return float(stream.duration * stream.time_base)


def join(out, clips):
    """chapter04.mp4 (remuxed, not re-encoded), chapter04.srt and the section list."""
    parts, sections, captions, clock = [], [], [], 0.0
    for clip, cls in clips.items():
        title, video = out / ".titles" / f"{clip}.mp4", out / f"{clip}.mp4"
        start = clock
        clock += duration(title)
        steps = json.loads((out / f"{clip}.numbers.json").read_text("utf-8"))["steps"]
        captions += [(clock + s["start"], clock + s["end"], s["caption"]) for s in steps]
        clock += duration(video)
        parts += [title, video]
        sections.append({"clip": clip, "section": cls.section, "title": cls.title,
                         "start": round(start, 3), "end": round(clock, 3)})
    tmp = out / f".{NAME}.part.mp4"
    remux(parts, tmp, sections)
    os.replace(tmp, out / f"{NAME}.mp4")
    write_atomic(out / f"{NAME}.srt", srt_text(captions))
    write_atomic(out / f"{NAME}.chapters.json", json.dumps(sections, ensure_ascii=False, indent=1) + "\n")
    return [out / f"{NAME}.mp4", out / f"{NAME}.srt", out / f"{NAME}.chapters.json"]


def remux(parts, target, sections):
    listing = "".join(f"file 'file:{p.resolve().as_posix()}'\n" for p in parts).encode()
    with av.open(__import__("io").BytesIO(listing), format="concat", options={"safe": "0"}) as src, \
            av.open(str(target), "w", format="mp4") as dst:
        stream = src.streams.video[0]
        copy = dst.add_stream_from_template(template=stream)
        ms = Fraction(1, 1000)
        dst.set_chapters([{"id": n, "start": int(s["start"] * 1000), "end": int(s["end"] * 1000),
                           "time_base": ms, "metadata": {"title": f"{s['section']} {s['title']}"}}
                          for n, s in enumerate(sections)])
        for packet in src.demux(stream):
            if packet.dts is None:
                continue
            packet.dts = None
            packet.stream = copy
            dst.mux(packet)


def render_chapter(quality="high", out="media", sections=False, jobs=2):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    clips = available()
    run_all(tasks_for(out, quality, sections), out, jobs)
    return join(out, clips)
