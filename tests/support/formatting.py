"""The display rules of docs/proof.md "How numbers are drawn", written again for the tests (never
with scenes.kit.text.style): the exact text a value must be drawn with at a given precision, and
the precision a grid may choose.

    drawn_text(value, decimals)   -> the text: fixed decimals, −0 as 0, −∞/∞/NaN, at most
                                     10 characters (fewer decimals, then 1.235e+87), a non-zero
                                     value never reading as zero; decimals None: a whole number
    least_decimals(values)        -> the fewest decimals (0-6) that show every value exactly
    cut_to_width(values)          -> weighted-average's grids: exact decimals (0, 1, 2, 4), fewer while
                                     the widest text passes 7 characters
    cut_by_digits(values)         -> score-grid's grids: exact decimals, at most 5 minus the whole
                                     digits of the largest magnitude
"""
import math
from decimal import ROUND_HALF_EVEN, Context, Decimal

EXACT = Context(prec=800)      # every float's exact decimal expansion fits (5e-324 has 767 digits)

MINUS = "\u2212"
LONGEST = 10          # characters a drawn number may take
NARROW = 7            # a grid may drop decimals only where its widest value would pass this


def _fixed(value, decimals):
    """The exact binary value rounded half to even at `decimals` places (as printf does)."""
    q = Decimal(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN, context=EXACT)
    text = f"{q:f}"
    if decimals and "." not in text:
        text += "." + "0" * decimals
    return text[1:] if text.startswith("-") and Decimal(text) == 0 else text


def _scientific(value, decimals):
    d = Decimal(value)
    exp = d.adjusted()
    def at(e):
        return d.scaleb(-e, context=EXACT).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN,
                                                     context=EXACT)
    mantissa = at(exp)
    if abs(mantissa) >= 10:                        # 9.9996e+03 rounds up to 1.000e+04
        exp += 1
        mantissa = at(exp)
    return f"{mantissa:f}e{'-' if exp < 0 else '+'}{abs(exp):02d}"


def drawn_text(value, decimals):
    """The text the display rules give `value` at `decimals` places (None: a whole number)."""
    if decimals is None:
        return str(int(value)).replace("-", MINUS)
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return MINUS + "\u221e" if value < 0 else "\u221e"
    text = next((t for t in (_fixed(value, d) for d in range(decimals, -1, -1)) if len(t) <= LONGEST),
                _fixed(value, 0))
    if len(text) > LONGEST or (Decimal(text) == 0 and value != 0):
        text = _scientific(value, 3)
        if len(text) > LONGEST:
            text = _scientific(value, 3 - (len(text) - LONGEST))
    return text.replace("-", MINUS)


def least_decimals(values, most=6):
    """The fewest decimals that show every finite value exactly (the book prints [0, 1, 1])."""
    finite = [float(v) for v in values if math.isfinite(float(v))]
    for d in range(most + 1):
        if all(abs(v - round(v, d)) < 1e-9 for v in finite):
            return d
    return most + 1


def widest(values, decimals):
    return max((len(drawn_text(v, decimals)) for v in values if math.isfinite(float(v))), default=0)


GRID_STEPS = (0, 1, 2, 4)   # the precisions a grid's exact decimals are taken from


def exact_grid_decimals(values):
    """The fewest of GRID_STEPS that show every finite value exactly (three places take 4), else 4."""
    least = least_decimals(values, most=4)
    return least if least <= 2 else 4


def cut_to_width(values, longest=NARROW):
    """The most decimals, no more than exact_grid_decimals and among GRID_STEPS, at which no value is
    drawn wider than `longest` characters, or than the narrowest the values can be drawn at all."""
    finite = [float(v) for v in values if math.isfinite(float(v))]
    exact = exact_grid_decimals(finite)
    if not finite:
        return exact
    allowed = [d for d in GRID_STEPS if d <= exact]
    room = max(longest, min(widest(finite, d) for d in allowed))
    return max(d for d in allowed if widest(finite, d) <= room)


def cut_by_digits(values, longest=NARROW):
    """The exact decimals, but no more than leave `longest` characters to a minus, the whole digits of
    the largest magnitude (one for a magnitude below 1), the point and the decimals. Finite values only
    (a score grid's)."""
    magnitudes = [abs(float(v)) for v in values]
    assert all(math.isfinite(m) for m in magnitudes), "cut_by_digits takes finite values"
    top = max(magnitudes, default=0.0)
    whole = 1
    while top >= 10 ** whole:
        whole += 1
    return min(exact_grid_decimals(values), max(0, longest - 2 - whole))
