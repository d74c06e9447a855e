"""Numbers set from cached glyphs.

A Text costs ~20 ms (Pango writes an SVG, which is then parsed); a clip draws
hundreds of numbers made of the same dozen characters. Each character is set
once per font size, inside "0c0" so its advance and baseline are known, and a
number is then a row of glyph copies: the same outlines Pango would draw for the
whole string (the font is monospaced, so there is no kerning to lose).
"""
import atexit
import copy
import shutil
import tempfile
from functools import lru_cache

from manim import Text, VGroup, tempconfig

from scenes.kit import drawcache, style, textcache

textcache.install()     # every Text, MarkupText and formula, wherever the kit is imported, set once
drawcache.install()     # and each glyph's Cairo path built once per frame size

_REF = "0"
_cache = {}   # (char, size) -> (glyph, dx, dy, advance)
REFERENCES = []   # the glyph sheets ("0c0"): set once, never drawn (kept alive, so ids stay unique)


def _sheet(text, size):
    # Pango's SVG goes to a folder of this process: a sheet may be set outside any render
    # (at import, in a test), and two processes must never share a half-written file.
    with tempconfig({"media_dir": private_media()}):
        t = Text(text, font=style.NUMBER_FONT, font_size=size)
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
    read after parsing): the same points and colours, eight times faster."""
    shared = {id(m.path_obj): m.path_obj for m in mob.get_family() if getattr(m, "path_obj", None) is not None}
    return copy.deepcopy(mob, shared)


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


class NumberText(VGroup):
    """A number drawn from cached glyphs; `.text` is the string, as on a Text."""

    def __init__(self, text, size=style.NUMBER_SIZE, color=style.TEXT):
        super().__init__()
        self.text = text
        pen = 0.0
        for char in text:
            glyph, dx, dy, advance = _glyph(char, size)
            part = clone(glyph)
            part.move_to([pen + dx, dy, 0], aligned_edge=[-1, -1, 0])
            self.add(part)
            pen += advance
        self.set_color(color)
        self.center()


def settable(text: str) -> bool:
    """Only plain numbers take the glyph path (digits, point, minus, ∞, NaN)."""
    return text and all(c in "0123456789.\u2212\u221eNa" for c in text)
