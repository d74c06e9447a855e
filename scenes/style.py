"""The one palette, fonts, sizes and number formats shared by every clip."""
import math

BACKGROUND = "#0F1117"
TEXT = "#ECEFF1"
MUTED = "#90A4AE"
QUERY = "#4FC3F7"      # queries: blue
KEY = "#FFB74D"        # keys: orange
VALUE = "#81C784"      # values: green
MASK = "#EF5350"       # masked (-inf) cells and errors: red
TRACK = "#FFEB3B"      # the tracked element / query: yellow
ACCENT = "#CE93D8"     # results (outputs, sums): violet
GRID_LINE = "#546E7A"
HEAT_LOW, HEAT_HIGH = "#1B2A41", "#8E3B8F"   # weights heat scale, 0 -> 1
NAN_FILL = "#37474F"

FONT = "Noto Sans CJK SC"            # Chinese text, as the book
NUMBER_FONT = "Noto Sans Mono CJK SC"  # digits line up in grids

TITLE_SIZE = 34
CAPTION_SIZE = 28
BODY_SIZE = 26
NUMBER_SIZE = 26
LABEL_SIZE = 22

FRAME_MARGIN = 0.35          # keep text this far inside the frame
CAPTION_Y = -3.55            # the subtitle band
TITLE_Y = 3.55
MAX_CELL = 0.95              # grid cell side at most, in scene units
CELL_PAD = 0.18              # room around a number inside its cell
MIN_CELL_W, MIN_CELL_H = 0.75, 0.52   # small numbers still get a readable cell

STEP_PAUSE = 1.0             # the lecturer's pause at the end of each step (s)
RUN_TIME = 0.8               # default animation length (s)


def format_number(value, decimals=4):
    """How a number is drawn: fixed decimals, a real minus, −∞ and NaN spelled out."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return str(value).replace("-", "\u2212")
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "\u2212\u221e" if value < 0 else "\u221e"
    text = f"{value:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text.replace("-", "\u2212")


def manifest_value(value):
    """Full precision for the manifest: floats stay floats, non-finite become strings."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return value
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return value


def decimals_for(values, choices=(0, 1, 2, 4)):
    """Fewest decimals that show every value exactly (the book prints [0, 1, 1]), else 4."""
    import numpy as np
    arr = np.asarray(values, float)
    arr = arr[np.isfinite(arr)]
    for d in choices:
        if np.all(np.abs(arr - np.round(arr, d)) < 1e-9):
            return d
    return choices[-1]
