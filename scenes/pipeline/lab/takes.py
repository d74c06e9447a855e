"""The lab's recordings: each take the recording page uploads is saved where `--voice DIR`
reads it, LAB/voice/SET/NAME/01.webm, 02.ogg, ... (scenes/pipeline/video/voice.py), and a render
with them gets a copy of the set in its own folder, where a step without a take has a short
silent one (so it keeps its planned length: voice.py wants one file per step).

SET is the language for the book's inputs (`voice/zh` is the chapter's folder:
`render.py chapter --voice LAB/voice/zh` once every step has a take) and LANG-HASH for a
clip's own inputs, whose narration differs. Every part of a path is the lab's own: the set
from a script the lab made, the clip's name from the registry, the step a checked number.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

from scenes.kit.text.lang import LANGS
from scenes.pipeline.jobs.inputs import InputError
from scenes.pipeline.lab.request import Ask, Refused
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.video.voice import audio_seconds

TYPES = {"audio/webm": ("webm", "matroska"), "audio/ogg": ("ogg", "ogg")}   # content type: suffix, container
MAX_TAKE = 8 * 1024 * 1024            # bytes of one take (a minute of Opus is about 0.3 MB)
MAX_SECONDS = 300.0                   # the longest take
SET = re.compile(r"^(" + "|".join(LANGS) + r")(-[0-9a-f]{12})?$")
STEP = re.compile(r"^[0-9]{1,2}$")


@dataclass(frozen=True)
class Script:
    """A clip's steps for one set, from the dry run's manifest (caption, narration, planned s)."""
    set: str
    clip: str
    lang: str
    steps: list


def set_name(ask: Ask, book_inputs: dict) -> str:
    """The language for the book's inputs, else LANG-HASH of the clip and its checked inputs."""
    if ask.inputs == book_inputs:
        return ask.lang
    text = json.dumps([ask.clip, ask.inputs], sort_keys=True)
    return f"{ask.lang}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def silence(path: Path, seconds: float = 0.05, rate: int = 16000) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\0\0" * int(seconds * rate))


class Takes:
    def __init__(self, root: Path, cap_bytes: int) -> None:
        self.root, self.cap = root / "voice", cap_bytes
        self.scripts: dict[tuple[str, str], Script] = {}

    def remember(self, script: Script) -> None:
        self.scripts[(script.set, script.clip)] = script

    def script(self, set_: str, clip: str) -> Script:
        """The script behind an upload's address, checked part by part (the address is the request's)."""
        if not SET.match(set_):
            raise Refused(400, "set: a language, or a language and 12 hex digits", "set")
        if clip not in specs():
            raise Refused(404, f"unknown clip; valid: {', '.join(specs())}", "clip")
        found = self.scripts.get((set_, clip))
        if found is None:
            raise Refused(404, "no such recording set: open the clip's recording page first", "set")
        return found

    def step(self, script: Script, text: str) -> int:
        n = int(text) if STEP.match(text) else 0
        if not 1 <= n <= len(script.steps):
            raise Refused(400, f"step: a whole number from 1 to {len(script.steps)}", "step")
        return n

    def folder(self, script: Script) -> Path:
        return self.root / script.set / specs()[script.clip].name

    def files(self, script: Script) -> dict[int, Path]:
        """Step -> its take (the lab writes one file a step)."""
        folder, found = self.folder(script), {}
        for n in range(1, len(script.steps) + 1):
            for suffix, _ in TYPES.values():
                if (folder / f"{n:02d}.{suffix}").is_file():
                    found[n] = folder / f"{n:02d}.{suffix}"
        return found

    def lengths(self, script: Script) -> dict[int, float]:
        out = {}
        for n, path in self.files(script).items():
            try:
                out[n] = round(audio_seconds(path), 3)
            except InputError:
                continue
        return out

    def used(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file()) if self.root.is_dir() else 0

    def save(self, script: Script, n: int, content_type: str, body: bytes) -> float:
        """Check one upload (type, size, a decodable sound) and put it in place of the step's take."""
        kind = content_type.split(";")[0].strip().lower()
        if kind not in TYPES:
            raise Refused(415, f"a take is {' or '.join(TYPES)} (MediaRecorder's own)", "content-type")
        if not body:
            raise Refused(400, "the take is empty", "body")
        if len(body) > MAX_TAKE:
            raise Refused(413, f"a take is at most {MAX_TAKE // (1024 * 1024)} MB", "body")
        if self.used() + len(body) > self.cap:
            raise Refused(413, f"the lab's recordings are full ({self.cap // (1024 * 1024)} MB): "
                               "remove some from its voice folder", "body")
        suffix, container = TYPES[kind]
        folder = self.folder(script)
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".take-", suffix=f".{suffix}", dir=folder)
        part = Path(name)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(body)
            seconds = checked_seconds(part, container, kind)
            for other, _ in TYPES.values():
                if other != suffix:
                    (folder / f"{n:02d}.{other}").unlink(missing_ok=True)
            os.replace(part, folder / f"{n:02d}.{suffix}")
        finally:
            part.unlink(missing_ok=True)
        return seconds

    def digest(self, script: Script) -> str:
        """What the takes hold (step, suffix, bytes): part of a voiced render's key."""
        h = hashlib.sha256()
        for n, path in sorted(self.files(script).items()):
            h.update(f"{n}:{path.suffix}:".encode())
            h.update(hashlib.sha256(path.read_bytes()).digest())
        return h.hexdigest()[:16]

    def copy_for_render(self, script: Script, digest: str, target: Path) -> Path:
        """TARGET/NAME/NN.* for `render.py --voice TARGET`: the takes as they were when the render
        was asked for, a short silence for each step without one."""
        if self.digest(script) != digest:
            raise RuntimeError("the takes changed after this render was asked for: render again")
        name = specs()[script.clip].name
        (target / name).mkdir(parents=True)
        takes = self.files(script)
        for n in range(1, len(script.steps) + 1):
            if n in takes:
                shutil.copyfile(takes[n], target / name / takes[n].name)
            else:
                silence(target / name / f"{n:02d}.wav")
        return target


def checked_seconds(path: Path, container: str, kind: str) -> float:
    """The take's length, if it is a sound in the container its type names."""
    import av
    try:
        with av.open(str(path)) as box:
            ok = container in box.format.name.split(",")
    except Exception:           # PyAV's errors for bytes it cannot read
        ok = False
    if not ok:
        raise Refused(422, f"the take is not {kind} audio", "body")
    try:
        seconds = audio_seconds(path, limit=MAX_SECONDS)
    except InputError:
        raise Refused(422, "the take holds no playable sound", "body") from None
    if seconds > MAX_SECONDS:
        raise Refused(422, f"a take is at most {MAX_SECONDS:.0f} s", "body")
    return round(seconds, 3)
