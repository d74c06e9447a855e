"""The lab's video pool: each render is `python render.py CLIP --opt=value ... --theme THEME --out LAB/KEY`
(with `--voice LAB/KEY/voice` when it uses the recording page's takes) in its own process
group (a crash or a kill stays there), at most N at once, the rest queued with a position;
progress is Manim's finished animations (its partial movie files) over the clip's plays,
which a warm worker counts in a dry build while the render starts. With a dask cluster
(cluster.py) a video renders on one of its workers and its files come back whole (no progress
is seen until then); a voiced one renders here, where its takes are. A cancel at any moment stops
the render: one asked for before its process exists is killed as soon as it does.
Each page has at most PER_SESSION videos waiting."""
from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sys
import time

from scenes.pipeline.lab.jobs import RENDER, Busy, Job, Store
from scenes.pipeline.lab.work.cluster import ClusterPool, RemoteRender
from scenes.pipeline.lab.work.queue import Stills


PER_SESSION = 2            # videos one page may have waiting


class Videos:
    def __init__(self, store: Store, stills: Stills, jobs: int, max_queue: int = 64,
                 time_limit: float = 1800.0, theme: str = "dark", cluster: ClusterPool | None = None) -> None:
        self.store, self.stills, self.slots, self.theme, self.cluster = store, stills, jobs, theme, cluster
        self.max_queue, self.time_limit = max_queue, time_limit
        self.jobs: dict[str, Job] = {}
        self.queue: list[str] = []
        self.running: set[str] = set()

    def submit(self, job: Job, session: str = "page") -> Job:
        """Queue `job`, or join the identical one already queued, running or done."""
        old = self.jobs.get(job.key)
        if old is not None and (old.state in ("queued", "running") or
                                (old.state == "done" and self.store.file(job.key, "mp4"))):
            return old
        if old is None and job.key in self.store.meta and self.store.file(job.key, "mp4"):
            job.state, job.progress = "done", 1.0           # rendered before this server started
            self.jobs[job.key] = job
            return job
        if len(self.queue) >= self.max_queue:
            raise Busy(f"{len(self.queue)} videos are already waiting: try again later")
        if sum(self.jobs[k].session == session for k in self.queue) >= PER_SESSION:
            raise Busy(f"{PER_SESSION} of your videos are already waiting: cancel one or wait for it")
        job.session = session
        self.jobs[job.key] = job
        self.queue.append(job.key)
        self.kick()
        return job

    def position(self, key: str) -> int | None:
        return self.queue.index(key) + 1 if key in self.queue else None

    def view(self, key: str) -> dict | None:
        job = self.jobs.get(key)
        return job.view(self.position(key)) if job else None

    def busy(self) -> set[str]:
        return set(self.queue) | self.running

    def kick(self) -> None:
        while self.queue and len(self.running) < self.slots:
            key = self.queue.pop(0)
            self.running.add(key)
            self.jobs[key].state = "running"
            asyncio.create_task(self.run(self.jobs[key]))

    async def cancel(self, key: str) -> dict | None:
        job = self.jobs.get(key)
        if job is None:
            return None
        if job.state == "queued":
            self.queue.remove(key)
            job.state = "cancelled"
            self.store.forget(key)
        elif job.state == "running":
            job.state = "cancelled"
            self.kill(job)
        return job.view(None)

    def started(self, job: Job) -> None:
        """A render whose process has just started: cancelled meanwhile, it ends now."""
        if job.state != "running":
            self.kill(job)

    def kill(self, job: Job) -> None:
        if isinstance(job.proc, RemoteRender):
            job.proc.stop()
        elif job.proc is not None and job.proc.returncode is None:
            try:
                os.killpg(job.proc.pid, signal.SIGKILL)      # the render and anything it started
            except ProcessLookupError:
                pass

    async def run(self, job: Job) -> None:
        folder = self.store.folder(job.key)
        try:
            self.store.forget(job.key)                         # a failed or cancelled earlier try
            folder.mkdir(parents=True)
            voice = ["--voice", str(job.voice(folder / "voice"))] if job.voice else []
            args = [job.clip, *job.args, *voice, "--quality", job.quality, "--format", "mp4", "--lang", job.lang,
                    "--theme", self.theme]
            if self.cluster is not None and not voice:         # the takes are here: a voiced video renders here
                await asyncio.wait_for(self.cluster.ready.wait(), 120)
                job.proc = RemoteRender(self.cluster, args, folder, self.time_limit)
            else:
                with open(folder / "render.log", "wb") as log:
                    job.proc = await asyncio.create_subprocess_exec(
                        sys.executable, str(RENDER), *args, "--out", str(folder), cwd=str(self.store.root),
                        stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
            self.started(job)
            planner = asyncio.create_task(self.plan(job))
            started = time.monotonic()
            while job.proc.returncode is None:
                try:
                    await asyncio.wait_for(job.proc.wait(), 0.5)
                except asyncio.TimeoutError:
                    pass
                if job.plays:
                    made = sum(1 for _ in folder.glob(".render-*/**/partial_movie_files/**/*.mp4"))
                    job.progress = max(job.progress, min(0.99, made / job.plays))
                if time.monotonic() - started > self.time_limit:
                    if job.state == "running":
                        job.state, job.error = "failed", f"the render took longer than {self.time_limit:.0f} s"
                    self.kill(job)
            planner.cancel()
            await job.proc.wait()
            if job.state == "running" and job.proc.returncode == 0:
                self.store.register(job.key, job.clip, job.lang, "video")
                job.state, job.progress = "done", 1.0
            elif job.state == "running":
                job.state = "failed"
                job.error = last_line(folder / "render.log") or f"the render exited with {job.proc.returncode}"
        except Exception as err:       # never the server's end: the job fails, the pool goes on
            job.state, job.error = "failed", f"{type(err).__name__}: {err}"
            if job.proc is not None:
                self.kill(job)
        finally:
            if job.state != "done":
                self.store.forget(job.key)
            job.proc = None
            self.running.discard(job.key)
            self.forget_old()
            self.store.trim(self.busy() | set(self.stills.inflight))
            self.kick()

    def forget_old(self, keep: int = 500) -> None:
        """Past `keep` records, the oldest finished ones are dropped (their files stay, by key)."""
        done = [k for k, j in self.jobs.items() if j.state in ("done", "failed", "cancelled")]
        for key in done[:max(0, len(self.jobs) - keep)]:
            del self.jobs[key]

    async def plan(self, job: Job) -> None:
        """The clip's number of plays, from a warm worker when no still is waiting."""
        for _ in range(50):                     # the stills first, for up to 10 s
            if not self.stills.pending:
                break
            await asyncio.sleep(0.2)
        if job.state != "running":
            return
        key = hashlib.sha256(f"plan {job.key}".encode()).hexdigest()[:32]
        answer = await self.stills.get(key, {"op": "plan", "clip": job.clip, "lang": job.lang, "given": job.given},
                                       f"plan{job.key[:16]}", made=None)
        job.plays = int(answer.get("plays") or 0) or None

    async def close(self) -> None:
        self.queue.clear()
        for key in list(self.running):
            job = self.jobs[key]
            job.state = "cancelled"
            self.kill(job)


def last_line(path: os.PathLike) -> str:
    """The render's one-line error (render.py prints `Error: ...` last)."""
    try:
        lines = [ln for ln in open(path, encoding="utf-8", errors="replace").read().splitlines() if ln.strip()]
    except OSError:
        return ""
    errors = [ln for ln in lines if ln.startswith("Error:")]
    return (errors or lines or [""])[-1][:300]
