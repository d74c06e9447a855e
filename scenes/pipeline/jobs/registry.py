"""The clip registry: every clip declares itself once, in its own module under scenes/clips/
(a module, or in a clip's package its scene.py), as a ClipScene subclass carrying a `spec = Clip(...)`.

Everything else (the CLI, input rules, the runner, the chapter's order, presets,
the tests' parametrisation) asks this module; nothing else lists the clips.

Finding the clips imports them, and so Manim (about two seconds); rendering one clip imports
only its own module (`scene(name)`, from the module its declaration names). What the CLI needs to build
its commands (names, sections, summaries, options: `declarations()`) is also kept in
.cache/clips.json, keyed by the bytes of every file under scenes/, so that `render.py --help`,
`render.py list` and `render.py NAME --help` import no clip while nothing under scenes/ changed.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import pkgutil
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from scenes.kit.scene.clip import Clip, Option  # noqa: F401  (declared in the kit; the clips import them here too)

if TYPE_CHECKING:
    from scenes.kit.scene.base import ClipScene

CLIPS_PACKAGE = "scenes.clips"
SCENES = Path(__file__).resolve().parents[2]
CACHE = SCENES.parent / ".cache" / "clips.json"


def section_key(section: str) -> tuple:
    """Book order: "4.2" < "4.9" < "4.10"; a section that is not a number comes last."""
    parts = re.findall(r"\d+|\D+", section)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


@lru_cache(maxsize=1)
def scenes() -> dict[str, type[ClipScene]]:
    """Every registered clip's scene class, in book order."""
    from scenes.kit.scene.base import ClipScene
    package = importlib.import_module(CLIPS_PACKAGE)
    found: dict[str, type[ClipScene]] = {}
    for info in sorted(pkgutil.walk_packages(package.__path__, f"{CLIPS_PACKAGE}."), key=lambda m: m.name):
        module = importlib.import_module(info.name)     # a clip is a module, or a package of its parts
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, ClipScene) and "spec" in vars(obj)
                    and obj.__module__ == module.__name__):
                if obj.spec.name in found:
                    raise RuntimeError(f"two clips are named {obj.spec.name!r}")
                found[obj.spec.name] = obj
    return dict(sorted(found.items(), key=lambda item: section_key(item[1].spec.section)))


def specs() -> dict[str, Clip]:
    return {name: cls.spec for name, cls in scenes().items()}


def spec(name: str) -> Clip:
    return scene(name).spec


@lru_cache(maxsize=None)
def scene(name: str) -> type[ClipScene]:
    """One clip's scene class, importing only its own module (named in the declarations) when
    the clips are not all imported yet: a render of one clip imports no other clip."""
    if scenes.cache_info().currsize:
        return scenes()[name]
    declared = declarations().get(name)
    if declared is not None and declared.module:
        from scenes.kit.scene.base import ClipScene
        module = importlib.import_module(declared.module)
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, ClipScene) and "spec" in vars(obj)
                    and obj.__module__ == module.__name__ and obj.spec.name == name):
                return obj
    return scenes()[name]


@dataclass(frozen=True)
class Declared:
    """What the CLI shows of a clip, without its rules: kept in the cache as plain JSON."""
    name: str
    section: str
    title: str
    summary: str
    options: tuple[Option, ...]
    module: str = ""      # where its scene class lives


def fingerprint() -> str:
    """The bytes of every Python file under scenes/ (where a clip and its declaration live)."""
    h = hashlib.sha256()
    for path in sorted(SCENES.rglob("*.py")):
        h.update(str(path.relative_to(SCENES)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def declarations() -> dict[str, Declared]:
    """Every clip's declaration in book order: from the cache while scenes/ is unchanged, else
    from the clips themselves (then cached; a folder that cannot be written is no error)."""
    key = fingerprint()
    try:
        data = json.loads(CACHE.read_text("utf-8"))
        if data["fingerprint"] == key:
            return {d["name"]: Declared(**{**d, "options": tuple(Option(**o) for o in d["options"])})
                    for d in data["clips"]}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    found = {name: Declared(c.spec.name, c.spec.section, c.spec.title, c.spec.summary, tuple(c.spec.options),
                            c.__module__) for name, c in scenes().items()}
    try:
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        part = CACHE.with_name(f".{CACHE.name}.{os.getpid()}")
        part.write_text(json.dumps({"fingerprint": key, "clips": [asdict(d) for d in found.values()]},
                                   ensure_ascii=False), "utf-8")
        os.replace(part, CACHE)
    except OSError:
        pass
    return found
