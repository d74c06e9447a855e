"""Numbers set from cached glyphs.

A Text costs ~20 ms (Pango writes an SVG, which is then parsed); a clip draws
hundreds of numbers made of the same dozen characters. Each character is set
once per font size, inside "0c0" so its advance and baseline are known, and a
number is then a row of glyph copies: the same outlines Pango would draw for the
whole string (the font is monospaced, so there is no kerning to lose).
"""
import atexit
import copy
import enum
import shutil
import tempfile
from collections import OrderedDict
from functools import lru_cache
from typing import Any

import numpy as np
from manim import ManimColor, Mobject, Text, VGroup, config

from scenes.kit.text import drawcache, style, textcache

textcache.install()     # every Text, MarkupText and formula, wherever the kit is imported, set once
drawcache.install()     # and each glyph's Cairo path built once per frame size

_REF = "0"
_cache = {}   # (char, size) -> (glyph, dx, dy, advance)
REFERENCES = []   # the glyph sheets ("0c0"): set once, never drawn (kept alive, so ids stay unique)


def _sheet(text, size):
    # Pango's SVG goes to a folder of this process: a sheet may be set outside any render
    # (at import, in a test), and two processes must never share a half-written file. Only
    # media_dir is swapped (tempconfig copies and restores the whole config: 10-20 ms a sheet).
    before = config._d["media_dir"]
    config.media_dir = private_media()
    try:
        t = Text(text, font=style.NUMBER_FONT, font_size=size)
    finally:
        config._d["media_dir"] = before
    REFERENCES.append(t)
    return t


@lru_cache(maxsize=None)
def private_media():
    """This process's own media folder, removed at exit: Pango's and TeX's files made outside a
    render (glyph sheets, the tests' builds and reference images) never meet another process's."""
    path = tempfile.mkdtemp(prefix="glyphs-")
    atexit.register(shutil.rmtree, path, True)
    return path


def clone(mob):
    """mob.copy() without deep-copying the parsed SVG path each glyph keeps (`path_obj`, never
    read after parsing): the same points and colours, the same sharing (`_copy`)."""
    paths = [getattr(m, "path_obj", None) for m in mob.get_family()]
    return _copy(mob, {id(p): p for p in paths if p is not None})


ATOMS = {int, float, str, bool, type(None)}     # and enums: kept, as deepcopy keeps them
MISSING = object()


@lru_cache(maxsize=None)
def _setters(kind):
    """The class attributes of kind with a setter (a key of that name in an instance's __dict__
    would go through it on setattr), or None when kind does not copy as Mobject.__deepcopy__
    does (a ManimColor copies its one array)."""
    if kind is not ManimColor and kind.__deepcopy__ is not Mobject.__deepcopy__:
        return None
    return frozenset(k for c in kind.__mro__ for k, v in vars(c).items() if hasattr(v, "__set__"))


def _copy(value, memo):
    """copy.deepcopy(value, memo) as Mobject.__deepcopy__ does it, its common cases (mobjects,
    colours, number arrays, lists, dicts, atoms) done here rather than through deepcopy's
    dispatch: the same copy, several times faster. Anything else goes to copy.deepcopy."""
    kind = type(value)
    if kind in ATOMS:
        return value
    if issubclass(kind, enum.Enum):
        ATOMS.add(kind)
        return value
    found = memo.get(id(value), MISSING)
    if found is not MISSING:
        return found
    if kind is np.ndarray and value.dtype != object:
        new = memo[id(value)] = value.copy(order="K")
    elif kind is list:
        new = memo[id(value)] = []
        new.extend(_copy(v, memo) for v in value)
    elif kind is dict:
        new = memo[id(value)] = {}
        for k, v in value.items():
            new[_copy(k, memo)] = _copy(v, memo)
    elif isinstance(value, (Mobject, ManimColor)) and _setters(kind) is not None \
            and _setters(kind).isdisjoint(value.__dict__):
        new = memo[id(value)] = kind.__new__(kind)
        state = new.__dict__
        state.update(value.__dict__)
        for k, v in state.items():
            t = type(v)
            if t in ATOMS:
                continue
            if t is np.ndarray and v.dtype != object:       # the common case, without the call
                found = memo.get(id(v), MISSING)
                if found is MISSING:
                    found = memo[id(v)] = v.copy(order="K")
                state[k] = found
            else:
                state[k] = _copy(v, memo)
        if kind is not ManimColor:
            new.original_id = str(id(value))
    else:
        new = copy.deepcopy(value, memo)
    return new


def _advance_of_ref(size):
    key = ("", size)
    if key not in _cache:
        t = _sheet(_REF * 3, size)
        _cache[key] = (t[1].get_left()[0] - t[0].get_left()[0], t[0].get_left()[0], t[0].get_bottom()[1])
    return _cache[key]


def _glyph(char, size):
    key = (char, size)
    if key not in _cache:
        ref_adv, _, _ = _advance_of_ref(size)
        t = _sheet(_REF + char + _REF, size)
        first, mid, last = t[0], t[1], t[2]
        pen = first.get_left()[0] + ref_adv            # where `char` starts
        advance = last.get_left()[0] - pen             # where the next one starts
        glyph = clone(mid)
        dx = mid.get_left()[0] - pen
        dy = mid.get_bottom()[1] - first.get_bottom()[1]   # height above the baseline
        _cache[key] = (glyph, dx, dy, advance)
    return _cache[key]


DL = np.array([-1, -1, 0])       # a glyph's lower-left corner: where move_to aligns it
_tints = {}       # (char, size, colour) -> (glyph coloured, its corner, its anchors' low and high)


def _tinted(char, size, color):
    """A glyph as a NumberText of that colour holds it: the cached glyph copied and coloured
    (VGroup.set_color colours each part as set_color does, so colouring first is the same),
    with the box move_to and center read from its anchors, measured once."""
    tint = color if isinstance(color, str) else tuple(ManimColor(color).to_rgba())
    key = (char, size, tint)
    if key not in _tints:
        part = clone(_glyph(char, size)[0]).set_color(color)
        anchors = part.get_points_defining_boundary()
        _tints[key] = (part, part.get_critical_point(DL), anchors.min(axis=0), anchors.max(axis=0))
    return _tints[key]


class NumberText(VGroup):
    """A number drawn from cached glyphs; `.text` is the string, as on a Text.

    Built as `part.move_to([pen + dx, dy, 0], aligned_edge=DL)` for each glyph copy, then
    set_color and center, but with each glyph's corner and box measured once (_tinted): the
    same floating-point sums, so the same points (tests/kit/test_glyphs.py builds it both ways)."""

    def __init__(self, text, size=style.NUMBER_SIZE, color=None):
        super().__init__()
        color = color or style.TEXT
        self.text = text
        pen = 0.0
        parts, lows, highs = [], [], []
        for char in text:
            _, dx, dy, advance = _glyph(char, size)
            tinted, corner, low, high = _tinted(char, size, color)
            part = clone(tinted)
            shift = (np.array([pen + dx, dy, 0]) - corner) * np.array([1, 1, 1])
            part.points += shift
            parts.append(part)
            lows.append(low + shift)
            highs.append(high + shift)
            pen += advance
        self.add(*parts)
        VGroup.set_color(self, color, family=False)
        if parts:
            self.shift(-(np.min(lows, axis=0) + np.max(highs, axis=0)) / 2)


def reused(kept: OrderedDict, limit: int, key: Any, build: Any) -> Any:
    """build(), or for a key seen before a copy of the first one built: the first is handed out
    and an untouched copy kept (the `limit` latest keys)."""
    if key in kept:
        kept.move_to_end(key)
        return clone(kept[key])
    mob = build()
    kept[key] = clone(mob)
    if len(kept) > limit:
        kept.popitem(last=False)
    return mob


_NUMBERS: OrderedDict = OrderedDict()
NUMBERS_LIMIT = 4000        # numbers kept for reuse in one process (a few kB each)


def number_text(text: str, size: float = style.NUMBER_SIZE, color: Any = None) -> NumberText:
    """NumberText(text, size, color); a repeated one is copied (a copy is ~3x cheaper than setting
    it glyph by glyph: the same points)."""
    color = color or style.TEXT
    key = (text, size, color if isinstance(color, str) else tuple(ManimColor(color).to_rgba()))
    return reused(_NUMBERS, NUMBERS_LIMIT, key, lambda: NumberText(text, size=size, color=color))


def settable(text: str) -> bool:
    """Only plain numbers take the glyph path (digits, point, minus, ∞, NaN)."""
    return text and all(c in "0123456789.\u2212\u221eNa" for c in text)
