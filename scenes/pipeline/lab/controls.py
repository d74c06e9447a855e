"""How the lab page edits each option, and what a click on the still edits: declared as data
(assets/lab/controls.json, beside the clips' words), once per clip option, never as page code. The page draws a widget per kind; the server
turns a click on a still's manifest item into a new value of the option that item names.

Kinds: matrix (a grid of cells; rows and columns within `rows`/`cols`), vector (one row of
cells, joined by `sep`), flag (a switch), range (a slider with its box: low, high, step),
choice (one of `values`), tokens (a row of words), text (anything else, as typed).

Picks: an option declares the still's items it edits by their manifest label (a pattern with
named groups): `row` (the item's row becomes the option's value), `text` (the item's drawn
text), `flip` (bit `bit` of mask `mask` in a comma list of bit strings). Or, as an object, the
names of a grid's rows or columns (label items with `names` as their role, or one of them, in a grid matching
`grid`), its hit area the name stretched over its row or column: `index` (the name's index
becomes the value) or `toggle` (a flag turned over, 0 and 1 swapped) where the name's index is
`at` or `after` the sum of the checked inputs `position`, and `if` names a checked input that
must hold; or `pad` (a key's name turns that key into a pad or back: the pad count, pads kept a
prefix of the keys for left padding, a suffix for right). A value the clip's rules refuse is never offered.
Panels: the compute result's fields the numbers panel lists, under the labels the clip draws
them with (`{0}`, `{1}`: the field's indices); a clip without one lists every numeric field.
"""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np


TABLE = json.loads((Path(__file__).resolve().parents[3] / "assets" / "lab" / "controls.json").read_text("utf-8"))
FLAG, TEXT = {"kind": "flag"}, {"kind": "text"}
CONTROLS: dict[str, dict[str, dict]] = TABLE["controls"]               # clip -> option -> its widget
PICKS: dict[str, dict[str, list]] = {              # clip -> option -> (pattern, action) or a names rule
    clip: {option: [rule if isinstance(rule, dict) else tuple(rule) for rule in rules]
           for option, rules in options.items()}
    for clip, options in TABLE["picks"].items()}
PANELS: dict[str, list[tuple[str, str]]] = {clip: [(path, template) for path, template in fields]
                                            for clip, fields in TABLE["panels"].items()}
DECIMALS: dict[str, int] = TABLE["decimals"]  # as the clip draws them (4 elsewhere)
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
          same: Callable[[str, Any], bool | None] | None = None) -> list[dict]:
    """The still's hit areas: each manifest item an option declares, with the value a click gives;
    `same(option, value)`: whether that value is what the option holds now (by the clip's rules;
    None: the rules refuse it)."""
    out = []
    for option, rules in PICKS.get(clip, {}).items():
        key = option.replace("-", "_")
        now = checked[key] if key in checked else given.get(key, False)   # a flag the rules rename
        for item in items:
            for rule in rules:
                found = (named(rule, item, items, now, checked) if isinstance(rule, dict)
                         else labelled(rule, item, now))
                if found is None:
                    continue
                box, value = found
                current = same(key, value) if same else str(checked.get(key)) == str(value)
                if current is not None:
                    out.append({"box": box, "option": key, "value": value, "label": item["label"],
                                "grid": item.get("grid"), "current": current})
                break
    return out


def labelled(rule: tuple, item: dict, current: Any) -> tuple[list, str] | None:
    """A number item whose label the rule's pattern matches: its cell and the value it gives."""
    pattern, action = rule
    m = re.match(pattern, item.get("label", "")) if item.get("kind") == "number" else None
    value = picked(action, m, item, current) if m else None
    return None if value is None else (item.get("cell") or item["box"], value)


def named(rule: dict, item: dict, items: list[dict], current: Any, checked: dict) -> tuple[list, Any] | None:
    """A row's or column's name the rule takes: its area and the value it gives."""
    grid = str(item.get("grid", ""))
    roles = rule["names"] if isinstance(rule["names"], list) else [rule["names"]]    # a pad key's name is muted
    if (item.get("kind") != "label" or item.get("role") not in roles or "index" not in item
            or not re.match(rule.get("grid", ".*"), grid) or ("if" in rule and not checked.get(rule["if"]))):
        return None
    index = int(item["index"])
    if rule["action"] == "index":
        value: Any = str(index)
    elif rule["action"] == "pad":
        value = pad_toggled(index, checked)
        if value is None:
            return None
    else:
        position = sum(int(checked.get(k) or 0) for k in rule.get("position", []))
        if not (index == position if rule.get("where") == "at" else index > position):
            return None
        value = (not current) if isinstance(current, bool) else str(1 - int(current))
    return stretched(item, items), value


def pad_toggled(key: int, checked: dict) -> str | None:
    """The pad count that turns key `key` into a pad or back, the pads kept a prefix (left) or a
    suffix (right) of the keys: a pad key and the pads beyond it are unpadded, a key that is not
    a pad becomes one with every key between it and the pads; None where that leaves no key."""
    n_k, pads = len(checked["k"]), int(checked.get("pad") or 0)
    left = checked.get("pad_side", "left") == "left"
    position = key if left else n_k - 1 - key            # its place counted from the pads' side
    value = position if position < pads else position + 1
    return str(value) if 0 <= value < n_k else None


def stretched(item: dict, items: list[dict]) -> list[float]:
    """A row's or column's name with its box stretched along its row's cells (or its column's)."""
    x0, y0, x1, y1 = item["box"]
    axis, k = item.get("axis"), item["index"]
    cells = [i["cell"] for i in items if i.get("grid") == item["grid"] and i.get("cell")
             and i.get("row" if axis == "row" else "col") == k]
    if axis == "row" and cells:
        return [x0, min(y0, *(c[1] for c in cells)), x1, max(y1, *(c[3] for c in cells))]
    if cells:
        return [min(x0, *(c[0] for c in cells)), y0, max(x1, *(c[2] for c in cells)), y1]
    return [x0, y0, x1, y1]


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
