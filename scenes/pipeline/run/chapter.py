"""The chapter video: every registered clip with the book's inputs, rendered as independent
jobs (scenes/pipeline/run/executor.py: processes here, or a dask cluster), then joined in book order
behind a title card each, with one .srt and the section list as mp4 chapters (and
chapter04.chapters.json). A variants run (several languages, several qualities) is one list of
jobs over every clip and title card of every variant; each variant is joined when all are done.

A render is reused when nothing that shapes its frames changed since it was made: its stamp in
OUT/.stamps (scenes/pipeline/jobs/stamps.py). A change in scenes/compute/masking.py re-renders the
clips that import it, and nothing else.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from scenes.kit.text import lang as language
from scenes.kit.text import style
from scenes.kit.text.style import BOOK_TITLE
from scenes.pipeline.run.executor import (  # noqa: F401  (job_count: re-exported)
    Executor, LocalExecutor, Result, Task, TaskFailed, job_count,
)
from scenes.pipeline.run import steal, steps
from scenes.pipeline.jobs.course import Course
from scenes.pipeline.jobs.files import stem, write_atomic
from scenes.pipeline.jobs.inputs import InputError
from scenes.pipeline.video.join import NAME, duration, join  # noqa: F401  (duration: used by the tests)
from scenes.pipeline.jobs.registry import Clip, scene, specs
from scenes.pipeline.jobs.leftovers import sweep
from scenes.pipeline.jobs.stamps import (  # noqa: F401  (re-exported: the lab and the tests use them)
    ROOT, catalogue_hash, code_hash, dependencies, files_hash, fresh, shared_files, stamp_of, title_stamp,
)

@dataclass(frozen=True)
class Variant:
    """One chapter: a language and a quality, in its folder."""
    lang: str
    quality: str
    out: Path


def variants(out: Path, langs: list[str], qualities: list[str]) -> list[Variant]:
    """Every language in one folder (NAME.en.mp4 beside NAME.mp4); one quality in OUT itself,
    several each in OUT/QUALITY/."""
    return [Variant(lang, quality, out if len(qualities) == 1 else out / quality)
            for quality in qualities for lang in langs]


def tasks_for(out: Path, quality: str, sections: bool, pace: str = "normal", voice: str | None = None,
              lang: str = language.SOURCE, clips: dict[str, Clip] | None = None,
              course: Course | None = None) -> list[Task]:
    """The renders of one variant that are out of date (a course's clips with its inputs, read
    from a preset file it writes in OUT/.course/)."""
    tasks, folder = [], str(Path(out).resolve())
    common: tuple[str, ...] = ("--quality", quality, "--out", folder, "--lang", lang)
    common += ("--theme", style.THEME) if style.THEME != "dark" else ()      # a cluster's workers too
    spoken = ("--pace", pace) + (("--voice", voice) if voice else ())
    catalogue = catalogue_hash(lang)
    for clip, spec in (clips or specs()).items():
        name = stem(clip, lang)
        raw = course.raw.get(clip) if course else None
        module, stamp = scene(clip).__module__, stamp_of(clip, quality, sections, pace, voice, lang, raw)
        files: tuple[str, ...] = (f"{name}.mp4", f"{name}.srt", f"{name}.numbers.json")
        if not fresh(out, name, stamp, list(files)):
            given = ("--preset-file", str(course.preset_file(clip, Path(folder) / ".course"))) if course and raw else ()
            args = (clip, *common, *spoken, *given) + (("--sections",) if sections else ())
            tasks.append(Task(name, name, stamp, args, folder, files, module, code_hash(module) + catalogue, lang))
        module, stamp = "scenes.pipeline.video.title_card", title_stamp(spec, quality, lang)
        files = (f".titles/{name}.mp4",)
        if not fresh(out, f"title-{name}", stamp, list(files)):
            args = ("title-card", clip, *common)
            tasks.append(Task(f"title {name}", f"title-{name}", stamp, args, folder, files, module,
                              code_hash(module) + catalogue, lang))
    return tasks


def as_step_jobs(tasks: list[Task], sections: bool, pace: str, voice: str | None, cores: int,
                 split: bool | None = None, course: Course | None = None, cluster: bool = False,
                 ) -> tuple[list[Task], dict[str, tuple[Task, steps.Split]]]:
    """Each clip render from 720p30 up (steps.splits; `split` forces it either way) replaced by
    step jobs, the longest clips first, then the title cards, so that the cores stay busy to
    the end. On this machine's cores a clip is one step job, steps 1 to its last, which gives
    away the steps it has not begun when a core is free and no render waits (steal.py; run_all);
    `split=True`: `cores` runs of steps a clip; on a cluster a job a step. A clip below 720p, or
    with a voice, renders whole, in book order (bench/README.md: at 480p15 the chapter takes
    seconds). Returns the tasks and, for each step task's key, the clip render it is part of."""
    from scenes.pipeline.jobs.inputs import check, raw_inputs
    from scenes.pipeline.jobs.job import RenderJob
    out: list[tuple[float, Task]] = []
    owners: dict[str, tuple[Task, steps.Split]] = {}
    planned: list[tuple[Task, RenderJob]] = []
    for task in tasks:
        if task.entry or task.args[0] == "title-card":
            out.append((0.0, task))
            continue
        clip, options = task.args[0], dict(zip(task.args[1::2], task.args[2::2]))
        inputs = course.checked[clip] if course and clip in course.checked else check(clip, raw_inputs(clip))
        job = RenderJob(clip=clip, inputs=inputs, quality=options["--quality"],
                        out=Path(task.out), sections=sections, pace=pace, voice=voice, lang=task.lang)
        if not (steps.splits(job, cores) if split is None else split and job.voice is None):
            out.append((float("inf"), task))
            continue
        planned.append((task, job))
    parts = None if cluster else cores if split else 1
    for (task, _), part in zip(planned, plans([job for _, job in planned], parts, 1 if cluster else cores)):
        for step in part.tasks:
            owners[step.key] = (task, part)
            out.append((part.seconds_of(step), step))
    return longest_first(out), owners


def plans(jobs: list[Any], parts: int | None, cores: int) -> list[steps.Split]:
    """steps.prepare of each job, `cores` at once in processes forked from this one (Manim and
    the clips already imported; on a first run the plans build every text and formula, which
    the renders then find in the caches)."""
    if cores < 2 or len(jobs) < 2:
        return [steps.prepare(job, parts) for job in jobs]
    return forked_map(steps.prepare, [(job, parts) for job in jobs], cores)


def forked_map(fn: Callable, calls: list[tuple], cores: int) -> list:
    """[fn(*call) for call in calls], `cores` at once in processes forked from this one. The
    children never collect what they inherit: a process that has drawn frames holds PyAV
    converters whose threads stay in it, and a child's collector that frees one waits for those
    threads forever (a test worker's plans hung so). So everything is frozen while they fork."""
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    gc.freeze()
    try:
        with ProcessPoolExecutor(max_workers=cores, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(fn, *zip(*calls)))
    finally:
        gc.unfreeze()


def longest_first(planned: list[tuple[float, Task]]) -> list[Task]:
    """The tasks by their planned seconds, the longest first (whole clips, unplanned, first in book order)."""
    return [t for _, t in sorted(planned, key=lambda pair: -pair[0])]


def run_all(tasks: list[Task], executor: Executor, owners: dict[str, tuple[Task, steps.Split]] | None = None) -> None:
    """Run the renders with one progress line; a render's stamp is written once its files are in
    place, if the files that shaped it are those its stamp was made from; the first failure stops
    the rest. A step job's clip is joined when its every step is drawn, then stamped. On this
    machine's cores, while a core is free and no render waits, the running step job with the
    most planned seconds left is asked for the steps it has not begun (steal.py)."""
    start, count, shown, unstamped = time.monotonic(), [0], "", []
    owners = owners or {}
    giving = steal.Giving(owners)

    def stamped(task: Task, checkout: str) -> None:
        missing = [f for f in task.files if not (Path(task.out) / f).exists()]
        if missing:
            raise RuntimeError(f"{task.label}: {missing[0]} is not in {task.out} after its render "
                               f"(do the workers write to the same folder? it must be on a shared file system)")
        if checkout == task.code:
            (Path(task.out) / ".stamps").mkdir(parents=True, exist_ok=True)
            write_atomic(Path(task.out) / ".stamps" / f"{task.key}.txt", task.stamp)
        else:
            unstamped.append(task.label)

    def done(task: Task, result: Result) -> None:
        nonlocal shown
        if task.key in owners:
            clip, part = owners[task.key]
            giving.taken(task)                 # it may have given steps away as it ended
            if part.step_done(task):
                steps.finish(part)
                stamped(clip, code_hash(clip.module) + catalogue_hash(clip.lang))
        else:
            stamped(task, result.checkout)
        count[0] += 1
        shown = progress(start, count[0], len(owners) + sum(1 for t in tasks if t.key not in owners), shown)

    try:
        if isinstance(executor, LocalExecutor) and owners:
            executor.run(tasks, done, giving.idle)
        else:
            executor.run(tasks, done)
    except TaskFailed as err:
        if err.result.code == 2:      # the clip refused its input (a missing recording)
            raise InputError("voice", err.task.label, err.result.message) from None
        raise RuntimeError(str(err)) from None
    finally:
        for _, part in owners.values():
            steps.discard(part)
        for folder in {Path(t.out) for t in tasks if not t.entry}:     # what a render that died here left behind
            sweep(folder)
            if (folder / ".titles").is_dir():
                sweep(folder / ".titles")
    if tasks:
        print(file=sys.stderr)
    if unstamped:
        print(f"[chapter] {len(unstamped)} renders ({', '.join(unstamped[:3])}{', ...' if len(unstamped) > 3 else ''})"
              " were made from files other than this run's (edited while it ran, or a worker on another "
              "commit): kept, not stamped, made again next run", file=sys.stderr)


def progress(start: float, done: int, total: int, shown: str) -> str:
    """One line for the whole chapter: renders done, elapsed, estimate."""
    elapsed = time.monotonic() - start
    left = f"~{elapsed / done * (total - done):.0f} s left" if done else "estimating"
    line = f"[chapter] {done}/{total} renders · {elapsed:.0f} s elapsed · {left}"
    tty = sys.stderr.isatty()
    print(("\r" + line + "   ") if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
    return line


def render_chapter(quality: str = "high", out: str | Path = "media", sections: bool = True,
                   jobs: int | None = None, pace: str = "normal", voice: str | None = None,
                   one_file: bool = False, lang: str = language.SOURCE, executor: Executor | None = None,
                   clips: list[str] | None = None, split: bool | None = None,
                   course: Course | None = None) -> list[Path]:
    """Render what is out of date, join the chapter; with sections (the default) also the
    presenter page chapter04.html, each title card a step of its own."""
    return render_variants([lang], [quality], out, sections, jobs, pace, voice, one_file, executor, clips, split,
                           course)


def render_variants(langs: list[str], qualities: list[str], out: str | Path = "media", sections: bool = True,
                    jobs: int | None = None, pace: str = "normal", voice: str | None = None,
                    one_file: bool = False, executor: Executor | None = None,
                    clips: list[str] | None = None, split: bool | None = None,
                    course: Course | None = None) -> list[Path]:
    """Every variant (language x quality) of the chapter: one list of jobs over all of them
    (on `executor`, default processes here; a clip as its step jobs where that pays, or as
    `split` says), then each variant joined. `clips`: only these (the tests' small chapters)."""
    out = Path(out)
    if voice and voice != "espeak" and not Path(voice).is_dir():
        raise InputError("voice", voice, "is neither 'espeak' nor a folder of recordings")
    voice = voice if voice in (None, "espeak") else str(Path(voice).resolve())
    chosen = {c: s for c, s in specs().items() if clips is None or c in clips}
    todo = variants(out, langs, qualities)
    for variant in todo:
        variant.out.mkdir(parents=True, exist_ok=True)
    tasks = [t for v in todo for t in tasks_for(v.out, v.quality, sections, pace, voice, v.lang, chosen, course)]
    cores = jobs or job_count()
    local = executor or LocalExecutor(cores)
    tasks, owners = as_step_jobs(tasks, sections, pace, voice, 2 if executor else cores, split, course,
                                 cluster=executor is not None)
    try:
        run_all(tasks, local, owners)
    finally:
        if executor is None:
            local.close()
    written = []
    for variant in todo:
        written += join(variant.out, chosen, variant.lang)
        if sections:
            written.append(presenter_page(variant, chosen, one_file))
    return written


def presenter_page(variant: Variant, clips: dict[str, Clip], one_file: bool) -> Path:
    """chapter04.html (chapter04.en.html): each clip's title card a step of its own, then its steps."""
    from scenes.pipeline.present.presenter import clip_steps, title_step, write_page
    lang, parts = variant.lang, []
    for clip, spec in clips.items():
        name, title = stem(clip, lang), spec.heading(lang)
        parts.append({"section": spec.section, "title": title,
                      "steps": [title_step(variant.out, name, spec.section, title)]
                      + clip_steps(variant.out, name, spec.section, title)})
    heading = language.tr(BOOK_TITLE, lang).replace("{}", str(style.CHAPTER))
    return write_page(variant.out, stem(NAME, lang), heading, parts, lang=lang, one_file=one_file)
