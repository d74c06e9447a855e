"""The one palette (in two themes), fonts, sizes and number formats shared by every clip."""
import math
import os

# Each colour by the role it plays; the layout record names a drawn mobject's colour by its role
# (scenes/kit/text/layout.py reads the colour back from the mobject): a colour between the heat
# scale's ends is "heat", one off the palette is recorded as its hex. Dark: white on near-black,
# the video's look; light: near-black on white, for bright rooms and paper. Every pair drawn as
# text keeps WCAG AA contrast in both (tests/kit/test_theme.py).
THEMES = {
    "dark": {"text": "#ECEFF1", "muted": "#90A4AE",
             "query": "#4FC3F7",       # queries: blue
             "key": "#FFB74D",         # keys: orange
             "value": "#81C784",       # values: green
             "mask": "#EF5350",        # masked (-inf) cells and errors: red
             "track": "#FFEB3B",       # the tracked element / query: yellow
             "accent": "#CE93D8",      # results (outputs, sums): violet
             "grid": "#546E7A", "nan": "#37474F", "background": "#0F1117",
             "heat_low": "#1B2A41", "heat_high": "#8E3B8F"},      # weights heat scale, 0 -> 1
    "light": {"text": "#1A1D23", "muted": "#546E7A", "query": "#0369A1", "key": "#A14A06",
              "value": "#2E7D32", "mask": "#D93636", "track": "#442E00", "accent": "#8E24AA",
              "grid": "#78909C", "nan": "#ECEFF1", "background": "#FFFFFF",
              "heat_low": "#F5EEF8", "heat_high": "#DDB3E5"},
}
THEME_VARIABLE = "CHAPTER_THEME"     # a render's theme, for the processes it starts (render.py --theme)

# The theme in force (use() changes it): read where a mobject is made, never kept at import.
THEME: str
BACKGROUND: str
TEXT: str
MUTED: str
QUERY: str
KEY: str
VALUE: str
MASK: str
TRACK: str
ACCENT: str
GRID_LINE: str
NAN_FILL: str
HEAT_LOW: str
HEAT_HIGH: str
ROLES: dict[str, str] = {}           # role -> colour: the roles above but the heat scale's ends


def use(theme: str) -> None:
    """Put `theme`'s colours in force (the module's names and ROLES, changed in place)."""
    global THEME, BACKGROUND, TEXT, MUTED, QUERY, KEY, VALUE, MASK, TRACK, ACCENT, GRID_LINE, NAN_FILL
    global HEAT_LOW, HEAT_HIGH
    if theme not in THEMES:
        raise ValueError(f"theme {theme!r}: one of {', '.join(THEMES)}")
    c = THEMES[theme]
    THEME, BACKGROUND, TEXT, MUTED = theme, c["background"], c["text"], c["muted"]
    QUERY, KEY, VALUE, MASK, TRACK, ACCENT = c["query"], c["key"], c["value"], c["mask"], c["track"], c["accent"]
    GRID_LINE, NAN_FILL, HEAT_LOW, HEAT_HIGH = c["grid"], c["nan"], c["heat_low"], c["heat_high"]
    ROLES.clear()
    ROLES.update({role: c[role] for role in ("text", "muted", "query", "key", "value", "mask", "track",
                                             "accent", "grid", "nan", "background")})


use(os.environ.get(THEME_VARIABLE) or "dark")

CHAPTER = 4                          # the book's chapter these clips teach
BOOK_TITLE = "第 {} 章　从加权平均推导自注意力与因果掩码"   # {}: CHAPTER

FONT = "Noto Sans CJK SC"            # Chinese text, as the book
NUMBER_FONT = "Noto Sans Mono CJK SC"  # digits line up in grids

TITLE_SIZE = 34
CAPTION_SIZE = 28
BODY_SIZE = 26
NUMBER_SIZE = 26
LABEL_SIZE = 22

DIGIT_HEIGHT = 738 / 1000      # a digit's height per em in the number font (Noto Sans Mono CJK's units)
FRAME_MARGIN = 0.35          # keep text this far inside the frame
CAPTION_BOTTOM = -3.8        # the subtitle band grows upwards from here (one or two lines)
TITLE_Y = 3.55
CONTENT_TOP = 3.1            # the content area lies between these two
CONTENT_BOTTOM = -2.85       # (above a two-line caption)
MAX_CELL = 0.95              # grid cell side at most, in scene units
CELL_PAD = 0.18              # room around a number inside its cell
MIN_CELL_W, MIN_CELL_H = 0.75, 0.52   # small numbers still get a readable cell

# The legibility contract (SPEC.md, docs/proof.md "What every frame promises"): every drawn number at least LEGIBLE_H
# units tall (20 px at 1080p, 7 px at 480p). The page engine aims at READABLE_H, a margin
# above it, before it splits a step over pages; it prefers the book's arrangement while that
# is within PREFER of the roomiest.
LEGIBLE_H = 0.15
READABLE_H = 0.17
PREFER = 1.1
LABEL_CUT = 7                # a token label on a grid: at most this many half-widths, "…" included
PAGE_WIDTH = 13.0            # the width a page may take

STEP_PAUSE = 1.0             # the lecturer's pause at the end of each step (s)

# Pacing: a step lasts at least as long as a viewer needs to read it (docs/guide.md, "Narration, pacing and a voice"):
#   READ_BASE + CJK characters / CJK_PER_SECOND + other characters / LATIN_PER_SECOND
#   + PER_NUMBER for each number the step brings on screen (at most NUMBERS_CAP),
# times the pace factor. Animations keep their speed; only the hold at the end grows.
READ_BASE = 1.0
CJK_PER_SECOND = 5.0
LATIN_PER_SECOND = 15.0
PER_NUMBER = 0.3
NUMBERS_CAP = 8.0
PACES = {"slow": 1.5, "normal": 1.0, "fast": 0.7}
VOICE_TAIL = 0.4             # silence after a step's recording before the next step (s)
RUN_TIME = 0.8               # default animation length (s)


MAX_NUMBER_CHARS = 10        # a drawn number never grows past this (legibility contract)


def format_number(value: float | int, decimals: int = 4) -> str:
    """How a number is drawn: fixed decimals, a real minus, −∞ and NaN spelled out; the
    scientific form (3 decimals) where fixed, even with fewer decimals, would be longer than 10
    characters or read as zero."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return str(value).replace("-", "\u2212")
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "\u2212\u221e" if value < 0 else "\u221e"
    for d in range(decimals, -1, -1):      # fewer decimals before the scientific form
        text = f"{value:.{d}f}"
        if len(text) <= MAX_NUMBER_CHARS:
            break
    if float(text) == 0:
        text = text.lstrip("-")
    if len(text) > MAX_NUMBER_CHARS or (float(text) == 0 and value != 0):
        text = f"{value:.3e}"      # too long, or a non-zero that would read as zero: 1.235e+87
        if len(text) > MAX_NUMBER_CHARS:     # a minus and a three-digit exponent: −3.17e−281
            text = f"{value:.{3 - (len(text) - MAX_NUMBER_CHARS)}e}"
    return text.replace("-", "\u2212")


def format_grouped(value: int) -> str:
    """A whole number with grouping commas, as the book prints parameter counts: 2,360,064."""
    return f"{int(value):,}".replace("-", "\u2212")


def manifest_value(value: float | int) -> float | int | str:
    """Full precision for the manifest: floats stay floats, non-finite become strings."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return value
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return value


def decimals_for(values: object, choices: tuple[int, ...] = (0, 1, 2, 4)) -> int:
    """Fewest decimals that show every value exactly (the book prints [0, 1, 1]), else 4."""
    import numpy as np
    arr = np.asarray(values, float)
    arr = arr[np.isfinite(arr)]
    for d in choices:
        if np.all(np.abs(arr - np.round(arr, d)) < 1e-9):
            return d
    return choices[-1]


# Two precisions for a grid: the book's exact decimals (decimals_for), cut where its numbers grow long.
DECIMAL_STEPS = (0, 1, 2, 4)   # the precisions a grid's decimals are chosen from
GRID_CHARS = 7                 # a grid's numbers aim at this many characters


def decimals_cut_to_width(*values: object, widest: int = GRID_CHARS) -> int:
    """One precision for all `values`: the fewest decimals that show every value exactly (0, 1, 2
    or else 4), cut while the widest drawn value is longer than `widest` characters (five decimals
    cut to none). Where some value is longer at every cut (a tiny one in the scientific form), the
    cells are that wide anyway: the most decimals that fit in them."""
    import numpy as np
    arr = np.concatenate([np.asarray(v, float).ravel() for v in values])
    arr = arr[np.isfinite(arr)]
    first = decimals_for(arr)
    if not arr.size:
        return first
    options = [d for d in DECIMAL_STEPS if d <= first][::-1]
    longest = {d: max(len(format_number(float(v), d)) for v in arr) for d in options}
    limit = max(widest, min(longest.values()))
    return next(d for d in options if longest[d] <= limit)


def decimals_cut_by_digits(values: object, short: int = GRID_CHARS) -> int:
    """The book's exact decimals (0.43 stays 0.43), fewer as the largest magnitude has more whole
    digits: a grid of values up to 80000 is drawn as whole numbers, not as ten-character strings."""
    import numpy as np
    arr = np.asarray(values, float)
    top = float(np.max(np.abs(arr))) if arr.size else 0.0
    digits = len(str(int(top))) if top >= 1 else 1
    return min(decimals_for(arr), max(0, short - 2 - digits))


def reading_seconds(caption: str, new_numbers: int, pace: str = "normal") -> float:
    """How long a viewer needs for a step: its caption and the numbers it introduces."""
    cjk = sum(1 for c in caption if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")
    other = len(caption.replace(" ", "")) - cjk
    base = READ_BASE + cjk / CJK_PER_SECOND + other / LATIN_PER_SECOND
    return (base + min(new_numbers * PER_NUMBER, NUMBERS_CAP)) * PACES[pace]


# Derivations (scenes/kit/motion/derive.py): the sources light up (DERIVE_LIGHT), copies of their
# numbers fly into the expression, DERIVE_PER_TERM seconds a number, never less than DERIVE_LEAST
# nor more than DERIVE_MOST; the result shows (DERIVE_RESULT) and lands in its cell (DERIVE_LAND);
# the finished expression is read for DERIVE_HOLD. All times the pace factor.
DERIVE_LIGHT = 0.4
DERIVE_PER_TERM = 0.45
DERIVE_LEAST = 1.2
DERIVE_MOST = 3.0
DERIVE_RESULT = 0.4
DERIVE_LAND = 0.7
DERIVE_HOLD = 0.8
