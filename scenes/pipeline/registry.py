"""The clip registry: every clip declares itself once, in its own module under
scenes/clips/, as a ClipScene subclass carrying a `spec = Clip(...)`.

Everything else (the CLI, input rules, the runner, the chapter's order, presets,
the tests' parametrisation) asks this module; nothing else lists the clips.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from scenes.kit.clip import Clip, Option  # noqa: F401  (declared in the kit; the clips import them here too)

if TYPE_CHECKING:
    from scenes.kit.base import ClipScene

CLIPS_PACKAGE = "scenes.clips"


def section_key(section: str) -> tuple:
    """Book order: "4.2" < "4.9" < "4.10"; a section that is not a number comes last."""
    parts = re.findall(r"\d+|\D+", section)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


@lru_cache(maxsize=1)
def scenes() -> dict[str, type[ClipScene]]:
    """Every registered clip's scene class, in book order."""
    from scenes.kit.base import ClipScene
    package = importlib.import_module(CLIPS_PACKAGE)
    found: dict[str, type[ClipScene]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{CLIPS_PACKAGE}.{info.name}")
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
    return specs()[name]


def scene(name: str) -> type[ClipScene]:
    return scenes()[name]
