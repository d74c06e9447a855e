"""A clip's inputs as the pipeline takes them: its declared defaults, then a preset, then the
options given; checked by the clip's own rules. The parsing every rule uses (InputError,
number, matrix, tokens, ...) is scenes/kit/scene/inputs.py, re-exported here.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from scenes.kit.scene.inputs import (  # noqa: F401  (the parsing lives in the kit; re-exported for the pipeline)
    InputError,
    ascii_safe,
    number,
    integer,
    matrix,
    vector,
    tokens,
    flag,
    PRESETS,
    LIMIT,
    MAX_SIDE,
    MAX_TEXT,
    MAX_TOKEN,
    preset_inputs,
)


# ---------------------------------------------------------------- presets
def preset_names(clip: str | None = None) -> list[tuple[str, dict]]:
    out = []
    for path in sorted(PRESETS.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        if clip is None or data["clip"] == clip:
            out.append((path.stem, data))
    return out


def load_preset(name: str, clip: str) -> dict:
    """A preset's raw inputs; unknown or foreign names fail with the valid list."""
    valid = [n for n, _ in preset_names(clip)]
    if name not in valid:
        raise InputError("preset", str(name), f"unknown for {clip}; valid: {', '.join(valid)}")
    return preset_inputs(name)


MAX_PRESET_FILE = 64 * 1024          # bytes of a preset file (the lab's downloads are a few hundred)
MAX_TITLE = 200


def preset_file(path: str | Path, clip: str) -> dict:
    """--preset-file FILE: a preset as the lab downloads it ({"clip", "title", "inputs"}), read
    and checked field by field before the clip's rules see it; anything else is one InputError."""
    shown = str(path)
    try:
        p = Path(path)
        if not p.is_file():
            raise InputError("preset_file", shown, "is not a file (give the path of a downloaded preset .json)")
        if p.stat().st_size > MAX_PRESET_FILE:
            raise InputError("preset_file", shown, f"is larger than {MAX_PRESET_FILE // 1024} KiB: not a preset")
        data = json.loads(p.read_bytes().decode("utf-8"))
    except InputError:
        raise
    except (OSError, ValueError, RecursionError) as err:
        raise InputError("preset_file", shown, f"cannot be read as a JSON preset ({type(err).__name__})") from None
    return preset_data(data, clip, shown)


def preset_data(data: Any, clip: str, shown: str = "the preset") -> dict:
    """A preset's JSON checked: an object naming this clip, an optional title, and inputs that
    are this clip's options with text, number or true/false values. Returns the raw inputs."""
    from scenes.pipeline.jobs.registry import declarations
    field = "preset_file"
    if not isinstance(data, dict) or not isinstance(data.get("inputs"), dict):
        raise InputError(field, shown, 'must be a JSON object {"clip": ..., "title": ..., "inputs": {...}}')
    if set(data) - {"clip", "title", "inputs"}:
        raise InputError(field, shown, "holds only clip, title and inputs")
    if data.get("clip") != clip:
        named = data.get("clip")
        raise InputError(field, shown, f"is a preset for {named if isinstance(named, str) else '?'}"[:80]
                         + f", not {clip}")
    title = data.get("title", "")
    if not isinstance(title, str) or len(title) > MAX_TITLE:
        raise InputError(field, shown, f"title: text of at most {MAX_TITLE} characters")
    options = {o.key: o for o in declarations()[clip].options}
    out: dict[str, Any] = {}
    for key, value in data["inputs"].items():
        opt = options.get(str(key).replace("-", "_"))
        if opt is None:
            valid = ", ".join(o.name for o in options.values())
            raise InputError(field, shown, f"unknown option for {clip}; valid: {valid}")
        if opt.flag:
            if not isinstance(value, bool):
                raise InputError(opt.key, json.dumps(value)[:60], "a flag is true or false")
            if value:
                out[opt.key] = True
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InputError(opt.key, json.dumps(value, default=str)[:60], "give the value as text or a number")
        if isinstance(value, str) and (len(value) > MAX_TEXT or "\x00" in value):
            raise InputError(opt.key, value, f"at most {MAX_TEXT} characters, no NUL")
        out[opt.key] = value
    return out


ROW_KEYS = ("x", "q", "k", "v")   # options whose rows the token labels name


def raw_inputs(clip: str, preset: str | None = None, given: dict | None = None,
               from_file: dict | None = None) -> dict:
    """The clip's declared defaults, then --preset, then --preset-file's inputs, then explicit options.

    A preset's token labels name that preset's rows: new rows without new labels drop them.
    """
    from scenes.pipeline.jobs.registry import spec
    defaults = spec(clip).defaults     # the book's inputs, or the name of a preset holding them
    raw = load_preset(defaults, clip) if isinstance(defaults, str) else dict(defaults)
    given = {k: v for k, v in (given or {}).items() if v is not None}
    for layer in ([load_preset(preset, clip)] if preset else []) + [from_file or {}, given]:
        if any(k in layer for k in ROW_KEYS) and "tokens" not in layer:
            raw.pop("tokens", None)
        raw.update(layer)
    return raw


def check(clip: str, raw: dict) -> dict:
    """The clip's own input rules (declared in its module)."""
    from scenes.pipeline.jobs.registry import spec
    return spec(clip).rules(raw)


def manifest_inputs(checked: dict) -> dict:
    """Plain JSON: arrays become lists, masks bit strings."""
    def plain(v: object) -> object:
        if isinstance(v, np.ndarray):
            return "".join("1" if b else "0" for b in v) if v.dtype == bool else v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(i) for i in v]
        return v
    return {k: plain(v) for k, v in checked.items()}
