"""No idle core at the end: a step job gives away the steps it has not begun.

On this machine's cores the chapter renders each clip (from 720p30 up) as one step job, steps 1
to its last, the longest clips first (chapter.as_step_jobs). When a core is free and no render
is waiting, the chapter asks a running step job for the steps it has not begun (ask()): as its
next play begins the job chooses how many of them to keep (give(): its planned seconds and
those of the steps it keeps against a new job's start and the steps it gives, the longer of the
two as short as a cut between steps makes it), lowers its last step to the last it keeps and
writes that down (a file beside its folder, written whole); the chapter reads it (answer()) and
starts a step job for the steps given away, which builds the steps before them through Manim's
skipping as every step job does (scenes/pipeline/video/from_step.py). The clip is joined when
every step is drawn, as before. A job on its last step, or with too little left to pay for a
new job's start, keeps everything.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

# What a new step job costs before its first frame (a Python and Manim start and the build of
# the steps before it: 2.5-3.5 s of CPU, bench/README.md), in planned seconds of video drawn at
# 1080p60 (~0.8 CPU-s a second of video): a job gives away steps only where the new job's part
# is worth more than that.
START = 4.0
SECONDS = "seconds.json"


def ask_file(work: Path, first: int) -> Path:
    return work / f"ask-{first}"


def gave_file(work: Path, first: int) -> Path:
    return work / f"gave-{first}"


def give(seconds: list[float], current: int, left: float, last: int, start: float = START) -> int:
    """The last step a job drawing step `current` (`left` planned seconds of it still to draw,
    its last step `last`) keeps, the rest given to a new job that costs `start` first: the
    longer of the two parts as short as a cut between steps makes it; `last` where giving
    does not shorten it."""
    keep, best = last, left + sum(seconds[current:last])
    for m in range(current, last):
        longer = max(left + sum(seconds[current:m]), start + sum(seconds[m:last]))
        if longer < best:
            keep, best = m, longer
    return keep


def giver(work: Path, first: int) -> Callable[[Any], None]:
    """A step job's on_play (runner.render): where the chapter asked, the steps not begun given
    away as this play begins."""
    asked, seconds = ask_file(work, first), [float(s) for s in json.loads((work / SECONDS).read_text())]

    def on_play(scene: Any) -> None:
        current = getattr(getattr(scene, "book", None), "step", 0)
        if current < first or not asked.exists() or not scene.captions:
            return
        last = scene.stop_after_step or len(seconds)
        left = max(0.0, seconds[current - 1] - (scene.renderer.time - scene.captions[-1][0]))
        keep = give(seconds, current, left, last)
        scene.stop_after_step = keep
        part = gave_file(work, first).with_suffix(".part")
        part.write_text(str(keep))
        os.replace(part, gave_file(work, first))
        asked.unlink(missing_ok=True)
    return on_play


def ask(work: Path, first: int) -> None:
    ask_file(work, first).write_text("")


def answer(work: Path, first: int) -> int | None:
    """The last step the job from `first` kept, once it has answered (None: not yet); the
    answer is taken (a later ask gets a new one)."""
    try:
        kept = int(gave_file(work, first).read_text())
    except (FileNotFoundError, ValueError):
        return None
    gave_file(work, first).unlink(missing_ok=True)
    return kept


class Giving:
    """The chapter's side (or one clip's on every core): the step tasks of clips rendered as
    step jobs (`owners`: a task's key -> (what it is part of, its steps.Split)); idle() asks a
    running one for its steps not begun while a core is free and no render waits, and gives
    the tasks for the steps given away."""

    def __init__(self, owners: dict[str, tuple[Any, Any]]) -> None:
        self.owners = owners
        self.given: list[Any] = []       # the tasks given away, not yet run

    def taken(self, task: Any) -> None:
        """Where `task` answered and gave steps away, the task that draws them, to run next."""
        owner, split = self.owners[task.key]
        new = split.taken(task)
        if new is not None:
            self.owners[new.key] = (owner, split)
            self.given.append(new)

    def idle(self, running: list[Any], waiting: int) -> list[Any]:
        """LocalExecutor.run's idle: the answers read; while no render waits and no job is asked,
        the running step job with the most planned seconds left is asked."""
        mine = [t for t in running if t.key in self.owners]
        for task in mine:
            self.taken(task)
        asked = any(int(t.args[1]) in self.owners[t.key][1].asked for t in mine)
        if not self.given and not waiting and not asked:
            free = [t for t in mine if self.owners[t.key][1].askable(t)]
            if free:
                task = max(free, key=lambda t: self.owners[t.key][1].left(t))
                self.owners[task.key][1].ask(task)
        out, self.given = self.given, []
        return out
