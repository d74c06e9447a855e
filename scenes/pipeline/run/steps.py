"""One clip on every core: its steps rendered as independent jobs, then joined.

Each step job (`python -m scenes.pipeline.run.steps JOB FIRST [LAST]`) builds the scene up to
its first step without drawing a frame and draws only its steps, FIRST to LAST (one step, or a
run of them: scenes/pipeline/video/from_step.py), into a folder of its own inside the render's
private work folder. When every job is done the clip's files are made from theirs: NAME.mp4 is
the step videos remuxed (not re-encoded), the step videos and their index are NAME.sections/,
and the manifest, script and subtitles are the last step's job's (it built every step before it
as a whole render does). Then they move into place whole, as one render's do; nothing is
written where a step failed.

When it pays (bench/run.py --only split, bench/README.md): a step job costs a Python and Manim
start and the build up to its first step, 2.5-3.5 s of CPU; at 480p15 and below a clip's steps
hardly take longer than that, at 1080p60 far longer. So one clip is split from 720p30 up when
more than one core is free, into as many runs of steps as there are cores (their planned
seconds balanced: a job a step cost 22% more CPU than the whole render, for dropout on 2 cores,
and hardly paid); a chapter on this machine's cores renders each clip as one step job, steps 1
to its last, which gives the steps it has not begun to a free core (steal.py), and on a cluster
each step is a job (chapter.py). A voice, a still, a dry run: whole. STEP_JOBS=off renders every
clip whole, STEP_JOBS=on splits at every quality.
"""
from __future__ import annotations

import json
import os
import pickle
import shutil
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from scenes.kit.text import lang as language
from scenes.pipeline.jobs.files import own_part, signals_held
from scenes.pipeline.jobs.inputs import InputError
from scenes.pipeline.jobs.job import RenderJob
from scenes.pipeline.jobs.leftovers import mark, sweep, work_dir
from scenes.pipeline.jobs.registry import scene as scene_class
from scenes.pipeline.run import runner, steal
from scenes.pipeline.run.executor import Executor, LocalExecutor, Task, job_count
from scenes.pipeline.video.from_step import section_videos
from scenes.pipeline.video.join import remux

SPLIT_QUALITIES = ("medium", "high", "4k")
JOB_FILE = "job.pickle"


def splits(job: RenderJob, cores: int) -> bool:
    """Whether this render is split into step jobs (the rule above; STEP_JOBS in the
    environment: "off" never splits, "on" at every quality: the benchmark's two sides)."""
    forced = os.environ.get("STEP_JOBS", "")
    return (forced != "off" and cores > 1 and job.format == "mp4" and not job.dry_run and job.step is None
            and job.first_step is None and job.voice is None
            and (forced == "on" or job.quality in SPLIT_QUALITIES))


def render(job: RenderJob, jobs: int | None = None) -> list[Path]:
    """The CLI's render of one clip: split into step jobs where that pays, else one process."""
    cores = jobs or job_count()
    if not splits(job, cores):
        return runner.render(job)
    return render_split(job, LocalExecutor(cores), parts=cores)


def steps_of(task: Task) -> range:
    """The steps a step task draws (its FIRST and LAST arguments)."""
    first = int(task.args[1])
    return range(first, int(task.args[2] if len(task.args) > 2 else first) + 1)


@dataclass
class Split:
    """A clip being rendered as step jobs: its job, its private folder, each step's planned
    seconds, its step tasks, the last step of each (by its first: lowered where a job gave steps
    away, steal.py), the steps drawn so far and the jobs asked to give steps away."""
    job: RenderJob
    work: Path
    seconds: list[float]
    tasks: list[Task]
    lasts: dict[int, int] = field(default_factory=dict)
    drawn: set[int] = field(default_factory=set)
    asked: set[int] = field(default_factory=set)        # asked, not yet answered
    kept: set[int] = field(default_factory=set)         # answered that they keep every step

    def __post_init__(self) -> None:
        for task in self.tasks:
            self.lasts.setdefault(int(task.args[1]), steps_of(task)[-1])

    def step_done(self, task: Task) -> bool:
        """Note a step task done; whether the clip's every step is drawn."""
        first = int(task.args[1])
        self.asked.discard(first)
        self.drawn.update(range(first, self.lasts[first] + 1))
        return len(self.drawn) == len(self.seconds)

    def seconds_of(self, task: Task) -> float:
        """The planned seconds of the steps `task` draws."""
        return sum(self.seconds[k - 1] for k in steps_of(task))

    def left(self, task: Task) -> float:
        """The planned seconds of the steps `task` still has to draw, at most (those given away not counted)."""
        first = int(task.args[1])
        return sum(self.seconds[first - 1:self.lasts[first]])

    def askable(self, task: Task) -> bool:
        first = int(task.args[1])
        return first not in self.asked and first not in self.kept

    def ask(self, task: Task) -> None:
        """Ask the running `task` for the steps it has not begun (steal.py)."""
        first = int(task.args[1])
        if self.askable(task):
            self.asked.add(first)
            steal.ask(self.work, first)

    def taken(self, task: Task) -> Task | None:
        """Where `task` has answered and given steps away, the step task that draws them."""
        first = int(task.args[1])
        kept = steal.answer(self.work, first)
        last = self.lasts[first]
        if kept is None:
            return None
        self.asked.discard(first)
        if kept >= last:                         # kept them all: not asked again
            self.kept.add(first)
            return None
        self.lasts[first], self.lasts[kept + 1] = kept, last
        given = step_task(self.job, self.work, range(kept + 1, last + 1), task.module)
        self.tasks.append(given)
        return given


def runs(seconds: list[float], parts: int | None) -> list[range]:
    """The steps (1-based) in `parts` runs of consecutive steps, their planned seconds as even as
    a cut between steps makes them (each run ends where the running total passes its share);
    None: a run a step."""
    count = len(seconds)
    if parts is None or parts >= count:
        return [range(k, k + 1) for k in range(1, count + 1)]
    total, first, passed = float(sum(seconds)), 1, 0.0
    out: list[range] = []
    for k, length in enumerate(seconds, start=1):
        passed += length
        left = parts - len(out) - 1                    # runs still to start after this one
        if left and (passed >= total * (len(out) + 1) / parts or count - k == left):
            out.append(range(first, k + 1))
            first = k + 1
    out.append(range(first, count + 1))
    return out


def prepare(job: RenderJob, parts: int | None = None) -> Split:
    """The clip planned (its steps and their seconds, without frames) and its step tasks (a step
    each, or `parts` runs of steps), the longest first (so that the cores stay busy to the end)."""
    job.out.mkdir(parents=True, exist_ok=True)
    sweep(job.out)
    work = work_dir(job.out, "steps", job.clip)
    before = language.current
    language.use(job.lang)
    try:
        planned = runner.plan(job.clip, dict(job.inputs), job.pace, work / "plan")
    finally:
        language.use(before)
    seconds = [end - start for start, end, _ in planned.captions]
    (work / JOB_FILE).write_bytes(pickle.dumps(job))
    (work / steal.SECONDS).write_text(json.dumps(seconds))
    module = scene_class(job.clip).__module__
    order = sorted(runs(seconds, parts), key=lambda steps: -sum(seconds[k - 1] for k in steps))
    return Split(job, work, seconds, [step_task(job, work, steps, module) for steps in order])


def step_task(job: RenderJob, work: Path, steps: range, module: str) -> Task:
    """The task that draws `steps` of the clip (in work/FIRST)."""
    return Task(label=f"{job.name} {name(steps)}", key=f"{job.name}-{name(steps).replace(' ', '-')}",
                stamp=mark(), args=(str(work / JOB_FILE), str(steps[0]), str(steps[-1])), out=str(work),
                files=(), module=module, code="", lang=job.lang, entry="scenes.pipeline.run.steps")


def name(steps: range) -> str:
    return f"step {steps[0]}" if len(steps) == 1 else f"steps {steps[0]}-{steps[-1]}"


def finish(split: Split) -> list[Path]:
    """The clip's files from its steps' (Ctrl-C held while they move), the private folder gone."""
    try:
        with signals_held():
            return joined(split.job, split.work, len(split.seconds))
    finally:
        discard(split)


def discard(split: Split) -> None:
    shutil.rmtree(split.work, ignore_errors=True)


def render_split(job: RenderJob, executor: Executor, parts: int | None = None) -> list[Path]:
    """Render the clip's steps as tasks on `executor` (a step each, or `parts` runs of steps; on
    this machine's cores a run done early is given the steps another has not begun: steal.py),
    then join them into the clip's files."""
    split = prepare(job, parts)
    giving = steal.Giving({task.key: (job, split) for task in split.tasks})
    try:
        if isinstance(executor, LocalExecutor):         # a run done early takes the other's steps not begun
            executor.run(split.tasks, lambda task, result: giving.taken(task), giving.idle)
        else:
            executor.run(split.tasks, lambda task, result: None)
    except BaseException:
        discard(split)
        raise
    return finish(split)


def joined(job: RenderJob, work: Path, steps: int) -> list[Path]:
    """The clip's files from its step jobs' folders (each named by its first step), each moved
    into place whole."""
    out, name = job.out, job.name
    parts = sorted((p for p in work.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name))
    videos = [video for p in parts for video in section_videos(p)]
    if len(videos) != steps:
        raise RuntimeError(f"{name}: {len(videos)} step videos from its step jobs, {steps} steps")
    movie = own_part(out / f"{name}.mp4", ".mp4")
    remux([video for video, _ in videos], movie, [])
    written = [out / f"{name}.mp4"]
    os.replace(movie, written[0])
    last = parts[-1]
    for suffix in ("numbers.json", "script.md", "srt"):
        part = own_part(out / f"{name}.{suffix}")
        shutil.copyfile(last / f"{name}.{suffix}", part)
        os.replace(part, out / f"{name}.{suffix}")
        written.append(out / f"{name}.{suffix}")
    if job.sections:
        index = next(last.glob("*.sections/*.json")).name
        written.append(sections_folder(out, name, videos, index))
        from scenes.pipeline.present.presenter import clip_steps, write_page
        spec = scene_class(job.clip).spec
        title = spec.heading()
        page = {"section": spec.section, "title": title, "steps": clip_steps(out, name, spec.section, title)}
        written.append(write_page(out, name, f"{spec.section} {title}", [page], lang=job.lang,
                                  one_file=job.one_file))
    return written


def sections_folder(out: Path, name: str, videos: list[tuple[Path, dict]], index: str) -> Path:
    """NAME.sections/: every step's video and the index Manim writes for a whole render."""
    mine = mark()
    target = out / f"{name}.sections"
    new, old = out / f".{name}.sections{mine}new", out / f".{name}.sections{mine}old"
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir()
    for video, entry in videos:
        shutil.copyfile(video, new / entry["video"])
    with (new / index).open("w") as file:
        json.dump([entry for _, entry in videos], file, indent=4)
    if target.exists():
        os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)
    return target


def render_step(job_file: Path, first: int, last: int | None = None) -> None:
    """A step job: the job's clip drawn from step `first` to `last` (or `first`), into job_file's
    folder / first."""
    job: RenderJob = pickle.loads(job_file.read_bytes())
    folder = job_file.parent / str(first)
    runner.render(replace(job, first_step=first, step=last or first, sections=True, one_file=False, out=folder),
                  steal.giver(job_file.parent, first))


def main(argv: list[str]) -> int:
    try:
        render_step(Path(argv[0]), int(argv[1]), int(argv[2]) if len(argv) > 2 else None)
    except InputError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

