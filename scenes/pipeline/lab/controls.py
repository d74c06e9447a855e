"""How the lab page edits each option, and what a click on the still edits: declared here as
data, once per clip option, never as page code. The page draws a widget per kind; the server
turns a click on a still's manifest item into a new value of the option that item names.

Kinds: matrix (a grid of cells; rows and columns within `rows`/`cols`), vector (one row of
cells, joined by `sep`), flag (a switch), range (a slider with its box: low, high, step),
choice (one of `values`), tokens (a row of words), text (anything else, as typed).

Picks: an option declares the still's items it edits by their manifest label (a pattern with
named groups): `row` (the item's row becomes the option's value), `text` (the item's drawn
text), `flip` (bit `bit` of mask `mask` in a comma list of bit strings).
Panels: the compute result's fields the numbers panel lists, under the labels the clip draws
them with (`{0}`, `{1}`: the field's indices); a clip without one lists every numeric field.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterator

import numpy as np


def matrix(rows: tuple[int, int] = (1, 8), cols: tuple[int, int] = (1, 8)) -> dict:
    return {"kind": "matrix", "rows": list(rows), "cols": list(cols)}


def vector(cols: tuple[int, int] = (1, 8), sep: str = " ") -> dict:
    return {"kind": "vector", "cols": list(cols), "sep": sep}


def slider(low: float, high: float, step: float = 1) -> dict:
    return {"kind": "range", "low": low, "high": high, "step": step}


FLAG, TEXT = {"kind": "flag"}, {"kind": "text"}
TOKENS = {"kind": "tokens", "cols": [0, 8], "sep": " "}     # words, one cell each (none: the clip's own names)
SHAPE = vector((3, 3), ",")

CONTROLS: dict[str, dict[str, dict]] = {
    "weighted-average": {"x": matrix((2, 8)), "query": slider(0, 7), "tokens": TOKENS},
    "score-grid": {"x": matrix(), "wq": matrix(), "wk": matrix(), "wv": matrix(), "q": matrix(), "k": matrix(),
                   "v": matrix(), "seed": slider(0, 1000), "tokens": TOKENS},
    "causal-mask": {"q": matrix(), "k": matrix(), "v": matrix(), "track": slider(0, 7), "no-scale": FLAG,
                    "no-causal": FLAG, "diagonal": slider(0, 1), "cached": slider(0, 7), "tokens": TOKENS,
                    "delta": slider(-100, 100, 0.5), "cache-view": slider(1, 5)},
    "future-check": {"shape": SHAPE, "heads": slider(1, 12), "prefix": slider(1, 7), "delta": slider(-100, 100, 0.5),
                     "seed": slider(0, 1000), "dropout": slider(0, 0.95, 0.05)},
    "dropout": {"weights": vector((1, 6)), "p": slider(0, 0.95, 0.05),
                "mode": {"kind": "choice", "values": ["train", "eval"]}, "masks": TEXT,
                "samples": slider(1, 1000), "seed": slider(0, 1000)},
    "multihead": {"shape": SHAPE, "heads": slider(1, 4), "track": TEXT, "wrong-merge": FLAG,
                  "error-d": slider(1, 12), "error-heads": slider(2, 4)},
    "implementation": {"shape": SHAPE, "heads": slider(1, 8), "seed": slider(0, 1000)},
    "exercises": {"d-model": slider(1, 4096), "heads": slider(1, 64), "pause": slider(0, 30), "only": TEXT},
}

PICKS: dict[str, dict[str, list[tuple[str, str]]]] = {
    "causal-mask": {"track": [(r"^(scores|scaled|masked|weights|mask|post_\w+|output)\[(?P<row>\d+)\]\[\d+\]$", "row"),
                              (r"^row_sums\[(?P<row>\d+)\]$", "row")]},
    "weighted-average": {"query": [(r"^scores\[(?P<row>\d+)\]\[\d+\]$", "row")]},
    "dropout": {"masks": [(r"^chosen\[(?P<mask>\d+)\]\.mask\[(?P<bit>\d+)\]$", "flip")]},
    "multihead": {"track": [(r"^(start|split|transposed|back|merged|wrong)(\[\d+\])+$", "text")]},
}

PANELS: dict[str, list[tuple[str, str]]] = {
    "causal-mask": [("steps.scores", "scores[{0}][{1}]"), ("steps.scaled", "scaled[{0}][{1}]"),
                    ("steps.masked", "masked[{0}][{1}]"), ("steps.weights", "weights[{0}][{1}]"),
                    ("steps.row_sums", "row_sums[{0}]"), ("steps.output", "output[{0}][{1}]")],
    "dropout": [("weights", "weights[{0}]"), ("weight_sum", "weight_sum"), ("rows", "chosen[{0}].row[{1}]"),
                ("sums", "chosen[{0}].sum"), ("probs", "chosen[{0}].prob"), ("table.expected_sum", "expected_sum")],
    "multihead": [(f"{name}", f"track.{name}[{{0}}]") for name in
                  ("start", "split", "transposed", "back", "merged", "wrong")] + [("head_dim", "head_dim")],
}
DECIMALS = {"dropout": 6}     # as the clip draws them (4 elsewhere)
MOST_NUMBERS = 400           # a panel lists at most this many


def controls(clip: str, options: list) -> list[dict]:
    """Each option's widget (text where the clip declared none here)."""
    declared = CONTROLS.get(clip, {})
    return [dict(FLAG if o.flag else declared.get(o.name, TEXT)) for o in options]


def field(result: Any, path: str) -> Any:
    for part in path.split("."):
        result = result[part] if isinstance(result, dict) else getattr(result, part)
    return result


def entries(value: Any, template: str) -> Iterator[tuple[str, Any]]:
    """(label, value) for every number in a scalar, a tuple or an array, by the template."""
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return
    if isinstance(value, (int, float, np.integer, np.floating)):
        yield template, value
        return
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        return
    if a.dtype.kind not in "iuf" or a.ndim > 4:
        return
    for idx in np.ndindex(a.shape):
        yield template.format(*idx), a[idx].item()


def numbers(clip: str, result: Any) -> list[tuple[str, Any]]:
    """The panel's numbers: the declared fields, or every numeric one (nested ones prefixed)."""
    out: list[tuple[str, Any]] = []
    declared = PANELS.get(clip)
    if declared:
        for path, template in declared:
            out.extend(entries(field(result, path), template))
        return out[:MOST_NUMBERS]

    def walk(node: Any, prefix: str, depth: int) -> None:
        items = (vars(node).items() if isinstance(node, object) and hasattr(node, "__dict__")
                 and not dataclasses.is_dataclass(node)
                 else ((f.name, getattr(node, f.name)) for f in dataclasses.fields(node))
                 if dataclasses.is_dataclass(node) else node.items() if isinstance(node, dict) else ())
        for name, value in items:
            if dataclasses.is_dataclass(value) or isinstance(value, dict) or hasattr(value, "__dict__") and \
                    not isinstance(value, (np.ndarray, np.generic)):
                if depth < 3:
                    walk(value, f"{prefix}{name}.", depth + 1)
                continue
            shape = np.shape(value) if isinstance(value, (np.ndarray, list, tuple)) else ()
            template = prefix + str(name) + "".join("[{%d}]" % k for k in range(len(shape)))
            out.extend(entries(value, template))
    walk(result, "", 0)
    return out[:MOST_NUMBERS]


def picks(clip: str, items: list[dict], given: dict, checked: dict,
          same: Callable[[str, str], bool] | None = None) -> list[dict]:
    """The still's hit areas: each manifest item an option declares, with the value a click gives;
    `same(option, value)`: whether that value is what the option holds now (by the clip's rules)."""
    out = []
    for option, rules in PICKS.get(clip, {}).items():
        key = option.replace("-", "_")
        for item in items:
            if item.get("kind") != "number":
                continue
            for pattern, action in rules:
                m = re.match(pattern, item.get("label", ""))
                if not m:
                    continue
                value = picked(action, m, item, checked.get(key))
                if value is not None:
                    current = same(key, value) if same else str(checked.get(key)) == value
                    out.append({"box": item.get("cell") or item["box"], "option": key, "value": value,
                                "label": item["label"], "current": current})
                break
    return out


def picked(action: str, m: re.Match, item: dict, current: Any) -> str | None:
    if action == "row":
        return m.group("row")
    if action == "text":
        return str(item.get("text", ""))
    if action == "flip" and isinstance(current, (list, tuple)):
        masks = ["".join("1" if b else "0" for b in mask) for mask in current]
        k, bit = int(m.group("mask")), int(m.group("bit"))
        if k < len(masks) and bit < len(masks[k]):
            masks[k] = masks[k][:bit] + ("0" if masks[k][bit] == "1" else "1") + masks[k][bit + 1:]
            return ",".join(masks)
    return None
