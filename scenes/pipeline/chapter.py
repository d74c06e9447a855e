"""The chapter video: every registered clip with the book's inputs, rendered in
parallel, then joined in book order behind a title card each, with one .srt and
the section list as mp4 chapters (and chapter04.chapters.json).

A clip is reused when nothing that shapes its frames changed since its last
render: its inputs, the quality, the pinned packages, the assets, render.py, and
every project file its module imports, followed through the imports (a stamp per
clip in OUT/.stamps). A change in scenes/compute/masking.py re-renders the
clips that import it, and nothing else.
"""
from __future__ import annotations

import ast
import concurrent.futures as futures
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from scenes.kit import lang as language
from scenes.kit import style
from scenes.kit.style import BOOK_TITLE
from scenes.pipeline.inputs import InputError, check, manifest_inputs, raw_inputs
from scenes.pipeline.join import NAME, duration, join  # noqa: F401  (duration: used by the tests)
from scenes.pipeline.registry import Clip, specs
from scenes.pipeline.files import stem

ROOT = Path(__file__).resolve().parents[2]
RENDER_MEMORY = 1.5e9     # bytes one 1080p render may need at its peak (bench/README.md)


def module_file(name: str) -> Path | None:
    """The project file of a dotted module name (a package's __init__.py), or None."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported(path: Path) -> set[Path]:
    """The project files `path` imports directly (and each package's __init__ on the way)."""
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            for n in range(1, len(parts) + 1):
                file = module_file(".".join(parts[:n]))
                if file:
                    found.add(file)
    return found


def dependencies(module: str) -> list[Path]:
    """Every project file reachable from `module` through its imports."""
    start = module_file(module)
    seen, todo = set(), [start] if start else []
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo += sorted(imported(path) - seen)
    return sorted(seen)


def files_hash(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def shared_files() -> list[Path]:
    """What shapes every render: the CLI, the pinned packages, the runner, the file writer of its
    holds (holds.py) and the assets."""
    assets = sorted(p for p in (ROOT / "assets").rglob("*") if p.is_file() and "gallery" not in p.parts
                    and "lang" not in p.parts)            # a catalogue shapes only its language
    return [ROOT / "render.py", ROOT / "requirements.txt", ROOT / "scenes/pipeline/runner.py",
            ROOT / "scenes/pipeline/holds.py", ROOT / "scenes/pipeline/files.py", *assets]


def voice_hash(clip: str, voice: str | None) -> str:
    """A voice folder's recordings for this clip (names and bytes), or the voice's name."""
    if not voice or voice == "espeak":
        return voice or ""
    folder = Path(voice) / clip
    files = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    h = hashlib.sha256()
    for path in files:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def stamp_of(clip: str, quality: str, sections: bool, pace: str = "normal", voice: str | None = None,
             lang: str = language.SOURCE) -> str:
    from scenes.pipeline.registry import scene
    inputs = manifest_inputs(check(clip, raw_inputs(clip)))
    code = files_hash(sorted(set(dependencies(scene(clip).__module__)) | set(shared_files())))
    text = json.dumps([clip, quality, sections, inputs, code, pace, voice_hash(clip, voice), lang,
                       catalogue_hash(lang)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def title_stamp(spec: Clip, quality: str, lang: str = language.SOURCE) -> str:
    code = files_hash(sorted(set(dependencies("scenes.pipeline.title_card")) | set(shared_files())))
    return hashlib.sha256(json.dumps([spec.section, spec.title, quality, code, lang,
                                      catalogue_hash(lang)]).encode()).hexdigest()


def catalogue_hash(lang: str) -> str:
    """A language's catalogue (assets/lang/LANG/), which shapes its frames as code does."""
    return files_hash(sorted((language.CATALOGUES / lang).glob("*.json")))


def fresh(out: Path, key: str, stamp: str, files: list[str]) -> bool:
    path = out / ".stamps" / f"{key}.txt"
    return path.exists() and path.read_text() == stamp and all((out / f).exists() for f in files)


def tasks_for(out: Path, quality: str, sections: bool, pace: str = "normal",
              voice: str | None = None, lang: str = language.SOURCE) -> list[tuple[str, list[str], str, str]]:
    """(label, command, stamp key, stamp) for each render that is out of date."""
    tasks, py = [], [sys.executable, str(ROOT / "render.py")]
    common = ["--quality", quality, "--out", str(out), "--lang", lang]
    spoken = ["--pace", pace] + (["--voice", voice] if voice else [])
    for clip, spec in specs().items():
        name = stem(clip, lang)
        stamp = stamp_of(clip, quality, sections, pace, voice, lang)
        if not fresh(out, name, stamp, [f"{name}.mp4", f"{name}.srt", f"{name}.numbers.json"]):
            tasks.append((name, py + [clip] + common + spoken + (["--sections"] if sections else []),
                          name, stamp))
        stamp = title_stamp(spec, quality, lang)
        if not fresh(out, f"title-{name}", stamp, [f".titles/{name}.mp4"]):
            tasks.append((f"title {name}", py + ["title-card", clip] + common, f"title-{name}", stamp))
    return tasks


def job_count() -> int:
    """As many renders at once as there are cores, and memory for each."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        by_memory = max(1, int(pages // RENDER_MEMORY))
    except (ValueError, OSError, AttributeError):
        by_memory = cores
    return max(1, min(cores, by_memory))


def run_one(cmd: list[str]) -> subprocess.CompletedProcess:
    """One render in its own process; its output is captured whole (no pipe can fill up)."""
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def run_all(tasks: list, out: Path, jobs: int | None = None) -> None:
    """Run the renders in parallel with one progress line; the first failure stops the rest."""
    (out / ".stamps").mkdir(parents=True, exist_ok=True)
    start, done, shown = time.monotonic(), 0, ""
    with futures.ThreadPoolExecutor(max_workers=jobs or job_count()) as pool:
        running = {pool.submit(run_one, cmd): (label, key, stamp) for label, cmd, key, stamp in tasks}
        for job in futures.as_completed(running):
            label, key, stamp = running[job]
            result = job.result()
            if result.returncode:
                for other in running:
                    other.cancel()
                err = (result.stderr.strip().splitlines() or ["no message"])[-1]
                if result.returncode == 2:      # the clip refused its input (a missing recording)
                    raise InputError("voice", label, err.removeprefix("Error: "))
                raise RuntimeError(f"{label}: {err}")
            (out / ".stamps" / f"{key}.txt").write_text(stamp)
            done += 1
            shown = progress(start, done, len(tasks), shown)
    if tasks:
        print(file=sys.stderr)


def progress(start: float, done: int, total: int, shown: str) -> str:
    """One line for the whole chapter: renders done, elapsed, estimate."""
    elapsed = time.monotonic() - start
    left = f"~{elapsed / done * (total - done):.0f} s left" if done else "estimating"
    line = f"[chapter] {done}/{total} renders · {elapsed:.0f} s elapsed · {left}"
    tty = sys.stderr.isatty()
    print(("\r" + line + "   ") if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
    return line


def render_chapter(quality: str = "high", out: str | Path = "media", sections: bool = True,
                   jobs: int | None = None, pace: str = "normal", voice: str | None = None,
                   one_file: bool = False, lang: str = language.SOURCE) -> list[Path]:
    """Render what is out of date, join the chapter; with sections (the default) also the
    presenter page chapter04.html, each title card a step of its own."""
    out = Path(out)
    if voice and voice != "espeak" and not Path(voice).is_dir():
        raise InputError("voice", voice, "is neither 'espeak' nor a folder of recordings")
    voice = voice if voice in (None, "espeak") else str(Path(voice).resolve())
    out.mkdir(parents=True, exist_ok=True)
    clips = specs()
    run_all(tasks_for(out, quality, sections, pace, voice, lang), out, jobs)
    written = join(out, clips, lang)
    if sections:
        from scenes.pipeline.presenter import clip_steps, title_step, write_page
        language.use(lang)
        parts = []
        for clip, spec in clips.items():
            name, title = stem(clip, lang), spec.heading()
            parts.append({"section": spec.section, "title": title,
                          "steps": [title_step(out, name, spec.section, title)]
                          + clip_steps(out, name, spec.section, title)})
        heading = language.tr(BOOK_TITLE).replace("{}", str(style.CHAPTER))
        written.append(write_page(out, stem(NAME, lang), heading, parts, lang=lang, one_file=one_file))
    return written
