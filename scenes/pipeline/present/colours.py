"""A page's colours in a theme, for every page that shows a clip's frames (the presenter page, the
lab's pages): one mapping from the palette (scenes/kit/text/style.py THEMES) to the names the
pages use, written into a page as CSS custom properties (`--background`, `--text`, …) that its
styles and explain.js read. A few shades a page needs and the palette has no role for (a
button's face, a chosen button, a refused cell) are two of the theme's colours mixed.
"""
from __future__ import annotations

from scenes.kit.text import style

ROLES = {"background": "background", "text": "text", "muted": "muted", "panel": "heat_low", "query": "query",
         "key": "key", "value": "value", "track": "track", "mask": "mask", "grid": "grid"}
MIXED = {"soft": ("text", "muted", 0.5),            # secondary words: between the text and the muted
         "button": ("background", "nan", 0.7),      # a button's or a select's face
         "chosen": ("background", "track", 0.15),   # the chosen question's button
         "bad": ("background", "mask", 0.12)}       # a refused cell, the step being recorded


def mix(a: str, b: str, t: float) -> str:
    """`a` moved `t` of the way towards `b` (#RRGGBB)."""
    pa, pb = ([int(c[k:k + 2], 16) for k in (1, 3, 5)] for c in (a, b))
    return "#" + "".join(f"{round(x + t * (y - x)):02X}" for x, y in zip(pa, pb))


def colours(theme: str) -> dict[str, str]:
    """The page's colours in `theme` by name: background and words, the panel (bars, headers),
    the marks, and the mixed shades."""
    c = style.THEMES[theme]
    out = {name: c[role] for name, role in ROLES.items()}
    out.update({name: mix(c[a], c[b], t) for name, (a, b, t) in MIXED.items()})
    return out


def variables(theme: str) -> str:
    """The page's colours as a CSS rule: `:root { --background: #0F1117; ... }`."""
    return ":root { " + " ".join(f"--{name}: {colour};" for name, colour in colours(theme).items()) + " }"
