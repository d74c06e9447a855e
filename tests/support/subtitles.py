"""Subtitles and script are the steps: a clip's NAME.srt and NAME.script.md, and the chapter's, read
back against the manifest's captions and the steps' times decoded from the real videos.

    decoded_steps(sections_folder) -> (fps, [(start, end)] in seconds)
        Each step's start and end in the clip's mp4, from its step videos (NAME.sections/, one mp4 per
        step, which tile the mp4: tests/support/video.py section_problems), decoded frame by frame.
    srt_problems(srt_text, captions, times, fps, where) -> list[str]
        captions: the steps' captions (the manifest's), times: their decoded (start, end). One line per
        cue whose text is not its step's caption, or whose start or end is more than a frame off.
    script_problems(script_text, captions, times, fps, where) -> list[str]
        The script's steps (## NN · L s, then **字幕**/**Caption** and the caption, its paragraph to
        the blank line) against the same.
    chapter_times(folder, clips) -> (fps, {clip: offset}): each clip's start in chapter04.mp4 after its
        title card, from the decoded title cards and clips.
"""
import json
import re
from pathlib import Path

import av

from conftest import parse_srt

HEADING = re.compile(r"^## (\d+) · ([\d.]+) s$")
CAPTION = re.compile(r"^\*\*[^*]+\*\* (.*)$")


def frames(path):
    """(frame count, nominal fps) of a video, decoded."""
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        return sum(1 for _ in box.decode(stream)), float(stream.guessed_rate)


def decoded_steps(folder):
    folder = Path(folder)
    index = json.loads(next(folder.glob("*.json")).read_text("utf-8"))
    times, clock, fps = [], 0.0, None
    for section in (s for s in index if s["name"].startswith("step-")):
        count, fps = frames(folder / section["video"])
        times.append((clock, clock + count / fps))
        clock += count / fps
    return fps, times


def _one_line(text):
    return " ".join(str(text).split())


def srt_problems(srt_text, captions, times, fps, where=""):
    cues = parse_srt(srt_text)
    out = []
    if len(cues) != len(captions):
        out.append(f"{where}: {len(cues)} cues for {len(captions)} steps")
    for n, ((a, b, text), caption, (start, end)) in enumerate(zip(cues, captions, times), 1):
        if _one_line(text) != _one_line(caption):
            out.append(f"{where} cue {n}: says {text!r}, step {n}'s caption is {caption!r}")
        if abs(a - start) > 1 / fps + 1e-3 or abs(b - end) > 1 / fps + 1e-3:
            out.append(f"{where} cue {n}: {a:.3f}-{b:.3f} s, step {n} runs {start:.3f}-{end:.3f} s in the video")
    return out


def script_steps(text):
    """[(number, length, caption)] of a script (or of the chapter's, the clips' scripts joined)."""
    out, lines = [], text.splitlines()
    for k, line in enumerate(lines):
        head = HEADING.match(line)
        if head:
            at = next((j for j in range(k + 1, min(k + 4, len(lines))) if CAPTION.match(lines[j])), None)
            caption = None
            if at is not None:              # a two-line caption: the paragraph goes on to the blank line
                para = [CAPTION.match(lines[at]).group(1)]
                for x in lines[at + 1:]:
                    if not x.strip():
                        break
                    para.append(x)
                caption = "\n".join(para)
            out.append((int(head.group(1)), float(head.group(2)), caption))
    return out


def script_problems(script_text, captions, times, fps, where=""):
    steps = script_steps(script_text)
    out = []
    if len(steps) != len(captions):
        out.append(f"{where}: the script lists {len(steps)} steps, the video {len(captions)}")
    for (n, length, caption), want, (start, end) in zip(steps, captions, times):
        if caption is None or _one_line(caption) != _one_line(want):
            out.append(f"{where} script step {n}: caption {caption!r}, the step's is {want!r}")
        if abs(length - (end - start)) > 1 / fps + 0.05 + 1e-6:      # written to a tenth of a second
            out.append(f"{where} script step {n}: {length} s, the step lasts {end - start:.3f} s in the video")
    return out


def chapter_times(folder, clips):
    """Each clip's start in the joined chapter (after its title card), from the decoded parts."""
    folder, clock, offsets, fps = Path(folder), 0.0, {}, None
    for clip in clips:
        count, fps = frames(folder / ".titles" / f"{clip}.mp4")
        clock += count / fps
        offsets[clip] = clock
        count, fps = frames(folder / f"{clip}.mp4")
        clock += count / fps
    return fps, offsets
