"""One clip as step jobs: each step drawn in a process of its own, then joined. The joined clip
is the one-process render: the same frames (decoded), the same step videos, manifest, subtitles,
script and page byte for byte; on a dask cluster of two workers both render steps, and a worker
killed mid-step leaves no partial file and its step is drawn again."""
import os
import signal
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

import av
import numpy as np
import pytest

from conftest import inputs_for
from scenes.pipeline.jobs.job import RenderJob
from scenes.pipeline.run import executor, runner, steps
from scenes.pipeline.run.chapter import render_chapter
from scenes.pipeline.video import from_step


def decoded(path):
    with av.open(str(path)) as box:
        return [frame.to_ndarray(format="rgb24") for frame in box.decode(video=0)]


def differences(ours, theirs, clip):
    """What differs between a split render's folder and a whole render's, for one clip."""
    found = []
    for name in (f"{clip}.numbers.json", f"{clip}.srt", f"{clip}.script.md", f"{clip}.html"):
        if (ours / name).read_bytes() != (theirs / name).read_bytes():
            found.append(name)
    def made(folder):          # the step videos and their index (a deck adds its stills beside them)
        return sorted(p.name for p in (folder / f"{clip}.sections").iterdir() if p.suffix in (".mp4", ".json"))
    mine = made(ours)
    if mine != made(theirs):
        found.append(f"{clip}.sections: {mine}")
    else:
        found += [f"{clip}.sections/{n}" for n in mine
                  if (ours / f"{clip}.sections" / n).read_bytes() != (theirs / f"{clip}.sections" / n).read_bytes()]
    a, b = decoded(ours / f"{clip}.mp4"), decoded(theirs / f"{clip}.mp4")
    if len(a) != len(b):
        found.append(f"{clip}.mp4: {len(a)} frames, {len(b)} in one process")
    else:
        worst = max(int(np.abs(x.astype(int) - y).max()) for x, y in zip(a, b))
        if worst > 2:                                         # the encoder's tolerance
            found.append(f"{clip}.mp4: a pixel {worst} levels off")
    return found


def job(clip, out, **given):
    return RenderJob(clip=clip, inputs=inputs_for(clip, **given), quality="tiny", sections=True, out=Path(out))


def test_the_joined_clip_is_the_one_process_render(tmp_path, tiny_chapter):
    """The tiny chapter renders each clip in one process (`render.py NAME --sections`)."""
    written = steps.render_split(job("dropout", tmp_path), executor.LocalExecutor(2))
    assert {p.name for p in written} == {f"dropout.{x}" for x in ("mp4", "numbers.json", "script.md", "srt",
                                                                 "sections", "html")}
    assert differences(tmp_path, tiny_chapter, "dropout") == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written)   # no work folder left


def test_a_chapter_of_step_jobs_is_the_chapter_of_whole_clips(tmp_path, tiny_chapter):
    """Every clip of the chapter as its step jobs, in one list on two processes, each clip joined
    when its last step is done, then the chapter: each clip's files are the one-process render's."""
    clips = ["multihead", "weighted-average"]
    render_chapter("tiny", tmp_path, jobs=2, clips=clips, split=True)
    for clip in clips:
        assert differences(tmp_path, tiny_chapter, clip) == [], clip
    assert (tmp_path / "chapter04.mp4").exists() and (tmp_path / ".stamps" / "multihead.txt").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".steps")]


def test_a_step_keeps_the_clock_of_a_drawn_render(monkeypatch, tmp_path, tiny_chapter):
    """Planted: the steps before it timed by Manim's skipping (a play's duration at once, not
    1/fps a frame) give the step other start and end times than the whole render's."""
    whole = (tiny_chapter / "weighted-average.numbers.json").read_text("utf-8")
    import json
    expected = json.loads(whole)["steps"][:2]
    drawn = replace(job("weighted-average", tmp_path / "drawn"), first_step=2, step=2)
    runner.render(drawn)
    assert json.loads((tmp_path / "drawn" / "weighted-average.numbers.json").read_text("utf-8"))["steps"] == expected
    monkeypatch.setattr(from_step, "drawn_clock", lambda time, duration, held, fps: time + duration)
    runner.render(replace(drawn, out=tmp_path / "skipped"))
    skipped = json.loads((tmp_path / "skipped" / "weighted-average.numbers.json").read_text("utf-8"))["steps"]
    assert skipped != expected


@pytest.mark.sampled(1, group="a dask worker killed mid-render")
def test_a_cluster_of_two_workers_draws_the_steps_though_one_dies_mid_step(tmp_path, tiny_chapter):
    clip, killed, ran = "weighted-average", tmp_path / "killed", tmp_path / "ran"
    ran.mkdir()

    def dies_once(task):
        """Each step task notes its worker; the first one started is killed with its worker
        while its frames are being written."""
        from scenes.pipeline.run.executor import run_task
        (ran / f"{os.getpid()}-{task.key}").touch()
        if not killed.exists():
            killed.write_text(str(os.getpid()))
            threading.Thread(target=run_task, args=(task,), daemon=True).start()
            deadline = time.monotonic() + 120
            while next(Path(task.out).glob("*/.render-*/videos/*/partial_movie_files/*/*.mp4"), None) is None \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGKILL)
        return run_task(task)

    cluster = executor.DaskExecutor(workers=2, run=dies_once)
    try:
        steps.render_split(job(clip, tmp_path / "out"), cluster)
    finally:
        cluster.close()
    workers = {p.name.split("-", 1)[0] for p in ran.iterdir()} - {killed.read_text()}
    assert len(workers) == 2, sorted(p.name for p in ran.iterdir())     # both live workers drew steps
    assert differences(tmp_path / "out", tiny_chapter, clip) == []
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_a_clip_is_split_from_720p_up_when_cores_are_free():
    base = RenderJob(clip="dropout", quality="high")
    assert steps.splits(base, 2) and steps.splits(replace(base, quality="medium"), 4)
    assert not steps.splits(base, 1)
    for whole in (replace(base, quality="low"), replace(base, quality="tiny"), replace(base, voice="espeak"),
                  replace(base, step=2), replace(base, dry_run=True), replace(base, format="png")):
        assert not steps.splits(whole, 2)


def test_a_clip_on_n_cores_is_n_runs_of_steps_of_even_seconds():
    """One job a step cost 2.5-3.5 s of CPU each (bench/README.md): a clip on n cores is n runs of
    consecutive steps, each ending where the running total passes its share; every step once."""
    assert steps.runs([5, 5, 5, 5], 2) == [range(1, 3), range(3, 5)]
    assert steps.runs([1, 1, 10, 1, 1, 1], 2) == [range(1, 4), range(4, 7)]
    assert steps.runs([30, 1, 1], 3) == [range(1, 2), range(2, 3), range(3, 4)]     # never an empty run
    assert steps.runs([1, 2], 4) == steps.runs([1, 2], None) == [range(1, 2), range(2, 3)]
    for seconds in ([3, 1, 4, 1, 5, 9, 2, 6], [1] * 17, [9, 1, 1, 1, 1, 1, 1]):
        for parts in (2, 3, 5):
            found = steps.runs(seconds, parts)
            assert len(found) == min(parts, len(seconds)) and [k for r in found for k in r] == list(range(1, len(seconds) + 1))


def test_a_chapters_clip_task_renders_whole(monkeypatch):
    """The chapter chooses which clips are step jobs; a clip it keeps whole runs render.py with
    STEP_JOBS=off (without it each of the two render.py processes split itself again on the two
    cores: four renders at once). A step job's own process is started as it is."""
    seen = []

    def run(command, **options):
        seen.append(options.get("env"))
        return subprocess.CompletedProcess(command, 0, "", "")
    monkeypatch.setattr(executor.subprocess, "run", run)
    task = executor.Task("dropout", "dropout", "s", ("dropout", "--quality", "high"), "/tmp", (), "m", "", "zh")
    executor.run_task(task)
    executor.run_task(replace(task, entry="scenes.pipeline.run.steps"))
    assert seen[0]["STEP_JOBS"] == "off" and seen[1] is None
