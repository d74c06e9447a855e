"""The lab's still queue, with turns: each page (a session) has at most one still waiting; a newer
edit takes the place of its own older one (which answers "superseded" at once), so the queue
holds one entry a student and is served in turn, as many at once as the pool draws. The same
request from several students is one entry that answers them all (the key is the request).
"""
from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass, field
from typing import Any, Protocol

from scenes.pipeline.lab.jobs import Busy, Store
from scenes.pipeline.lab.work.worker import WorkerGone

SUPERSEDED = {"superseded": True}


class Pool(Protocol):
    @property
    def capacity(self) -> int: ...

    async def draw(self, request: dict, folder: Any) -> dict[str, Any]: ...


@dataclass(eq=False)
class Entry:
    key: str
    request: dict
    made: str | None                      # the file it leaves (None: an answer only, a video's plan)
    future: asyncio.Future
    waiters: set[str] = field(default_factory=set)


class Stills:
    def __init__(self, pool: Pool, store: Store, max_queued: int = 512) -> None:
        self.pool, self.store, self.max_queued = pool, store, max_queued
        self.queue: list[Entry] = []               # in turn order
        self.running: dict[str, Entry] = {}
        self.waiting: dict[str, Entry] = {}        # each session's entry in the queue
        self.served = 0                            # entries taken from the queue (the tests' clock)

    @property
    def inflight(self) -> set[str]:
        return {e.key for e in self.queue} | set(self.running)

    @property
    def pending(self) -> int:
        return len(self.queue) + len(self.running)

    def position(self, session: str) -> int | None:
        entry = self.waiting.get(session)
        return self.queue.index(entry) + 1 if entry is not None else None

    async def get(self, key: str, request: dict, session: str, made: str | None = "png") -> dict:
        """The pool's answer for `request` ({} once KEY holds its `made` file)."""
        place = self.leave(session, key)
        if made is not None and self.store.file(key, made):
            return {}
        entry = self.running.get(key) or next((e for e in self.queue if e.key == key), None)
        if entry is None:
            if len(self.queue) >= self.max_queued:
                raise Busy("the lab is busy: try again in a moment")
            entry = Entry(key, request, made, asyncio.get_running_loop().create_future())
            self.queue.insert(len(self.queue) if place is None else place, entry)
        entry.waiters.add(session)
        if key not in self.running:
            self.waiting[session] = entry
        self.dispatch()
        return dict(await asyncio.shield(entry.future))

    def leave(self, session: str, key: str) -> int | None:
        """The session's waiting entry for another key gives way: gone from the queue (answering
        "superseded") if no one else waits on it; its place, for the newer one."""
        old = self.waiting.get(session)
        if old is None or old.key == key:
            return None
        del self.waiting[session]
        old.waiters.discard(session)
        if old.waiters or old not in self.queue:
            return None
        place = self.queue.index(old)
        self.queue.remove(old)
        old.future.set_result(SUPERSEDED)
        return place

    def dispatch(self) -> None:
        while self.queue and len(self.running) < max(1, self.pool.capacity):
            entry = self.queue.pop(0)
            for session in entry.waiters:
                if self.waiting.get(session) is entry:
                    del self.waiting[session]
            self.running[entry.key] = entry
            self.served += 1
            asyncio.create_task(self.run(entry))

    async def run(self, entry: Entry) -> None:
        result: dict[str, Any]
        folder = self.store.folder(entry.key)
        try:
            result = await self.pool.draw(entry.request, folder)
            if "error" not in result and entry.made is not None:
                self.store.register(entry.key, entry.request["clip"], entry.request["lang"], entry.request["op"])
        except Exception as err:      # a worker gone twice, or anything else: this request fails, the lab goes on
            shown = str(err) if isinstance(err, WorkerGone) else f"the still failed: {type(err).__name__}: {err}"
            result = {"error": shown.splitlines()[0] if shown else "the still failed", "field": None, "failed": True}
        finally:
            self.running.pop(entry.key, None)
        if entry.made is None or "error" in result and not self.store.file(entry.key, entry.made):
            shutil.rmtree(folder, ignore_errors=True)          # an answer only, or a failed still
        entry.future.set_result(result)
        self.dispatch()
