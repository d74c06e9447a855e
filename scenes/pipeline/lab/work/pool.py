"""Where the lab's stills are drawn: a pool of warm worker processes on this machine (one a core
unless told), each as isolated as one worker alone (worker.py). A worker that crashes, hangs or
passes the time limit is restarted, that one only, and its request is drawn again by the next
free worker, once; a second failure is reported. The cluster's pool (cluster.py) answers the same
two calls: `capacity` (how many at once) and `draw(request, folder)`.
"""
from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from scenes.pipeline.lab.work.worker import StillWorker, WorkerGone


class LocalPool:
    def __init__(self, root: Path, count: int, timeout: float, theme: str = "dark") -> None:
        self.workers = [StillWorker(root, root / f".worker-{n}.log", timeout, theme) for n in range(count)]
        self.idle: asyncio.Queue[StillWorker] = asyncio.Queue()
        for worker in self.workers:
            self.idle.put_nowait(worker)
        self.drawn: Counter[int] = Counter()       # requests answered, by the worker's place in the pool

    @property
    def capacity(self) -> int:
        return len(self.workers)

    async def start(self) -> None:
        """The slow imports, in every worker at once, before the first edit."""
        await asyncio.gather(*(w.start() for w in self.workers), return_exceptions=True)

    def view(self) -> list[dict[str, Any]]:
        return [{"pid": w.pid, "address": None, "drawn": self.drawn[n]} for n, w in enumerate(self.workers)]

    async def draw(self, request: dict, folder: Path) -> dict[str, Any]:
        """One request on the next free worker: its answer, or WorkerGone after two tries."""
        gone: WorkerGone | None = None
        for _ in range(2):
            worker = await self.idle.get()
            try:
                answer = await worker.ask(dict(request, out=str(folder)))
                self.drawn[self.workers.index(worker)] += 1
                self.idle.put_nowait(worker)
                return answer
            except WorkerGone as err:
                gone = err
                shutil.rmtree(folder, ignore_errors=True)          # whatever it had begun
                asyncio.create_task(self.restart(worker))
            except BaseException:
                self.idle.put_nowait(worker)
                raise
        assert gone is not None
        raise gone

    async def restart(self, worker: StillWorker) -> None:
        """A fresh process, warm before it takes the next request."""
        try:
            await worker.start()
        except Exception:                 # it starts again with its next request
            pass
        finally:
            self.idle.put_nowait(worker)

    async def stop(self) -> None:
        await asyncio.gather(*(w.stop() for w in self.workers), return_exceptions=True)
