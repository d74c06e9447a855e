"""The one way a number reaches the screen: format it, draw it, record it.

Every drawn number is recorded as {label, value, text} in the clip's manifest.
A label whose digits were not made by fmt() is a typed number and fails at once;
the tests also look for digit-bearing text made anywhere else (tests/test_scenes.py).
"""
import re

from manim import MathTex, Text

from scenes import style
from scenes.glyphs import NumberText, settable

NUMERAL = re.compile(r"\d+(?:\.\d+)?")


class TypedNumberError(ValueError):
    """A scene drew a number that did not come through the NumberBook."""


class NumberBook:
    def __init__(self):
        self.records = []
        self._seen = set()
        self._made = set()   # numerals produced by fmt() or given as user text
        self.drawn = set()   # ids of mobjects made here

    def fmt(self, label, value, decimals=4):
        """Record a number and return its drawn text (for composing a label)."""
        text = style.format_number(value, decimals)
        self._made.update(NUMERAL.findall(text))
        if (label, text) not in self._seen:
            self._seen.add((label, text))
            self.records.append({"label": label, "value": style.manifest_value(value), "text": text})
        return text

    def index(self, label, value):
        """Indices, shapes and coordinates are numbers too."""
        return self.fmt(label, int(value))

    def coords(self, label, values):
        """'[0, 1, 2]' with each coordinate recorded."""
        return "[" + ", ".join(self.index(f"{label}[{i}]", v) for i, v in enumerate(values)) + "]"

    def user_text(self, text):
        """A user's own label (a token): drawn as given, digits and all."""
        self._made.update(NUMERAL.findall(text))
        return text

    def register(self, mob, text):
        typed = set(NUMERAL.findall(text)) - self._made
        if typed:
            raise TypedNumberError(f"{sorted(typed)} in {text!r} did not come from the compute module")
        self.drawn.add(id(mob))
        return mob

    def num(self, label, value, decimals=4, color=style.TEXT, size=style.NUMBER_SIZE):
        """A number on its own, set from cached glyphs (scenes/glyphs.py)."""
        text = self.fmt(label, value, decimals)
        if not settable(text):
            return self.label(text, color=color, size=size, font=style.NUMBER_FONT)
        return self.register(NumberText(text, size=size, color=color), text)

    def label(self, text, color=style.TEXT, size=style.BODY_SIZE, font=style.FONT):
        """Plain text built from fmt()/index() pieces (never parsed as markup)."""
        return self.register(Text(text, font=font, font_size=size, color=color), text)

    def math(self, tex, color=style.TEXT, size=style.BODY_SIZE):
        """A formula whose digits came from fmt()/index()."""
        return self.register(MathTex(tex, color=color, font_size=size), tex)

    def manifest(self, scene_name, inputs):
        return {"scene": scene_name, "inputs": inputs, "numbers": self.records}
