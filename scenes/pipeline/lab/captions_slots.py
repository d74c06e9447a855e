"""What the lab's captions are made with, without Manim: the slots a NumberBook would fill (the same
text, style.format_number and the catalogues, in one language) and the table of the clips whose
captions are mirrored (scenes/pipeline/lab/captions.py and its captions_*.py, one chooser a clip)."""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from scenes.kit.text.lang import ENGLISH_COUNTS, SOURCE, tr
from scenes.kit.text.style import decimals_for, format_grouped, format_number

NUMBERED = re.compile(r"\{(\d+)\}")
NAMED = re.compile(r"\{([a-z][a-z0-9_]*)\}")
CJK_DIGITS = "零一二三四五六七八九十"
CHOOSERS: dict[str, Callable[..., list[str]]] = {}


class Slots:
    """What a NumberBook would write into a caption's slots, as plain text, in one language.
    measured: what the clip's compute() measured beside its result (weighted-average: whether
    its tokens are too wide to name a row)."""

    def __init__(self, lang: str, measured: dict | None = None) -> None:
        self.lang, self.measured = lang, measured or {}

    def num(self, value: Any, decimals: int = 4) -> str:
        return format_number(value, decimals)

    def index(self, value: Any) -> str:
        return format_number(int(value))

    const = index              # a constant the book prints as a digit ("和为 1")

    def grouped(self, value: Any) -> str:
        return format_grouped(int(value))

    def coords(self, values: Iterable[Any]) -> str:
        """'[2, 6, 12]' (as NumberBook.coords)."""
        return "[" + ", ".join(self.index(v) for v in values) + "]"

    def change(self, value: Any) -> str:
        """A change a check needs exactly zero: an exact 0 as 0 (sheets.slot, exact.zero_or)."""
        return self.num(value, 0 if value == 0 else 4)

    def exact(self, value: Any) -> str:
        """An input such as p or δ in the fewest decimals that show it (sheets.exact_decimals)."""
        return self.num(value, decimals_for([value], (0, 1, 2, 3, 4, 5, 6)))

    def word(self, value: int, measure: bool = False) -> str:
        """A count as a word: "三" (zh), "three" (en), else digits; before a measure word 2 is
        "两" (as NumberBook.word)."""
        n = int(value)
        if measure and n == 2:
            return tr("两", self.lang)
        if self.lang != SOURCE:
            return ENGLISH_COUNTS[n] if self.lang == "en" and 0 <= n < len(ENGLISH_COUNTS) else self.index(n)
        if not 0 <= n < 100:
            return self.index(n)
        tens, ones = divmod(n, 10)
        return CJK_DIGITS[n] if n <= 10 else (("" if tens == 1 else CJK_DIGITS[tens]) + "十" +
                                               (CJK_DIGITS[ones] if ones else ""))

    def compose(self, template: str, *slots: str, **named: str) -> str:
        """The template in this language with its slots filled ({} in order, {1} {0} reordered
        by a translation, or {name}: a name the template does not hold is left out)."""
        said = tr(template, self.lang)
        if named:
            parts = NAMED.split(said)
            return "".join(named[p] if k % 2 else p for k, p in enumerate(parts))
        if NUMBERED.search(said):
            order = [int(k) for k in NUMBERED.findall(said)]
            pieces, slots = NUMBERED.split(said)[::2], tuple(slots[k] for k in order)
        else:
            pieces = said.split("{}")
        return pieces[0] + "".join(str(s) + p for s, p in zip(slots, pieces[1:]))


def chooses(fn: Callable[..., list[str]]) -> Callable[..., list[str]]:
    """A clip's chooser (named as the clip, "_" for "-"): (inputs, result, words, Slots) -> captions."""
    CHOOSERS[fn.__name__.replace("_", "-")] = fn
    return fn
