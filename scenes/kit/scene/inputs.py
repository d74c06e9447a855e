"""Input parsing, the rules every clip's options share: numbers, fractions, matrices, vectors,
token labels and flags, each refused with one InputError that names the field and the rule.
The clips' own rules (in their modules) are built from these; the pipeline adds presets.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

PRESETS = Path(__file__).resolve().parents[3] / "assets" / "presets"
LIMIT = 100.0          # every entry in [-LIMIT, LIMIT]
MAX_SIDE = 8           # at most 8 positions and 8 columns
MAX_TEXT = 2000        # longest raw option string accepted
MAX_TOKEN = 12         # longest token label, in characters
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$")
_FRACTION = re.compile(r"^[+-]?\d{1,6}/\d{1,6}$")


class InputError(ValueError):
    """Bad input: names the option (field), the value and the rule broken."""

    def __init__(self, field: str, value: object, rule: str) -> None:
        self.field, self.value, self.rule = field, value, rule
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        rule = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in rule)   # one line
        super().__init__(f"--{field.replace('_', '-')} {ascii_safe(shown)}: {rule}")


def ascii_safe(text: str) -> str:
    """Quote a value for a one-line message: control characters escaped."""
    return repr(text) if any(not ch.isprintable() for ch in text) else f"'{text}'"


# ---------------------------------------------------------------- scalars
def number(text: object, field: str, whole: str | None = None) -> float:
    """One finite number; '1/3' fractions allowed. `whole` is the full option value."""
    s = str(text).strip().replace("\u2212", "-")
    if _NUMBER.match(s):
        value = float(s)
    elif _FRACTION.match(s) and int(s.split("/")[1]) != 0:
        value = float(Fraction(s))
    else:
        raise InputError(field, whole if whole is not None else str(text),
                         f"'{s}' is not a number (use digits like 0.5, -2 or 1/3)")
    if not np.isfinite(value):
        raise InputError(field, whole or s, "numbers must be finite")
    return value


def integer(value: object, field: str, low: int, high: int) -> int:
    """A whole number in [low, high] (up to ten digits: seeds reach 2**31 - 1)."""
    if isinstance(value, bool):
        raise InputError(field, str(value), "must be a whole number")
    s = str(value).strip()
    if not re.fullmatch(r"[+-]?\d{1,10}", s):
        raise InputError(field, s, "must be a whole number")
    n = int(s)
    if not low <= n <= high:
        raise InputError(field, s, f"must be between {low} and {high}")
    return n


def sizes(value: object, field: str, limits: dict[str, tuple[int, int]]) -> tuple[int, ...]:
    """A shape such as 'B,T,D': one whole number per name (comma- or space-separated), each in
    its limits. One rule for every way to break it, naming the limits and the size that broke them."""
    text = str(value)
    ranges = ", ".join(f"{name} {low}-{high}" for name, (low, high) in limits.items())
    rule = f"is {','.join(limits)}: {len(limits)} whole numbers with {ranges}"
    pieces = [s for s in re.split(r"[,\s]+", text.strip()) if s]
    if len(pieces) != len(limits):
        raise InputError(field, text, f"{rule} (got {len(pieces)})")
    for (name, (low, high)), piece in zip(limits.items(), pieces):
        if not re.fullmatch(r"\+?\d{1,3}", piece) or not low <= int(piece) <= high:
            raise InputError(field, text, f"{rule} ({name} = {piece} is not)")
    return tuple(int(piece) for piece in pieces)


def _raw_text(value: object, field: str) -> str | list | tuple:
    if isinstance(value, (list, tuple)):
        return value
    s = str(value)
    if len(s) > MAX_TEXT:
        raise InputError(field, s, f"is longer than {MAX_TEXT} characters")
    return s


# ---------------------------------------------------------------- arrays
def matrix(value: object, field: str, rows: tuple[int, int] = (1, MAX_SIDE),
           cols: tuple[int, int] = (1, MAX_SIDE), low: float = -LIMIT, high: float = LIMIT) -> np.ndarray:
    """Rows split by ';' or newlines, columns by ',' or spaces (or a JSON list of lists)."""
    raw = _raw_text(value, field)
    if isinstance(raw, str):
        lines = [ln for ln in re.split(r"[;\n]", raw) if ln.strip()]
        table = [[c for c in re.split(r"[,\s]+", ln.strip()) if c] for ln in lines]
        whole = raw
    else:
        table = [list(r) if isinstance(r, (list, tuple)) else [r] for r in raw]
        whole = json.dumps(raw)
    if not table:
        raise InputError(field, whole, "needs at least one row of numbers")
    if not rows[0] <= len(table) <= rows[1]:
        raise InputError(field, whole, f"needs {rows[0]} to {rows[1]} rows, got {len(table)}")
    widths = {len(r) for r in table}
    if len(widths) > 1:
        raise InputError(field, whole, "every row needs the same number of columns")
    width = widths.pop()
    if not cols[0] <= width <= cols[1]:
        raise InputError(field, whole, f"needs {cols[0]} to {cols[1]} columns, got {width}")
    out = np.array([[number(c, field, whole) for c in r] for r in table], float)
    if out.min() < low or out.max() > high:
        raise InputError(field, whole, f"every entry must lie in [{low:g}, {high:g}]")
    return out


def vector(value: object, field: str, size: tuple[int, int] = (1, MAX_SIDE), low: float = -LIMIT,
           high: float = LIMIT) -> np.ndarray:
    """Comma- or space-separated numbers."""
    raw = _raw_text(value, field)
    text = " ".join(map(str, raw)) if isinstance(raw, (list, tuple)) else raw
    if ";" in text or "\n" in text.strip():
        raise InputError(field, text, "is one row: separate entries by commas or spaces only")
    return matrix(text, field, rows=(1, 1), cols=size, low=low, high=high)[0]


def tokens(value: object, count: int, field: str = "tokens") -> list[str] | None:
    """One label per row, whitespace-separated; drawn as plain text."""
    if value is None:
        return None
    raw = _raw_text(value, field)
    labels = list(raw) if isinstance(raw, (list, tuple)) else raw.split()
    whole = raw if isinstance(raw, str) else " ".join(map(str, raw))
    if len(labels) != count:
        raise InputError(field, whole,
                         f"needs one label per row, separated by spaces: {count} labels, got {len(labels)}")
    for t in labels:
        if len(str(t)) > MAX_TOKEN or not str(t).isprintable():
            raise InputError(field, whole, f"each label: at most {MAX_TOKEN} printable characters")
    return [str(t) for t in labels]


def bit_strings(value: object, field: str, length: int, most: int = MAX_SIDE) -> list[np.ndarray]:
    """Comma-separated strings of 0/1 (or a list of them), each `length` bits (bit i keeps entry
    i), at most `most` of them; each as a bool array."""
    pieces = value if isinstance(value, (list, tuple)) else str(value).split(",")
    out = []
    for bits in (str(b).strip() for b in pieces):
        if not re.fullmatch(r"[01]+", bits) or len(bits) != length:
            raise InputError(field, str(value), f"each mask is {length} bits of 0/1 "
                                                "(bit i keeps entry i), comma-separated")
        out.append(np.array([c == "1" for c in bits]))
    if len(out) > most:
        raise InputError(field, str(value), f"at most {most} masks")
    return out


def flag(value: object) -> bool:
    return bool(value) and str(value).lower() not in ("0", "false", "no", "")


def preset_inputs(name: str) -> dict:
    """The raw inputs of preset `name` (assets/presets/NAME.json), unchecked."""
    return dict(json.loads((PRESETS / f"{name}.json").read_text("utf-8"))["inputs"])
