"""A clip's inputs as the pipeline takes them: its declared defaults, then a preset, then the
options given; checked by the clip's own rules. The parsing every rule uses (InputError,
number, matrix, tokens, ...) is scenes/kit/scene/inputs.py, re-exported here.
"""
from __future__ import annotations

import json

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


ROW_KEYS = ("x", "q", "k", "v")   # options whose rows the token labels name


def raw_inputs(clip: str, preset: str | None = None, given: dict | None = None) -> dict:
    """The clip's declared defaults, then --preset, then explicit options.

    A preset's token labels name that preset's rows: new rows without new labels drop them.
    """
    from scenes.pipeline.jobs.registry import spec
    defaults = spec(clip).defaults     # the book's inputs, or the name of a preset holding them
    raw = load_preset(defaults, clip) if isinstance(defaults, str) else dict(defaults)
    given = {k: v for k, v in (given or {}).items() if v is not None}
    for layer in ([load_preset(preset, clip)] if preset else []) + [given]:
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
