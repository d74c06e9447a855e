"""The clip registry: every clip declares itself once, in its own module under
scenes/clips/, as a ClipScene subclass carrying a `spec = Clip(...)`.

Everything else (the CLI, input rules, the runner, the chapter's order, presets,
the tests' parametrisation) asks this module; nothing else lists the clips.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from scenes.kit.base import ClipScene

CLIPS_PACKAGE = "scenes.clips"


@dataclass(frozen=True)
class Option:
    """One input option of a clip: `--name`, its help, and whether it is a flag."""
    name: str
    help: str
    flag: bool = False

    @property
    def key(self) -> str:
        return self.name.replace("-", "_")


@dataclass(frozen=True)
class Clip:
    """A clip's facts, declared once next to its scene."""
    name: str                                   # the CLI name, e.g. "causal-mask"
    section: str                                # the book's section id, a string: "4.4", "4.10", "练习"
    title: str                                  # the section's title, as the book words it
    summary: str                                # one line for `render.py list`
    rules: Callable[[dict], dict]               # raw inputs -> checked inputs (raises InputError)
    defaults: Mapping[str, Any]                 # the book's inputs, as raw values
    options: tuple[Option, ...] = field(default_factory=tuple)
    title_consts: tuple[int, ...] = ()          # digits the book prints in the title ("恰好为 1"): its {} slots

    def heading(self, lang: str | None = None) -> str:
        """The title in words, for files beside the video (srt, chapters, decks); on screen the
        constants go through the book (ClipScene.show_title)."""
        from scenes.kit import lang as language, style
        return language.tr(self.title, lang).format(*(style.format_number(c) for c in self.title_consts))


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
