"""Stills on a dask.distributed cluster (`render.py lab --scheduler tcp://HOST:PORT`): each dask
worker keeps a pool of warm worker processes (pool.py: Manim imported once, one a thread of the
dask worker), draws into a folder of its own and sends the files back; the lab writes them into
its folder whole (each written, then renamed) and serves them only once all are there. A dask
worker lost mid-still: the scheduler gives the still to another. The server answers the numbers
(/api/compute) itself.
"""
from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from scenes.pipeline.lab.work.pool import LocalPool

POOLS: dict[str, LocalPool] = {}            # on a dask worker: its warm workers, by theme


def here(theme: str, timeout: float, dask_worker: Any) -> LocalPool:
    """This dask worker's warm workers, one a thread (made at the first request)."""
    if theme not in POOLS:
        root = Path(tempfile.gettempdir()) / f"lab-worker-{os.getpid()}-{theme}"
        root.mkdir(parents=True, exist_ok=True)
        POOLS[theme] = LocalPool(root, max(1, dask_worker.state.nthreads), timeout, theme)
    return POOLS[theme]


async def warm_here(theme: str, timeout: float, dask_worker: Any = None) -> int:
    """Start this dask worker's warm workers (Client.run, at the lab's start)."""
    await here(theme, timeout, dask_worker).start()
    return os.getpid()


async def draw_here(request: dict, theme: str, timeout: float) -> dict[str, Any]:
    """One request on this dask worker: the answer, the files it drew (name: bytes), who drew it."""
    from distributed import get_worker
    pool = here(theme, timeout, get_worker())
    folder = Path(tempfile.mkdtemp(prefix="still-", dir=pool.workers[0].root))
    try:
        answer = await pool.draw(request, folder)
        files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} if folder.is_dir() else {}
        return {"answer": answer, "files": files, "worker": get_worker().address}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class ClusterPool:
    def __init__(self, address: str, timeout: float, theme: str = "dark") -> None:
        self.address, self.timeout, self.theme = address, timeout, theme
        self.client: Any = None
        self.ready = asyncio.Event()
        self.threads: dict[str, int] = {}           # the cluster's workers and their threads
        self.drawn: Counter[str] = Counter()        # stills drawn, by worker address

    @property
    def capacity(self) -> int:
        return max(1, sum(self.threads.values()))

    async def start(self) -> None:
        from distributed import Client
        logging.getLogger("distributed").setLevel(logging.ERROR)
        self.client = await Client(self.address, asynchronous=True, set_as_default=False)
        await self.refresh()
        try:
            await self.client.run(warm_here, self.theme, self.timeout)
        finally:                        # a worker that failed to warm starts with its first still
            self.ready.set()
        while True:                     # workers come and go
            await asyncio.sleep(2)
            await self.refresh()

    async def refresh(self) -> None:
        info = await self.client.scheduler.identity()
        self.threads = {a: int(w.get("nthreads", 1)) for a, w in info.get("workers", {}).items()}

    def view(self) -> list[dict[str, Any]]:
        return [{"pid": None, "address": a, "drawn": self.drawn[a]} for a in self.threads] if self.ready.is_set() else []

    async def draw(self, request: dict, folder: Path) -> dict[str, Any]:
        await asyncio.wait_for(self.ready.wait(), 120)
        reply = await self.client.submit(draw_here, request, self.theme, self.timeout, pure=False, retries=1)
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in reply["files"].items():
            if "/" in name or name.startswith("."):
                continue
            part = folder / f".{name}.part"
            part.write_bytes(data)
            os.replace(part, folder / name)
        self.drawn[reply["worker"]] += 1
        return dict(reply["answer"])

    async def stop(self) -> None:
        if self.client is not None:
            await self.client.close()


def render_here(args: list[str], cancel: str, limit: float) -> dict[str, Any]:
    """A video on this dask worker: render.py ARGS into a folder of its own, stopped when the lab's
    Event `cancel` is set or past `limit` s; its exit code, files (name: bytes) and last log line."""
    import signal
    import subprocess
    import sys
    import time
    from distributed import Event
    from scenes.pipeline.lab.jobs import RENDER
    folder = Path(tempfile.mkdtemp(prefix="lab-video-"))
    stop = Event(cancel)
    try:
        with open(folder / ".render.log", "wb") as log:
            proc = subprocess.Popen([sys.executable, str(RENDER), *args, "--out", str(folder)], cwd=str(folder),
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
            started = time.monotonic()
            while proc.poll() is None:
                try:
                    proc.wait(0.5)
                except subprocess.TimeoutExpired:
                    pass
                if proc.poll() is None and (stop.is_set() or time.monotonic() - started > limit):
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")}
        lines = [ln for ln in (folder / ".render.log").read_text("utf-8", "replace").splitlines() if ln.strip()]
        return {"code": proc.returncode, "files": files, "log": "\n".join(lines[-20:])}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class RemoteRender:
    """A video render on the cluster, as the video pool sees a render's process: `returncode`
    once it ends, `wait()`, `stop()`; its files written into `folder` whole, its log beside them."""

    def __init__(self, pool: ClusterPool, args: list[str], folder: Path, limit: float) -> None:
        self.pool, self.folder = pool, folder
        self.returncode: int | None = None
        self.cancel = f"lab-cancel-{folder.name}-{os.urandom(4).hex()}"
        self.future = pool.client.submit(render_here, args, self.cancel, limit, pure=False, retries=1)
        self.collected = asyncio.create_task(self.collect())

    async def collect(self) -> None:
        try:
            reply = await self.future
        except Exception as err:        # its workers died, or it was cancelled
            (self.folder / "render.log").write_text(f"Error: the cluster's render failed: {type(err).__name__}: {err}")
            self.returncode = 1
            return
        (self.folder / "render.log").write_text(reply["log"], "utf-8")
        for name, data in reply["files"].items():
            if "/" not in name and not name.startswith("."):
                part = self.folder / f".{name}.part"
                part.write_bytes(data)
                os.replace(part, self.folder / name)
        self.returncode = int(reply["code"])

    async def wait(self) -> int | None:
        await asyncio.shield(self.collected)
        return self.returncode

    def stop(self) -> None:
        from distributed import Event
        asyncio.create_task(Event(self.cancel, client=self.pool.client).set())
