"""One step of a clip rendered alone, its frames and files those of a whole render.

A step job builds the scene up to its step's start without drawing a frame, then renders that
step only. The steps before it go through Manim's own skipping (every animation begun, brought
to its end and cleaned up, exactly as when it is drawn: the same mobjects in the same order),
and the clock is kept as a drawn render keeps it: Manim's skipping adds a play's duration at
once, a drawn play adds 1/fps per frame (a hold: its whole frames at once), and the step's
captions and the manifest's times are those float sums. So the step's frames, its section
video and, for the last step, the whole manifest equal a one-process render's.

renderer(first) is Manim's Cairo renderer writing through holds.HoldWriter, quiet before step
`first` (ClipScene numbers its steps in scene.book.step; a section is "step-N").
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
from manim import config
from manim.renderer.cairo_renderer import CairoRenderer

from scenes.pipeline.video.holds import HoldRenderer, HoldWriter


def drawn_clock(time: float, duration: float, held: bool, fps: float) -> float:
    """The renderer's clock after a play of `duration` as a drawn render advances it."""
    dt = 1 / fps
    if held:                                   # CairoRenderer.freeze_current_frame
        return time + int(duration / dt) * dt
    for _ in range(len(np.arange(0, duration, 1 / config["frame_rate"]))):
        time += dt                             # CairoRenderer.add_frame, once a frame
    return time


def step_of(section: str) -> int | None:
    """ClipScene's section name "step-3" -> 3 (None for any other section)."""
    head, _, number = section.partition("-")
    return int(number) if head == "step" and number.isdigit() else None


def renderer(first: int, on_play: Callable[[Any], None] | None = None) -> CairoRenderer:
    """A renderer drawing from step `first` on (pass as a scene's renderer=); `on_play(scene)`
    is called as each play or wait begins (scenes/pipeline/run/steps.py: a step job giving away
    the steps it has not begun)."""

    class Writer(HoldWriter):
        def next_section(self, name: str, type_: str, skip_animations: bool) -> None:
            step = step_of(name)
            super().next_section(name, type_, skip_animations or (step is not None and step < first))

    class FromStep(HoldRenderer):
        held = False

        def quiet(self, scene: Any) -> bool:
            return getattr(getattr(scene, "book", None), "step", 0) < first

        def play(self, scene: Any, *args: Any, **kwargs: Any) -> None:
            if on_play is not None:
                on_play(scene)
            if not self.quiet(scene):
                self._original_skipping_status = False
                return super().play(scene, *args, **kwargs)
            self._original_skipping_status = True
            start, self.held = self.time, False
            super().play(scene, *args, **kwargs)
            self.time = drawn_clock(start, scene.duration, self.held, self.camera.frame_rate)

        def freeze_current_frame(self, duration: float) -> None:
            self.held = True
            super().freeze_current_frame(duration)

    HoldWriter.work = []
    return FromStep(file_writer_class=Writer, skip_animations=False)


def section_videos(folder: Path) -> list[tuple[Path, dict]]:
    """The step videos a step job wrote in its NAME.sections/, each with its index entry, in order."""
    index = next(folder.glob("*.sections/*.json"))
    entries = json.loads(index.read_text("utf-8"))
    if not entries:
        raise RuntimeError(f"{index}: no step video")
    return [(index.parent / entry["video"], entry) for entry in entries]
