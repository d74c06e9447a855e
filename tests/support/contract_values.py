"""The number check of the contract (tests/support/contract.py re-exports it): each drawn number against
the oracle, its exact text by the display rules (tests/support/formatting.py) at its precision, and the
precisions those rules allow.

    oracle_problems(records, expected) -> numbers that differ from the oracle, or that no oracle checks
    precision_problems(manifest, expected) -> precisions the display rules do not allow
"""
import math
import re
from collections import defaultdict

from support.formatting import NARROW, drawn_text, least_decimals, widest


_SCI = re.compile(r"^(-?\d+(?:\.(\d+))?)e([+-]\d+)$")


COUNT_WORDS = {**{w: n for n, w in enumerate("零一二三四五六七八九十")}, "两": 2,      # 两 before a measure word
               **{w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                             "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
                                             "twenty".split())}}


def shown_value(text):
    """The number a drawn text states: 0.4223, −∞, NaN, 1.235e+87 (minus signs normalised),
    or a count written as a word: 三, 十二, 二十, three, twelve."""
    if text in COUNT_WORDS:
        return float(COUNT_WORDS[text])
    if text and all(c in COUNT_WORDS for c in text) and "十" in text:      # 十一 ... 九十九
        tens, _, ones = text.partition("十")
        return float(COUNT_WORDS.get(tens, 1) * 10 + COUNT_WORDS.get(ones, 0))
    t = text.replace("\u2212", "-").replace("\u221e", "inf")
    return float(t)


def agrees(text, expected):
    """The drawn text equals the oracle's value at the precision it is drawn with.
    An oracle may also give a rule, a callable on the shown value (e.g. "below 1e-12")."""
    if callable(expected):
        try:
            return bool(expected(shown_value(text)))
        except ValueError:
            return False
    if isinstance(expected, str):
        return text == expected
    expected = float(expected)
    if math.isnan(expected):
        return text == "NaN"
    if math.isinf(expected):
        return text == ("\u2212\u221e" if expected < 0 else "\u221e")
    try:
        shown = shown_value(text)
    except ValueError:
        return False
    plain = text.replace("\u2212", "-")
    m = _SCI.match(plain)
    if m:
        decimals = len(m.group(2) or "")
        tol = 0.5 * 10 ** (int(m.group(3)) - decimals)
    else:
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        tol = 0.5 * 10 ** -decimals
    return abs(shown - expected) <= tol * (1 + 1e-9) + 1e-12 + TIE * abs(expected)     # a tie's ulp


TIE = 1e-12     # relative: an oracle value this close to a rounding boundary may round either way
                # (0.3073965 summed in another order is 0.30739649999999996; −10523.9475, a tie
                # in decimals, is −10523.947499999998 in torch's order, an ulp from the exact sum's)


def exact_texts(rec, expected):
    """The texts the display rules give the oracle's value at the record's precision, or None
    where the oracle gives a rule or a string, or the record is a word or a grouped count."""
    if callable(expected) or isinstance(expected, str) or isinstance(expected, bool):
        return None
    if rec.get("decimals", "word") == "word" or "," in rec["text"] or rec["text"] in COUNT_WORDS:
        return None
    if rec["decimals"] is None:
        return {drawn_text(expected, None)} if float(expected) == int(float(expected)) else {"(not whole)"}
    v = float(expected)
    return {drawn_text(x, rec["decimals"]) for x in (v, v * (1 - TIE), v * (1 + TIE))}


def oracle_problems(records, expected):
    """Each record's text checked against expected[label]; labels with no oracle are problems."""
    out = []
    for rec in records:
        if rec["label"] not in expected:
            out.append(f"no oracle for {rec['label']!r} (shown as {rec['text']!r})")
            continue
        want = expected[rec["label"]]
        exact = exact_texts(rec, want)
        if not agrees(rec["text"], want):
            out.append(f"{rec['label']} shows {rec['text']!r}, the oracle says {want!r}")
        elif exact is not None and rec["text"] not in exact:
            out.append(f"{rec['label']} shows {rec['text']!r}: at {rec['decimals']} decimals the oracle's "
                       f"{want!r} is drawn {' or '.join(sorted(exact))}")
    return out


def _value(expected, label):
    v = expected.get(label)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def precision_problems(manifest, expected):
    """One precision per grid, and never fewer decimals than show the grid's values exactly
    (up to 4) unless its widest value would then pass 7 characters; an exact zero may read 0.
    A number on its own (a sum, a legend's end) may also take the precision of a grid of its step."""
    recs = {(r["label"], r["text"]): r for r in manifest["numbers"]}
    out = []
    for st in manifest["layout"]:
        grids = defaultdict(list)
        for it in st["items"]:
            rec = recs.get((it["label"], it["text"]))
            if it["kind"] == "number" and rec and rec.get("decimals") is not None:
                grids[it.get("grid") or it["label"]].append(rec)
        kept = {}
        for grid, members in grids.items():
            values = [_value(expected, r["label"]) for r in members]
            pairs = [(r, v) for r, v in zip(members, values) if v is not None and math.isfinite(v)]
            used = {r["decimals"] for r, v in pairs if v != 0}
            if len(used) > 1:
                out.append(f"step {st['step']}: grid {grid} mixes {sorted(used)} decimals")
            finite = [v for _, v in pairs]
            need = min(4, least_decimals(finite))
            kept[grid] = (len(members), used, [d for d in used if d < need and widest(finite, d + 1) < NARROW])
        grid_decimals = {d for size, used, _ in kept.values() if size > 1 for d in used}
        for grid, (size, _, short) in kept.items():
            for d in short:
                if size == 1 and d in grid_decimals:
                    continue
                out.append(f"step {st['step']}: {grid} drawn with {d} decimals; its values need more "
                           f"and fit in {NARROW} characters")
    return out
