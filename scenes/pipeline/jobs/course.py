"""A course file: a lecturer's own edition of the chapter (`render.py chapter --course FILE`).

TOML (read with tomllib). Chapter-wide values first, then one table per clip that names a preset
or inputs with the CLI's option names (a clip not named keeps the book's inputs):

    lang = "zh"                      # the chapter's language (the command line's --lang wins)
    pace = "normal"
    theme = "light"                  # dark (the video's look, the default) or light
    tokens = "我 爱 学 习"            # every named clip that takes tokens and gives none of its own

    [weighted-average]
    x = "1 0; 0 1; 1 1; 2 0"         # a matrix as text, or rows as arrays: [[1, 0], [0, 1], ...]
    query = 2

    [causal-mask]
    preset = "two-keys"

Every clip's inputs are checked by its own rules before anything renders, and every problem is
listed at once, one line each: `FILE: [clip] option: rule`.
"""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenes.kit.text import lang as language
from scenes.kit.text.style import PACES, THEMES
from scenes.pipeline.jobs.inputs import InputError, check, load_preset, preset_data, raw_inputs

WIDE = ("lang", "pace", "theme", "tokens")           # the chapter-wide values
MAX_COURSE = 256 * 1024                     # bytes of a course file


class CourseError(Exception):
    """Every problem of a course file, one line each."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class Course:
    path: Path
    lang: str | None = None
    pace: str | None = None
    theme: str | None = None
    raw: dict[str, dict] = field(default_factory=dict)       # clip -> raw inputs (the book's, then the course's)
    checked: dict[str, dict] = field(default_factory=dict)   # clip -> its rules' checked inputs

    def preset_file(self, clip: str, folder: Path) -> Path:
        """The clip's course inputs as a preset file in `folder` (what its render reads)."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{clip}.json"
        path.write_text(json.dumps({"clip": clip, "inputs": self.raw[clip]}, ensure_ascii=False), "utf-8")
        return path


def text_of(value: Any) -> Any:
    """TOML arrays as the CLI writes them: [[1, 0], [0, 1]] -> "1 0; 0 1", [0.1, 0.2] -> "0.1 0.2"."""
    if isinstance(value, list):
        if value and all(isinstance(row, list) for row in value):
            return "; ".join(" ".join(str(v) for v in row) for row in value)
        return " ".join(str(v) for v in value)
    return value


def read_course(path: str | Path) -> Course:
    """The course file, every clip's inputs checked; CourseError lists every problem."""
    from scenes.pipeline.jobs.registry import declarations
    shown, p = str(path), Path(path)
    try:
        if not p.is_file():
            raise CourseError([f"{shown}: is not a file (give the path of a course .toml)"])
        if p.stat().st_size > MAX_COURSE:
            raise CourseError([f"{shown}: is larger than {MAX_COURSE // 1024} KiB: not a course"])
        data = tomllib.loads(p.read_bytes().decode("utf-8"))
    except CourseError:
        raise
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise CourseError([f"{shown}: cannot be read as TOML ({err})"]) from None
    problems: list[str] = []
    clips = declarations()
    wide = {k: data[k] for k in WIDE if k in data}
    lang, pace, theme, tokens = wide.get("lang"), wide.get("pace"), wide.get("theme"), wide.get("tokens")
    if lang is not None and lang not in language.LANGS:
        problems.append(f"{shown}: lang: one of {', '.join(language.LANGS)}")
    if pace is not None and pace not in PACES:
        problems.append(f"{shown}: pace: one of {', '.join(PACES)}")
    if theme is not None and theme not in THEMES:
        problems.append(f"{shown}: theme: one of {', '.join(THEMES)}")
    if tokens is not None and not isinstance(tokens, str):
        problems.append(f"{shown}: tokens: words as text, separated by spaces")
    raw: dict[str, dict] = {}
    checked: dict[str, dict] = {}
    for name, table in data.items():
        if name in WIDE:
            continue
        if name not in clips:
            problems.append(f"{shown}: [{name}]: no such clip; valid: {', '.join(clips)}")
            continue
        if not isinstance(table, dict):
            problems.append(f"{shown}: {name}: a clip is a table [{name}] of its options")
            continue
        try:
            raw[name], checked[name] = clip_inputs(name, table, tokens, shown)
        except InputError as err:
            problems.append(f"{shown}: [{name}] {str(err).removeprefix('--')}")
    if problems:
        raise CourseError(problems)
    return Course(p, lang, pace, theme, raw, checked)


def clip_inputs(clip: str, table: dict, tokens: str | None, shown: str) -> tuple[dict, dict]:
    """One clip's table: its preset, then its options (and the chapter's tokens where it takes
    tokens and names none), checked field by field and then by the clip's rules."""
    from scenes.pipeline.jobs.registry import declarations
    table = {k: text_of(v) for k, v in table.items()}
    preset = table.pop("preset", None)
    if preset is not None and not isinstance(preset, str):
        raise InputError("preset", json.dumps(preset)[:40], "the name of a preset (see `render.py list`)")
    options = {o.key: o for o in declarations()[clip].options}
    for key in table:
        if str(key).replace("-", "_") not in options:
            raise InputError(str(key), str(table[key])[:40], f"no such option of {clip}; valid: preset, "
                             + ", ".join(o.name for o in options.values()))
    if tokens is not None and "tokens" in options and "tokens" not in table:
        table["tokens"] = tokens
    given = preset_data({"clip": clip, "inputs": table}, clip, shown)
    if preset is not None:
        load_preset(preset, clip)
    raw = raw_inputs(clip, preset, given)
    return raw, check(clip, raw)
