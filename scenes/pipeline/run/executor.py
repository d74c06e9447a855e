"""Where the chapter's render jobs run. A Task is one render (a clip or a title card of one
language and quality), independent of the others and addressed by its stamp
(scenes/pipeline/jobs/stamps.py); an executor runs a list of them and reports each one done:

  LocalExecutor(jobs)              render.py processes on this machine, `jobs` at once (the default)
  DaskExecutor(scheduler=ADDR)     on a dask.distributed cluster: `dask scheduler` and `dask worker`s
  DaskExecutor(workers=N)          on a LocalCluster of N worker processes started here

Every task runs `render.py` in a process of its own (on a dask worker, a child of the worker
that dies with it). A render writes in a private folder and moves its files into place whole,
so a worker that dies mid-task leaves no partial file (the next render into that folder removes
the dead one's work folder); dask runs the task again elsewhere, and a render killed by a signal
under a live worker is run again by run_task.
"""
from __future__ import annotations

import concurrent.futures as futures
import ctypes
import logging
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

ROOT = Path(__file__).resolve().parents[3]
ATTEMPTS = 3            # a render killed by a signal (not Ctrl-C) is run up to this many times
PR_SET_PDEATHSIG = 1
RENDER_MEMORY = 1.5e9     # bytes one 1080p render may need at its peak (bench/README.md)


@dataclass(frozen=True)
class Task:
    """One render of the chapter: render.py's arguments, its folder, its content address."""
    label: str                  # for messages: "dropout.en", "title dropout.en"
    key: str                    # its stamp's name in OUT/.stamps/
    stamp: str                  # the hash of everything that shapes its files
    args: tuple[str, ...]       # render.py's arguments
    out: str                    # the folder it writes into (absolute; shared with the workers)
    files: tuple[str, ...]      # what it leaves there, relative to out
    module: str                 # the module whose files (through its imports) shape it
    code: str                   # those files and the catalogue, hashed where the stamp was made
    lang: str
    entry: str = ""             # a module to run (python -m ENTRY ARGS) instead of render.py


@dataclass(frozen=True)
class Result:
    code: int                   # render.py's exit code (2: the clip refused its input)
    message: str                # the last line it wrote to stderr
    checkout: str = ""          # the files that shaped it, hashed where it ran (Task.code)


class TaskFailed(RuntimeError):
    def __init__(self, task: Task, result: Result) -> None:
        super().__init__(f"{task.label}: {result.message}")
        self.task, self.result = task, result


class Executor(Protocol):
    def run(self, tasks: list[Task], done: Callable[[Task, Result], None]) -> None:
        """Run every task; call done(task, result) here as each one ends well; raise TaskFailed at
        the first that does not (the tasks not yet started are dropped)."""

    def close(self) -> None: ...


def job_count() -> int:
    """As many renders at once as there are cores, and memory for each."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        by_memory = max(1, int(pages // RENDER_MEMORY))
    except (ValueError, OSError, AttributeError):
        by_memory = cores
    return max(1, min(cores, by_memory))


def die_with_parent() -> None:
    """In the render's process, before it starts: end it when the process that started it ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def checkout(task: Task) -> str:
    """The files that shape the task, hashed here, as it starts (the client stamps the render only
    when they are the ones its stamp was made from: a file edited mid-run, or a worker on another
    commit, leaves it unstamped, to be made again)."""
    from scenes.pipeline.jobs.stamps import catalogue_hash, code_hash
    return code_hash(task.module) + catalogue_hash(task.lang)


def run_task(task: Task) -> Result:
    """Run one task here: render.py in a child process that dies with this one."""
    code = checkout(task) if task.code else ""
    program = ["-m", task.entry] if task.entry else [str(ROOT / "render.py")]
    command = [sys.executable, *program, *task.args]
    linux = sys.platform.startswith("linux")
    # A clip task renders whole: the chapter has chosen (chapter.as_step_jobs) which clips are its
    # step jobs; a render.py in each of its processes splitting again put 2 x cores renders on the cores.
    env = None if task.entry else {**os.environ, "STEP_JOBS": "off"}
    for _ in range(ATTEMPTS):
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              preexec_fn=die_with_parent if linux else None, env=env)
        if done.returncode >= 0 or done.returncode == -signal.SIGINT:
            break
    lines = done.stderr.strip().splitlines() or [f"exit {done.returncode}, no message"]
    return Result(done.returncode, lines[-1].removeprefix("Error: "), code)


class LocalExecutor:
    """render.py processes on this machine, `jobs` at once."""

    POLL = 0.25         # seconds between asks of `idle` while a core is free

    def __init__(self, jobs: int, run: Callable[[Task], Result] = run_task) -> None:
        self.jobs, self.run_one = jobs, run

    def run(self, tasks: list[Task], done: Callable[[Task, Result], None],
            idle: Callable[[list[Task], int], list[Task]] | None = None) -> None:
        """The tasks in order, `jobs` at once. idle(running, waiting), asked while a process is
        free (every POLL seconds), gives tasks to run next (a step job's steps given away)."""
        pending = list(tasks)
        with futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            running: dict[futures.Future, Task] = {}
            while pending or running:
                if idle is not None and len(running) < self.jobs:
                    pending[:0] = idle(list(running.values()), len(pending))
                while pending and len(running) < self.jobs:
                    task = pending.pop(0)
                    running[pool.submit(self.run_one, task)] = task
                if not running:
                    continue
                poll = self.POLL if idle is not None and len(running) < self.jobs else None
                finished, _ = futures.wait(running, timeout=poll, return_when=futures.FIRST_COMPLETED)
                for job in finished:
                    task, result = running.pop(job), job.result()
                    if result.code:
                        raise TaskFailed(task, result)
                    done(task, result)

    def close(self) -> None:
        pass


class DaskExecutor:
    """The tasks on a dask.distributed cluster: the scheduler at `scheduler` (tcp://HOST:PORT),
    or a LocalCluster of `workers` processes of one thread each. A task whose worker dies is
    given to another worker by the scheduler (distributed.scheduler.allowed-failures times)."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None,
                 run: Callable[[Task], Result] = run_task) -> None:
        from distributed import Client, LocalCluster
        logging.getLogger("distributed").setLevel(logging.ERROR)    # its news of workers: not ours to print
        self.run_one, self.cluster = run, None
        if scheduler:
            # how long to try: dask's distributed.comm.timeouts.connect (30 s; env DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)
            self.client = Client(scheduler, set_as_default=False)
        else:
            self.cluster = LocalCluster(n_workers=workers or 1, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster, set_as_default=False)

    def run(self, tasks: list[Task], done: Callable[[Task, Result], None]) -> None:
        from distributed import as_completed
        from distributed.scheduler import KilledWorker
        submitted: dict[Any, Task] = {}
        for task in tasks:      # the stamp is the key: the same render asked twice runs once
            submitted[self.client.submit(self.run_one, task, key=f"render-{task.key}-{task.stamp}")] = task
        try:
            for future in as_completed(list(submitted), loop=self.client.loop):
                task = submitted[future]
                try:
                    result = future.result()
                except KilledWorker as err:
                    raise TaskFailed(task, Result(1, f"its workers died while rendering it ({err})")) from None
                except Exception as err:        # raised on the worker (its checkout unreadable there)
                    raise TaskFailed(task, Result(1, f"{type(err).__name__}: {err}")) from None
                if result.code:
                    raise TaskFailed(task, result)
                done(task, result)
        finally:
            self.client.cancel(list(submitted))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
