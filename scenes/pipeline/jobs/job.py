"""A render job as a value: what to render (a clip and its checked inputs), how (quality,
format, pace, voice, language, one step, step videos) and where (out). The quality table lives
here, once; nothing in this module imports Manim, so the CLI can read it for --help.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from scenes.kit.text import lang as language
from scenes.kit.scene.inputs import InputError
from scenes.kit.text.style import PACES
from scenes.pipeline.jobs.files import stem

QUALITIES = {  # name -> (width, height, fps)
    "tiny": (256, 144, 5), "low": (854, 480, 15), "medium": (1280, 720, 30),
    "high": (1920, 1080, 60), "4k": (3840, 2160, 60),
}
FORMATS = ("mp4", "gif", "png", "webm")


def quality_help() -> str:
    """'480p15, 720p30, 1080p60, 2160p60 (tiny: 144p5, for tests)', from the table."""
    shown = [f"{h}p{fps}" for name, (_, h, fps) in QUALITIES.items() if name != "tiny"]
    _, h, fps = QUALITIES["tiny"]
    return f"{', '.join(shown)} (tiny: {h}p{fps}, for tests)"


@dataclass(frozen=True, eq=False)
class RenderJob:
    """One render of one clip (compared by identity: its inputs hold numpy arrays)."""
    clip: str
    inputs: Mapping[str, Any] = field(default_factory=dict)     # checked by the clip's rules
    quality: str = "high"
    format: str = "mp4"
    out: Path = Path("media")
    dry_run: bool = False
    step: int | None = None             # stop after this step (a still of it with format png)
    first_step: int | None = None       # draw from this step on (a step job: the steps before it are
                                        # built without frames; pipeline/video/from_step.py)
    sections: bool = False              # also one mp4 per step and the presenter page NAME.html
    pace: str = "normal"
    voice: str | None = None            # "espeak", a folder of recordings, or None
    one_file: bool = False              # with sections: the videos inside NAME.html
    lang: str = language.SOURCE

    def __post_init__(self) -> None:
        object.__setattr__(self, "out", Path(self.out))
        for name, value, valid in (("quality", self.quality, QUALITIES), ("format", self.format, FORMATS),
                                   ("pace", self.pace, PACES), ("lang", self.lang, language.LANGS)):
            if value not in valid:
                raise ValueError(f"{name} {value!r}: one of {', '.join(valid)}")
        if self.step is not None and self.step < 1:
            raise InputError("step", str(self.step), "steps count from 1")
        if self.first_step is not None and (self.first_step < 1 or (self.step or self.first_step) < self.first_step):
            raise ValueError(f"first_step {self.first_step}: from 1 to the last step drawn ({self.step})")

    @property
    def name(self) -> str:
        """The output stem: NAME in Chinese, NAME.en in English."""
        return stem(self.clip, self.lang)

    @property
    def videos(self) -> bool:
        """Whether the job writes a video (and so its srt, and step videos when asked)."""
        return not self.dry_run and self.format != "png"
