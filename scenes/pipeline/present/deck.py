"""Decks from what is already rendered: the step videos of `--sections` (NAME.sections/) and the
captions and narration of NAME.numbers.json become a PowerPoint deck (deck_pptx.py) or a PDF
handout (deck_pdf.py); decks.write picks the writer. Nothing is rendered here; each step's last
frame is taken from its video once (NAME.sections/*.png, replaced with the folder when the clip is
rendered again).
"""
from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import av
from PIL import Image

from scenes.kit.text import style
from scenes.kit.text.lang import SOURCE, tr
from scenes.pipeline.video.join import NAME
from scenes.pipeline.present.presenter import clip_steps
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.jobs.files import own_part, stem



@dataclass(frozen=True)
class Step:
    video: Path
    caption: str
    notes: str          # the narration (the caption where a step has none)
    derivations: tuple[str, ...] = ()       # the expressions the step makes, as drawn


@dataclass(frozen=True)
class Section:
    section: str        # "4.1"
    title: str
    steps: tuple[Step, ...]
    clip: str = ""      # the clip its steps are of
    name: str = ""      # its files' stem in OUT: dropout, dropout.en


@dataclass(frozen=True)
class Deck:
    name: str           # the file stem: chapter04, chapter04.en, dropout, dropout.en
    heading: str        # the chapter's title
    lang: str
    sections: tuple[Section, ...]


def deck_of(out: Path, lang: str = SOURCE, clip: str | None = None) -> Deck:
    """The chapter's steps (clip None: every clip in book order) or one clip's, from OUT's files."""
    clips = specs() if clip is None else {clip: specs()[clip]}
    sections = []
    for name, spec in clips.items():
        base = stem(name, lang)
        if not (out / f"{base}.sections").is_dir():
            raise FileNotFoundError(f"{out / base}.sections does not exist: render it with --sections first")
        title = spec.heading(lang)
        steps = tuple(Step(out / st["video"], st["caption"], st["notes"], tuple(st["derivations"]))
                      for st in clip_steps(out, base, spec.section, title))
        sections.append(Section(spec.section, title, steps, name, base))
    heading = tr(style.BOOK_TITLE, lang).replace("{}", str(style.CHAPTER))
    return Deck(stem(NAME if clip is None else clip, lang), heading, lang, tuple(sections))


def last_frame(video: Path) -> Image.Image:
    """The video's last frame: decoded from its last keyframe on, not from the start."""
    with av.open(str(video)) as box:
        stream = box.streams.video[0]
        if stream.duration:
            box.seek((stream.start_time or 0) + stream.duration, stream=stream)
        frames = deque(box.decode(stream), maxlen=1)
        if not frames:                          # a seek past every keyframe: read it all
            box.seek(0, stream=stream)
            frames = deque(box.decode(stream), maxlen=1)
    if not frames:
        raise RuntimeError(f"{video} has no frames")
    return frames[0].to_image()


def duration(video: Path) -> float:
    """The video's length in seconds, from its container."""
    with av.open(str(video)) as box:
        return box.duration / av.time_base if box.duration else 0.0


def poster(video: Path) -> Path:
    """The step's last frame as a PNG beside its video, taken once."""
    png = video.with_suffix(".png")
    if not (png.exists() and png.stat().st_mtime_ns > video.stat().st_mtime_ns):
        image = last_frame(video)
        whole(png, lambda tmp: image.save(tmp, format="PNG"))
    return png


def whole(target: Path, write: Callable[[Path], object]) -> Path:
    """Write `target` through a temporary name beside it: the finished file or nothing."""
    tmp = own_part(target)
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
