"""The one way a number reaches the screen: format it, draw it, record it.

Every drawn number is recorded as {label, value, text, decimals} in the clip's manifest.
Text with numbers in it is built from a template and slots: the template may hold
no digit at all, and each slot must be a `Shown` that this book made (fmt, index,
coords, word, const, user_text, compose). A digit anywhere else fails at build time,
and so does a drawn mobject with a digit that the book did not make (layout.snapshot).
"""
from __future__ import annotations

import re
import unicodedata
from collections import OrderedDict
from typing import Any, Iterable

from manim import MathTex, Mobject, Text

from scenes.compute import provenance
from scenes.kit.text import lang, style
from scenes.kit.text.glyphs import number_text, reused, settable

# CJK number words chosen from the data ("三个") go through word(); a Chinese
# numeral typed as part of a phrase ("同一", "一次") is language, not data.
CJK_DIGITS = "零一二三四五六七八九十"


NUMBERED = re.compile(r"\{(\d+)\}")      # a translation's reordered slots: {1} ... {0}
NAMED = re.compile(r"\{([a-z][a-z0-9_]*)\}")   # named slots: {p}, {d_in}


_MADE: OrderedDict[tuple[str, str, float, str], Text] = OrderedDict()
MADE_LIMIT = 1500          # texts kept for reuse in one process (a few hundred kB each)


def made_text(text: str, font: str, size: float, color: str) -> Text:
    """A Text; a repeated one is copied (parsing Pango's SVG is the slow part of building a clip,
    a copy is several times faster)."""
    return reused(_MADE, MADE_LIMIT, (text, font, size, str(color)),
                  lambda: Text(text, font=font, font_size=size, color=color))


class TypedNumberError(ValueError):
    """A scene drew a number that did not come through the NumberBook."""


class Shown(str):
    """Text a book made: `labels` names the manifest records it shows, `users` the user
    texts (option, text) in it. Only a NumberBook makes one (`by`): a Shown built
    elsewhere is refused as a slot and as a text."""
    labels: tuple[str, ...] = ()
    users: tuple[tuple[str, str], ...] = ()
    by: Any = None
    full: str | None = None          # an abbreviated user text: the whole of it (abbreviated())

    def __new__(cls, text: str, labels: Iterable[str] = (), users: Iterable[tuple[str, str]] = (),
                by: Any = None) -> Shown:
        obj = super().__new__(cls, text)
        obj.labels, obj.users, obj.by = tuple(labels), tuple(users), by
        return obj


def numerals(text: str) -> list[str]:
    """Every digit-like character: 0-9 and any other decimal, super/subscript or fraction."""
    return [c for c in text if unicodedata.category(c) in ("Nd", "No")]


def half_widths(text: str) -> int:
    """How wide a text is set, in half-widths: a wide or fullwidth character (Unicode's East Asian
    Width W or F: CJK, kana, Hangul, fullwidth forms) counts two, any other one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class NumberBook:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self._index: dict[tuple[str, str], dict[str, Any]] = {}
        self.meta: dict[int, dict[str, Any]] = {}   # id(mobject) -> kind, label, text, numbers
        self.kept: list[Mobject] = []
        self.spoken: set[str] = set()               # labels said in the narration
        self.sources: dict[str, Any] = {}           # label -> provenance.Source, set by the clip
        self.says: dict[str, Any] = {}              # label pattern -> provenance.Given | Const | Made
        self.made_as: dict[str, str] = {}           # label -> how a number with no source was made
        self._said: dict[int, tuple] = {}           # record -> the fields provenance.kind gave it
        self.step = 0                               # the step being built (set by ClipScene)

    def made(self, text: Any) -> bool:
        return isinstance(text, Shown) and text.by is self

    def _shown(self, text: str, labels: Iterable[str] = (), users: Iterable[tuple[str, str]] = ()) -> Shown:
        return Shown(text, labels, users, by=self)

    # -- numbers as text
    def fmt(self, label: str, value: Any, decimals: int = 4) -> Shown:
        """Record a number and return its drawn text (a slot for text())."""
        text = style.format_number(value, decimals)
        whole = isinstance(value, int) and not isinstance(value, bool)
        return self._record(label, style.manifest_value(value), text, None if whole else decimals)

    def _record(self, label: str, value: Any, text: str, decimals: int | None = None) -> Shown:
        if (label, text) not in self._index:
            rec = {"label": label, "value": value, "text": text, "decimals": decimals, "step": None}
            self._index[(label, text)] = rec
            self.records.append(rec)
        return self._shown(text, [label])

    def index(self, label: str, value: int) -> Shown:
        """Indices, shapes and coordinates are numbers too."""
        self.made_as.setdefault(label, provenance.INDEX)
        return self.fmt(label, int(value))

    def grouped(self, label: str, value: int) -> Shown:
        """A whole number with grouping commas (2,360,064), recorded with its value."""
        return self._record(label, int(value), style.format_grouped(int(value)))

    def const(self, value: int) -> Shown:
        """A constant the book prints as a digit in its sentences ("和为 1", "恰好为 1")."""
        return self._record("const", int(value), style.format_number(int(value)))

    def coords(self, label: str, values: Iterable[int]) -> Shown:
        """'[0, 1, 2]' with each coordinate recorded."""
        parts = [self.index(f"{label}[{i}]", v) for i, v in enumerate(values)]
        return self.compose("[" + ", ".join("{}" for _ in parts) + "]", *parts)

    def word(self, label: str, value: int, measure: bool = False) -> Shown:
        """A count written as a Chinese word ("三"), recorded like any number (0-99);
        measure: before a measure word, where 2 is "两"."""
        n = int(value)
        if measure and n == 2:
            return self._record(label, n, lang.tr("两"))
        if lang.current != lang.SOURCE:
            other = lang.count_word(n)
            return self._record(label, n, other) if other else self.index(label, n)
        if not 0 <= n < 100:
            return self.index(label, n)
        tens, ones = divmod(n, 10)
        text = CJK_DIGITS[n] if n <= 10 else (
            ("" if tens == 1 else CJK_DIGITS[tens]) + "十" + (CJK_DIGITS[ones] if ones else ""))
        return self._record(label, n, text)

    def section(self, label: str, section_id: str) -> Shown:
        """A section id ("4.1", "4.10") drawn as the book writes it; recorded as its string."""
        self.made_as[label] = provenance.SECTION
        return self._record(label, str(section_id), str(section_id))

    def user_text(self, text: str, source: str = "tokens") -> Shown:
        """A user's own label (a token from the option `source`, or its start and "…"): drawn
        as given, digits and all; each drawn one is listed in the layout as user text."""
        return self._shown(str(text), users=[(source, str(text))])

    def abbreviated(self, text: str, width: int, source: str = "tokens") -> Shown:
        """A user's label at most `width` half-widths: as it is when it fits (a text the book made
        is returned itself), else its start and "…" (counted one), the whole text kept as `full`
        for the layout record."""
        if half_widths(text) <= width:
            return text if isinstance(text, Shown) and self.made(text) else self.user_text(text, source)
        cut = ""
        for ch in str(text):
            if half_widths(cut + ch) > width - 1:
                break
            cut += ch
        shown = self.user_text(cut + "…", source)
        shown.full = str(text)
        return shown

    def term(self, text: str) -> Shown:
        """A fixed name that is not translated (a class name in code): no digit in it."""
        if numerals(text):
            raise TypedNumberError(f"{text!r} is not a name: numbers come through the book's slots")
        return self._shown(str(text))

    def rewrap(self, text: Shown, new: str) -> Shown:
        """The same text with its lines broken elsewhere (only whitespace may change)."""
        if not self.made(text) or "".join(new.split()) != "".join(str(text).split()):
            raise TypedNumberError(f"{new!r} is not {text!r} rewrapped")
        return self._shown(new, text.labels, text.users)

    def compose(self, template: str, *slots: Shown, **named: Shown) -> Shown:
        """Fill a digit-free template's slots with texts the book made: {} in order, or named
        ones ({p}, {d_in}) given by name (no other brace is special). The template is said in
        the current language (scenes/kit/text/lang.py); a translation uses exactly its source's
        names (a {} template may still number its slots {1} ... {0}; the catalogue has none)."""
        typed = numerals(NAMED.sub("", template))          # a slot's name may hold a digit: {dim0}
        if typed:
            raise TypedNumberError(f"{typed} typed in {template!r}: numbers come from the compute "
                                   "module through the book's slots")
        for slot in (*slots, *named.values()):
            if not self.made(slot):
                raise TypedNumberError(f"slot {slot!r} in {template!r} was not made by the book")
        said = lang.tr(template)
        if named:
            return self._named(template, said, slots, named)
        if NUMBERED.search(said):
            order = [int(k) for k in NUMBERED.findall(said)]
            if sorted(order) != list(range(len(slots))):
                raise TypedNumberError(f"{said!r} must use each of its {len(slots)} slots once")
            pieces = NUMBERED.split(said)[::2]
            slots = tuple(slots[k] for k in order)
        else:
            pieces = said.split("{}")
        if len(pieces) != len(slots) + 1:
            raise TypedNumberError(f"{said!r} has {len(pieces) - 1} slots, given {len(slots)}")
        text = pieces[0] + "".join(str(s) + p for s, p in zip(slots, pieces[1:]))
        return self._shown(text, [lab for s in slots for lab in s.labels],
                           [u for s in slots for u in s.users])

    def _named(self, template: str, said: str, slots: tuple, named: dict[str, Shown]) -> Shown:
        if slots:
            raise TypedNumberError(f"{template!r}: give its slots by name or in order, not both")
        for text in (template, said):
            if set(NAMED.findall(text)) != set(named) or "{}" in text:
                raise TypedNumberError(f"{text!r} must use exactly the slots {sorted(named)}")
        parts = NAMED.split(said)          # text, name, text, name, ..., text
        filled = [named[p] if k % 2 else p for k, p in enumerate(parts)]
        used = [named[p] for p in parts[1::2]]
        return self._shown("".join(map(str, filled)), [lab for s in used for lab in s.labels],
                           [u for s in used for u in s.users])

    # -- mobjects
    def register(self, mob: Mobject, kind: str, text: Shown, label: str | None = None,
                 place: dict[str, Any] | None = None) -> Mobject:
        """Record a drawn text the book made. place: where it belongs, for the layout record:
        {"grid", "row", "col", "cell": its cell's Rectangle} for an entry of a grid, or
        {"grid", "axis": "row"|"col", "index"} for a row or column label."""
        if not self.made(text):
            raise TypedNumberError(f"{str(text)!r} was not made by the book: it cannot be registered")
        self.kept.append(mob)       # kept alive: an id is never reused by another mobject
        self.meta[id(mob)] = {"kind": kind, "label": label if label is not None else str(text),
                              "text": str(text), "numbers": list(text.labels), "users": list(text.users),
                              "place": place or {}, "full": text.full}
        return mob

    def mark(self, mob: Mobject, kind: str, covers: Iterable[str]) -> Mobject:
        """A highlight or mark (the tracked element, a masked or hidden cell): the labels of
        the numbers it covers go into the layout record as an item of kind "mark"."""
        self.kept.append(mob)
        self.meta[id(mob)] = {"kind": "mark", "mark": kind, "covers": list(covers)}
        return mob

    def num(self, label: str, value: Any, decimals: int = 4, color: str | None = None,
            size: float = style.NUMBER_SIZE, place: dict[str, Any] | None = None) -> Mobject:
        """A number on its own, set from cached glyphs (scenes/kit/text/glyphs.py); the text colour unless told."""
        color = color or style.TEXT
        text = self.fmt(label, value, decimals)
        mob = (number_text(str(text), size, color) if settable(text)
               else Text(str(text), font=style.NUMBER_FONT, font_size=size, color=color))
        return self.register(mob, "number", text, label, place)

    def text(self, template: str, *slots: Shown, color: str | None = None, size: float = style.BODY_SIZE,
             font: str = style.FONT, kind: str = "label", place: dict[str, Any] | None = None,
             **named: Shown) -> Mobject:
        """Plain text (never parsed as markup) from a digit-free template and the book's slots."""
        shown = (template if isinstance(template, Shown) and self.made(template) and not slots and not named
                 else self.compose(template, *slots, **named))
        return self.register(made_text(str(shown), lang.font(font), size, color or style.TEXT), kind, shown,
                             place=place)

    def label(self, text: str, color: str | None = None, size: float = style.BODY_SIZE,
              font: str = style.FONT, place: dict[str, Any] | None = None) -> Mobject:
        """Words, or a text the book made (a Shown): the same as text() without slots."""
        return self.text(text, color=color, size=size, font=font, place=place)

    def new_grid(self, name: str) -> str:
        """A name for one drawn grid in the layout record: its labels' name and a serial."""
        self.grids = getattr(self, "grids", 0) + 1
        return f"{name}#{self.grids}"

    def math(self, tex: str, *slots: Shown, color: str | None = None,
             size: float = style.BODY_SIZE) -> Mobject:
        """A formula: digit-free TeX with @ marking each slot the book fills."""
        color = color or style.TEXT
        typed = numerals(tex)
        if typed:
            raise TypedNumberError(f"{typed} typed in the formula {tex!r}")
        tex = lang.tr(tex)
        pieces = tex.split("@")
        if len(pieces) != len(slots) + 1 or not all(self.made(s) for s in slots):
            raise TypedNumberError(f"formula {tex!r} needs {len(pieces) - 1} slots made by the book")
        filled = pieces[0] + "".join(str(s).replace("\u2212", "-") + p for s, p in zip(slots, pieces[1:]))
        mob = MathTex(filled, color=color, font_size=size)
        return self.register(mob, "label", self._shown(filled, [lab for s in slots for lab in s.labels]))

    def manifest(self, scene_name: str, inputs: dict) -> dict:
        drawn: dict[str, int] = {}            # label -> the first step that draws it
        for rec in self.records:
            if rec["step"] is not None:
                drawn[rec["label"]] = min(drawn.get(rec["label"], rec["step"]), rec["step"])
        for rec in self.records:      # said in the narration, never drawn
            if rec["step"] is None and rec["label"] in self.spoken:
                rec["spoken"] = True
            source = self.sources.get(rec["label"])
            if source is not None:    # where it comes from (scenes/compute/provenance.py)
                rec["from"], rec["op"] = list(source.sources), source.op
            else:                     # an input (`given`) or a constant (`const`, and why), said anew
                for key in self._said.pop(id(rec), ()):    # for these inputs (a test's may come first)
                    rec.pop(key, None)
                said = provenance.kind(rec["label"], rec["value"], self.made_as.get(rec["label"]), inputs,
                                       self.says, drawn, rec["step"])
                rec.update(said)
                self._said[id(rec)] = tuple(said)
        return {"scene": scene_name, "inputs": inputs, "numbers": self.records}
