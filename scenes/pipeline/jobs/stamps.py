"""Content addresses of renders: a stamp is the hash of everything that shapes a render's
files (its clip and inputs, quality, sections, pace, voice, language and catalogue, theme, the pinned
packages, the shared pipeline files, the assets, and every project file its module imports,
followed through the imports). A render whose stamp in OUT/.stamps/KEY.txt matches, with its
files present, is reused.
"""
from __future__ import annotations

import ast
import hashlib
import json
import threading
from pathlib import Path

from scenes.kit.text import lang as language
from scenes.kit.text import style
from scenes.pipeline.jobs.inputs import check, manifest_inputs, raw_inputs
from scenes.pipeline.jobs.registry import Clip

ROOT = Path(__file__).resolve().parents[3]


def module_file(name: str) -> Path | None:
    """The project file of a dotted module name (a package's __init__.py), or None."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


# CPython 3.11 keeps the AST builder's recursion depth per interpreter, not per call: two threads
# parsing at once (the local executor checks its tasks out in threads) can fail with "SystemError:
# AST constructor recursion depth mismatch" (python/cpython#106905). One parse at a time.
PARSING = threading.Lock()


def imported(path: Path) -> set[Path]:
    """The project files `path` imports directly (and each package's __init__ on the way)."""
    found: set[Path] = set()
    with PARSING:
        tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
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
    """What shapes every render: the CLI, the pinned packages, the runner and its job and quality
    table, the file writer of its holds (holds.py, h264.py) and the assets."""
    assets = sorted(p for p in (ROOT / "assets").rglob("*") if p.is_file() and "gallery" not in p.parts
                    and "lang" not in p.parts)            # a catalogue shapes only its language
    return [ROOT / "render.py", ROOT / "requirements.txt", ROOT / "scenes/pipeline/run/runner.py",
            ROOT / "scenes/pipeline/jobs/job.py", ROOT / "scenes/pipeline/video/holds.py", ROOT / "scenes/pipeline/video/h264.py",
            ROOT / "scenes/pipeline/jobs/files.py", *assets]


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


def code_hash(module: str) -> str:
    """The project files that shape a render of `module`'s scene, hashed."""
    return files_hash(sorted(set(dependencies(module)) | set(shared_files())))


def stamp_of(clip: str, quality: str, sections: bool, pace: str = "normal", voice: str | None = None,
             lang: str = language.SOURCE, raw: dict | None = None) -> str:
    """A chapter clip's stamp: the book's inputs (or a course's `raw` inputs) rendered at
    `quality` in `lang`."""
    from scenes.pipeline.jobs.registry import scene
    inputs = manifest_inputs(check(clip, raw if raw is not None else raw_inputs(clip)))
    code = code_hash(scene(clip).__module__)
    text = json.dumps([clip, quality, sections, inputs, code, pace, voice_hash(clip, voice), lang,
                       catalogue_hash(lang)] + themed(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def title_stamp(spec: Clip, quality: str, lang: str = language.SOURCE) -> str:
    code = code_hash("scenes.pipeline.video.title_card")
    return hashlib.sha256(json.dumps([spec.section, spec.title, quality, code, lang,
                                      catalogue_hash(lang)] + themed()).encode()).hexdigest()


def themed() -> list[str]:
    """The theme in force (style.THEME), as a stamp holds it: nothing for the dark default (the
    stamps made before there were themes stay valid), its name for any other: a light render
    never reuses a dark one, nor a dark one a light one."""
    return [] if style.THEME == "dark" else [style.THEME]


def catalogue_hash(lang: str) -> str:
    """A language's words (the source's assets/lang/zh/ and, for another language, its own
    catalogue assets/lang/LANG/), which shape its frames as code does."""
    folders = dict.fromkeys((language.SOURCE, lang))
    return files_hash([path for folder in folders
                       for path in sorted((language.CATALOGUES / folder).glob("*.json"))])


def fresh(out: Path, key: str, stamp: str, files: list[str]) -> bool:
    path = out / ".stamps" / f"{key}.txt"
    return path.exists() and path.read_text() == stamp and all((out / f).exists() for f in files)
