"""Render jobs behind one executor: a dask LocalCluster of two worker processes renders the
same files as the local processes, byte for byte, even when a worker dies mid-job; a render
that dies leaves no partial file in place, and the next render removes its work folder."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from scenes.pipeline.run import executor
from scenes.pipeline.jobs import leftovers
from scenes.pipeline.run.chapter import render_variants, variants

CLIPS = ["weighted-average"]        # the cheapest clip: a chapter of one section, in two languages


def files_of(folder):
    """Every file under folder, hidden ones included: relative path -> bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def partial_movie(out):
    """A Manim partial movie file in a render's work folder: the render is under way."""
    return next(Path(out).glob(".render-*/videos/*/partial_movie_files/*/*.mp4"), None)


@pytest.mark.sampled(1, group="a dask worker killed mid-render")
def test_a_cluster_of_two_workers_writes_the_local_files_though_one_dies_mid_job(tmp_path):
    local, spread, marker = tmp_path / "local", tmp_path / "dask", tmp_path / "killed"
    render_variants(["zh", "en"], ["tiny"], local, clips=CLIPS)

    def dies_once(task):
        """The first clip render: started, then its worker killed while Manim writes its frames."""
        import threading
        from scenes.pipeline.run.executor import run_task
        if task.args[0] != "title-card" and not marker.exists():
            marker.write_text(str(os.getpid()))
            threading.Thread(target=run_task, args=(task,), daemon=True).start()
            deadline = time.monotonic() + 120
            while partial_movie(task.out) is None and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGKILL)
        return run_task(task)

    cluster = executor.DaskExecutor(workers=2, run=dies_once)
    try:
        assert len(cluster.client.scheduler_info()["workers"]) == 2
        render_variants(["zh", "en"], ["tiny"], spread, executor=cluster, clips=CLIPS)
        pids = set(cluster.client.run(os.getpid).values())
    finally:
        cluster.close()
    killed = int(marker.read_text())
    assert killed not in pids                       # that worker died; the job ran again elsewhere
    theirs, ours = files_of(spread), files_of(local)
    assert sorted(theirs) == sorted(ours)           # no partial file, no work folder left
    assert [name for name in ours if theirs[name] != ours[name]] == []
    assert {"chapter04.mp4", "chapter04.en.mp4", "weighted-average.en.mp4", ".titles/weighted-average.mp4"} <= set(ours)


def test_a_render_killed_mid_way_leaves_no_file_and_the_next_render_removes_its_folder(tmp_path):
    """The planted crash: a render killed while it writes frames leaves its work folder (the
    check sees it) and nothing in place; the next render into the folder removes that folder,
    and keeps a live process's and another host's."""
    out = tmp_path / "out"
    out.mkdir()
    render = subprocess.Popen([sys.executable, str(ROOT / "render.py"), CLIPS[0], "--quality", "tiny",
                               "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while partial_movie(out) is None and time.monotonic() < deadline and render.poll() is None:
        time.sleep(0.05)
    render.send_signal(signal.SIGKILL)
    render.wait(60)
    left = [p.name for p in out.iterdir()]
    assert len(left) == 1 and left[0].startswith(f".render-{CLIPS[0]}+{render.pid}+{leftovers.HOST}+")
    live = out / f".render-x{leftovers.mark()}abc"
    elsewhere = out / f".render-x+{render.pid}+another_host+abc"
    live.mkdir()
    elsewhere.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "render.py"), CLIPS[0], "--dry-run", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [live.name, elsewhere.name, f"{CLIPS[0]}.numbers.json", f"{CLIPS[0]}.script.md"])


def test_a_work_folder_name_is_one_latex_can_compile_in(tmp_path):
    """Manim runs LaTeX inside the work folder: no TeX-special character (~ # $ % & ^ { } \\) in it."""
    import re
    folder = leftovers.work_dir(tmp_path, "render", "causal-mask")
    assert re.fullmatch(r"\.render-causal-mask\+\d+\+[A-Za-z0-9_]+\+[a-z0-9_]+", folder.name), folder.name
    assert leftovers.OWNED.search(folder.name).groups() == (str(os.getpid()), leftovers.HOST)


def test_a_render_killed_by_a_signal_is_run_again_and_a_refusal_is_not(monkeypatch):
    codes = [-signal.SIGKILL, 0, 2]
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, codes[len(calls) - 1], "", "Error: the last line\n")
    monkeypatch.setattr(executor.subprocess, "run", fake_run)
    monkeypatch.setattr(executor, "checkout", lambda task: "code")
    task = executor.Task("x", "x", "stamp", ("x",), "/tmp", (), "m", "code", "zh")
    assert executor.run_task(task) == executor.Result(0, "the last line", "code") and len(calls) == 2
    assert executor.run_task(task).code == 2 and len(calls) == 3


def test_one_quality_writes_into_out_several_each_into_its_own_folder():
    out = Path("media")
    assert [(v.lang, v.out) for v in variants(out, ["zh", "en"], ["high"])] == [("zh", out), ("en", out)]
    assert [(v.quality, v.out) for v in variants(out, ["zh"], ["high", "4k"])] == [
        ("high", out / "high"), ("4k", out / "4k")]


@pytest.mark.parametrize("args, option", [
    (["--lang", "zh,fr"], "--lang"),
    (["--lang", "zh,"], "--lang"),
    (["--quality", "high,8k"], "--quality"),
    (["--scheduler", "localhost:8786"], "--scheduler"),
    (["--scheduler", "tcp://localhost:0"], "--scheduler"),
    (["--scheduler", "tcp://localhost:70000"], "--scheduler"),
    (["--scheduler", "http://localhost:8786"], "--scheduler"),
    (["--workers", "0"], "--workers"),
    (["--workers", "two"], "--workers"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "--scheduler"),
])
def test_bad_values_of_the_chapter_options_are_one_line_exit_2(tmp_path, args, option):
    from conftest import cli
    code, out = cli("chapter", *args, "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and option in out, out
    assert not (tmp_path / "o").exists()


def test_a_scheduler_that_does_not_answer_is_bad_input_naming_it(tmp_path, monkeypatch):
    import socket
    from conftest import cli
    with socket.socket() as s:          # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    import dask
    dask.config.refresh()
    try:
        code, out = cli("chapter", "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / "o"))
    finally:
        monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
        dask.config.refresh()
    assert code == 2 and len(out.strip().splitlines()) == 1 and "--scheduler" in out and str(port) in out, out
    assert not (tmp_path / "o").exists()
