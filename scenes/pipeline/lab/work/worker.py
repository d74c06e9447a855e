"""The lab's warm worker: one process that has Manim imported and renders stills (and plans
videos) on request, so that a changed input shows its still in about a second.

It is its own process (`python -m scenes.pipeline.lab.work.worker`), spoken to in JSON lines on
stdin/stdout: a crash or a hang in a render ends this process, never the lab's server, which
starts a fresh one (StillWorker below; the pool, pool.py, keeps one a core). Its requests were already checked by the server; it
checks them again with the clip's own rules (the same InputError) before drawing. It draws in the
lab's theme: CHAPTER_THEME in its environment, in force from its first import.
"""
from __future__ import annotations

import asyncio
import gc
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from scenes.kit.text.style import THEME_VARIABLE

LINE_LIMIT = 1 << 20          # bytes of one reply line
LOG_LIMIT = 1 << 20           # the worker's log (Manim's warnings) starts afresh past this


def handle(request: dict) -> dict:
    """{"op": "still" | "script" | "plan", clip, given, lang, step, out} -> {} | {"plays", "steps"} |
    {"error", "field"}; a script is the dry run's manifest and NAME.script.md."""
    from scenes.kit.text import lang as language
    from scenes.pipeline.jobs.inputs import InputError, check, raw_inputs
    from scenes.pipeline.run.runner import plan, render_clip
    clip, lang = request["clip"], request["lang"]
    try:
        inputs = check(clip, raw_inputs(clip, None, request["given"]))
        if request["op"] == "plan":
            language.use(lang)
            Path(request["out"]).mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=".plan-", dir=request["out"]))
            try:
                scene = plan(clip, inputs, "normal", work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            return {"plays": scene.renderer.num_plays, "steps": len(scene.captions)}
        if request["op"] == "script":
            render_clip(clip, inputs, "low", "mp4", request["out"], dry_run=True, lang=lang)
        else:
            render_clip(clip, inputs, "low", "png", request["out"], step=request["step"], lang=lang)
        return {}
    except InputError as err:
        return {"error": str(err), "field": err.field}
    except Exception as err:      # a render failure: reported, the worker goes on
        return {"error": f"render of {clip} failed: {type(err).__name__}: {err}".splitlines()[0], "field": None,
                "failed": True}


def main() -> None:
    """Read one JSON request a line, answer one JSON line; Manim's own prints go to stderr."""
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    import scenes.pipeline.run.runner  # noqa: F401  (the slow imports, before the first request)
    settle()
    reply.write('{"ready": true}\n')
    reply.flush()
    for n, line in enumerate(sys.stdin):
        reply.write(json.dumps(handle(json.loads(line)), ensure_ascii=False) + "\n")
        reply.flush()
        if n == 0:
            settle()          # and the caches the first still filled (glyphs, texts), once answered


def settle() -> None:
    """Put what the worker keeps for good (Manim's modules, its caches) out of the collector's way:
    a full collection then walks only what the stills since have made. Measured on 60 causal-mask
    stills: the collector's time 0.97 -> 0.46 s, its longest pause 153 -> 65-90 ms (bench/README.md)."""
    gc.collect()
    gc.freeze()


class WorkerGone(RuntimeError):
    """The worker died or hung; a fresh one starts with the next request."""


class StillWorker:
    """The server's side: one request at a time (callers hold `lock`), a time limit on each,
    and a fresh process after a crash or a timeout."""

    def __init__(self, root: Path, log: Path, timeout: float, theme: str = "dark") -> None:
        self.root, self.log, self.timeout, self.theme = root, log, timeout, theme
        self.proc: asyncio.subprocess.Process | None = None
        self.ready = False
        self.lock = asyncio.Lock()               # one request at a time (held by the callers)
        self.starting = asyncio.Lock()

    async def start(self) -> None:
        async with self.starting:
            if self.proc is not None and self.proc.returncode is None:
                return
            if self.log.exists() and self.log.stat().st_size > LOG_LIMIT:
                self.log.unlink()
            with open(self.log, "ab") as log:
                self.proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "scenes.pipeline.lab.work.worker", cwd=str(self.root), limit=LINE_LIMIT,
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log,
                    env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[4]),
                             **{THEME_VARIABLE: self.theme}))
            await self.read(120)           # {"ready": true}: imports done
            self.ready = True

    @property
    def pid(self) -> int | None:
        """The worker's process id once it is ready, else None."""
        alive = self.proc is not None and self.proc.returncode is None and self.ready
        return self.proc.pid if alive and self.proc is not None else None

    async def read(self, timeout: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except (asyncio.TimeoutError, ValueError):
            await self.stop()
            raise WorkerGone(f"the render took longer than {timeout:.0f} s and was stopped") from None
        if not line:
            await self.stop()
            raise WorkerGone("the render crashed; the lab starts a fresh worker")
        return dict(json.loads(line))

    async def ask(self, request: dict) -> dict[str, Any]:
        """Send one request and wait for its answer (the caller holds self.lock)."""
        await self.start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(request, ensure_ascii=False) + "\n").encode())
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            await self.stop()
            raise WorkerGone("the render crashed; the lab starts a fresh worker") from None
        try:
            return await self.read(self.timeout)
        except asyncio.CancelledError:        # its answer is still coming: read it, or the next
            await self.read(self.timeout)     # request would take it for its own
            raise

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self.proc, self.ready = None, False


if __name__ == "__main__":
    main()
