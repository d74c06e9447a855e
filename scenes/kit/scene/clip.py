"""A clip's declaration: its name, section, title, input rules, defaults and options. It lives
in the kit so that ClipScene can carry it without importing the pipeline (which finds the clips
through it: scenes/pipeline/jobs/registry.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from scenes.kit.text import lang as language, style
from scenes.kit.scene.inputs import preset_inputs


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
        return language.tr(self.title, lang).format(*(style.format_number(c) for c in self.title_consts))

    def default_inputs(self) -> dict:
        """The book's inputs, checked by the clip's rules (defaults may name a preset holding them)."""
        raw = preset_inputs(self.defaults) if isinstance(self.defaults, str) else dict(self.defaults)
        return self.rules(raw)
