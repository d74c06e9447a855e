"""The lab's files and its jobs: content-addressed output folders with a size cap, and a video
render's record (the queue with turns and the workers that draw are in work/).

Every file the lab writes is under its folder, in ROOT/KEY/ where KEY is a hash of what shapes
the render (clip, checked inputs, quality, language, step, theme, and the code and catalogue); no
request field ever becomes a path.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from scenes.kit.text.lang import LANGS
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.run.runner import stem

RENDER = Path(__file__).resolve().parents[3] / "render.py"
KEY = re.compile(r"^[0-9a-f]{32}$")
FILES = {"png": "image/png", "mp4": "video/mp4", "srt": "text/plain; charset=utf-8",
         "numbers.json": "application/json", "script.md": "text/markdown; charset=utf-8"}


@lru_cache(maxsize=None)
def code_hash(clip: str, lang: str) -> str:
    """What else shapes a clip's frames: its modules (through the imports), the shared files
    and the language's catalogue, as the chapter's stamps count them."""
    from scenes.pipeline.run.chapter import catalogue_hash, dependencies, files_hash, shared_files
    from scenes.pipeline.jobs.registry import scene
    files = sorted(set(dependencies(scene(clip).__module__)) | set(shared_files()))
    return files_hash(files) + catalogue_hash(lang)


def request_key(clip: str, inputs: dict, quality: str, lang: str, step: int | None, kind: str, theme: str) -> str:
    """The folder of a render: a dark and a light one of the same inputs are two."""
    text = json.dumps([clip, inputs, quality, lang, step, kind, theme, code_hash(clip, lang)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Store:
    """ROOT/KEY/ folders, each with meta.json (clip, lang, kind) written by the lab; oldest
    first removed past the size cap, never one in use."""

    def __init__(self, root: Path, cap_bytes: int) -> None:
        self.root, self.cap = root.resolve(), cap_bytes
        self.root.mkdir(parents=True, exist_ok=True)
        self.meta: dict[str, dict] = {}
        for folder in self.root.iterdir():
            try:
                meta = json.loads((folder / "meta.json").read_text("utf-8"))
                if KEY.match(folder.name) and meta["clip"] in specs() and meta["lang"] in LANGS:
                    self.meta[folder.name] = {"clip": meta["clip"], "lang": meta["lang"], "kind": meta["kind"]}
            except (OSError, ValueError, KeyError, TypeError):
                continue

    def folder(self, key: str) -> Path:
        if not KEY.match(key):
            raise KeyError(key)
        return self.root / key

    def register(self, key: str, clip: str, lang: str, kind: str) -> None:
        self.meta[key] = {"clip": clip, "lang": lang, "kind": kind}
        (self.folder(key) / "meta.json").write_text(json.dumps(self.meta[key]))

    def file(self, key: str, ext: str) -> Path | None:
        """KEY's file of that kind, if the lab made it (names from meta, never from a request)."""
        if ext not in FILES or key not in self.meta or not KEY.match(key):
            return None
        path = self.folder(key) / f"{stem(self.meta[key]['clip'], self.meta[key]['lang'])}.{ext}"
        if path.is_file():
            os.utime(self.folder(key))          # used: the last to go
            return path
        return None

    def forget(self, key: str) -> None:
        self.meta.pop(key, None)
        shutil.rmtree(self.folder(key), ignore_errors=True)

    def trim(self, busy: set[str]) -> list[str]:
        """Remove the least recently used folders until the lab fits its cap."""
        sizes, used = {}, {}
        for folder in self.root.iterdir():
            try:
                if folder.is_dir() and KEY.match(folder.name):
                    sizes[folder.name] = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
                    used[folder.name] = folder.stat().st_mtime
            except OSError:           # removed meanwhile (a render's own temporary files)
                continue
        total, removed = sum(sizes.values()), []
        for key in sorted(sizes, key=lambda k: used[k]):
            if total <= self.cap:
                break
            if key not in busy:
                self.forget(key)
                total -= sizes[key]
                removed.append(key)
        return removed


class Busy(Exception):
    """Too much is waiting: try again in a moment (HTTP 429)."""


@dataclass
class Job:
    key: str
    clip: str
    lang: str
    quality: str
    given: dict
    args: list[str]
    state: str = "queued"              # queued, running, done, failed, cancelled
    progress: float = 0.0
    error: str | None = None
    plays: int | None = None
    voice: Callable[[Path], Path] | None = field(default=None, repr=False)   # makes its --voice folder
    proc: Any = field(default=None, repr=False)     # its process here, or its render on the cluster
    session: str = "page"              # the page that asked first (at most PER_SESSION waiting each)
    created: float = field(default_factory=time.monotonic)

    def view(self, position: int | None) -> dict:
        out = {"key": self.key, "state": self.state, "progress": round(self.progress, 3), "error": self.error,
               "position": position, "clip": self.clip, "lang": self.lang, "quality": self.quality}
        if self.state == "done":
            out["files"] = {ext: f"/files/{self.key}/{ext}" for ext in ("mp4", "srt", "numbers.json", "script.md")}
        return out
