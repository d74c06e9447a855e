"""No idle core at the chapter's end: the longest clips first, and a clip left alone gives the
steps it has not begun to the free core (scenes/pipeline/run/steal.py); the clip joined from
its parts is the one-process render, byte for byte."""
from pathlib import Path

from scenes.pipeline.run import chapter, executor, steal, steps
from test_steps import differences

# book order: 71 s, 56 s, 103 s of video; the longest first is causal-mask, weighted-average, score-grid
CLIPS = ["weighted-average", "score-grid", "causal-mask"]


def order_problems(out: Path) -> list[str]:
    """What is out of order in the 1080p chapter's list of renders (two cores)."""
    chosen = {c: s for c, s in chapter.specs().items() if c in CLIPS}
    out.mkdir(parents=True)
    tasks = chapter.tasks_for(out, "high", True, clips=chosen)
    ordered, owners = chapter.as_step_jobs(tasks, True, "normal", None, 2)
    try:
        clips = [owners[t.key][0].label for t in ordered if t.key in owners]
        planned = {owners[t.key][0].label: sum(owners[t.key][1].seconds) for t in ordered if t.key in owners}
        found = [] if clips == sorted(planned, key=lambda c: -planned[c]) else [f"clips in order {clips}: {planned}"]
        found += [] if len(clips) == len(CLIPS) else [f"{len(clips)} step jobs for {len(CLIPS)} clips"]
        cards = [i for i, t in enumerate(ordered) if t.key not in owners]
        found += [] if min(cards) > max(i for i, t in enumerate(ordered) if t.key in owners) else ["a title card before a clip"]
        return found
    finally:
        for _, part in owners.values():
            steps.discard(part)


def test_the_longest_clips_render_first(tmp_path, monkeypatch):
    monkeypatch.delenv("STEP_JOBS", raising=False)
    plans, made = chapter.plans, {}          # the clips planned once for both lists

    def planned(jobs, *args):
        return made.get("jobs") or made.setdefault("jobs", plans(jobs, *args))
    monkeypatch.setattr(chapter, "plans", planned)
    assert order_problems(tmp_path / "a") == []
    # planted: the clips in book order
    monkeypatch.setattr(chapter, "longest_first", lambda planned: [t for _, t in planned])
    assert any(p.startswith("clips in order") for p in order_problems(tmp_path / "b"))


def test_a_job_gives_away_the_steps_it_has_not_begun_where_that_pays():
    seconds = [10.0, 10.0, 10.0, 10.0]
    assert steal.give(seconds, 1, 5.0, 4, start=0) == 2          # 5 + 10 against 20
    assert steal.give(seconds, 1, 5.0, 4, start=4) == 2          # 15 against 24
    assert steal.give(seconds, 3, 10.0, 4) == 3                  # step 4 to a new job: 10 against 14
    assert steal.give(seconds, 4, 10.0, 4) == 4                  # on its last step: nothing to give
    assert steal.give([10.0, 3.0], 1, 2.0, 2) == 2               # it draws the last 3 s sooner than a new job starts
    assert steal.give(seconds, 2, 10.0, 3) == 2                  # its own last step (3), not the clip's, is the end


def run_lone(out: Path, monkeypatch) -> list[str]:
    """dropout alone in a tiny chapter on two processes, split at every quality; the renders run."""
    monkeypatch.setenv("STEP_JOBS", "on")
    ran: list[str] = []

    def run(task):
        ran.append(task.label)
        return executor.run_task(task)
    monkeypatch.setattr(executor.LocalExecutor.__init__, "__defaults__", (run,))
    chapter.render_chapter("tiny", out, jobs=2, clips=["dropout"])
    return [r for r in ran if r.startswith("dropout ")]


def test_a_lone_clip_gives_its_steps_to_the_free_core(tmp_path, monkeypatch, tiny_chapter):
    """dropout starts as one job (steps 1-5) beside its title card; once the card is done the
    free process is given the steps dropout has not begun; the joined clip is the whole render's."""
    ran = run_lone(tmp_path / "a", monkeypatch)
    assert ran[0] == "dropout steps 1-5" and len(ran) >= 2, ran
    assert differences(tmp_path / "a", tiny_chapter, "dropout") == []


def test_planted_never_asked_the_lone_clip_runs_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(steps.Split, "ask", lambda self, task: None)
    assert run_lone(tmp_path / "b", monkeypatch) == ["dropout steps 1-5"]


FORKED = """
import gc, sys
import numpy as np, av
from scenes.pipeline.run import chapter
gc.disable()
class Held: pass
held = Held(); held.me = held                  # a drawn frame and its converter, left for the collector
held.frame = av.VideoFrame.from_ndarray(np.zeros((144, 256, 4), np.uint8), format="rgba")
held.yuv = held.frame.reformat(format="yuv420p")
del held
def collect(n):
    gc.collect()
    return n
if sys.argv[1] == "planted":                   # forked with nothing frozen
    gc.freeze = gc.unfreeze = lambda: None
print(chapter.forked_map(collect, [(1,), (2,)], 2))
"""


def plans_finish(how: str, seconds: float) -> bool:
    """Whether forked_map's children, forked from a process holding a drawn frame's garbage, finish."""
    import os
    import signal
    import subprocess
    import sys
    from contextlib import suppress
    proc = subprocess.Popen([sys.executable, "-c", FORKED, how], cwd=Path(__file__).resolve().parents[2],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        return proc.communicate(timeout=seconds)[0].strip() == "[1, 2]"
    except subprocess.TimeoutExpired:
        return False
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)   # the children too (a hung one never ends)
        proc.wait()


def test_the_plans_children_never_free_what_they_inherit():
    assert plans_finish("fixed", 60)
    assert not plans_finish("planted", 5)         # planted: nothing frozen: a child hangs
