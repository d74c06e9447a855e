"""The legibility contract (README, "What every frame promises") and the number check,
read from a clip's manifest: its `layout` (boxes at the end of each step) and `numbers`.

    layout_problems(manifest)          -> list of broken rules, empty when the frame is fine
    oracle_problems(records, expected) -> numbers that differ from the oracle, or that no oracle checks
"""
import math
import re

MIN_NUMBER_HEIGHT = 0.15    # frame units: 20 px at 1080p, 7 px at 480p
MAX_NUMBER_CHARS = 10
EPS = 0.01                  # boxes may touch
TEXT_KINDS = ("number", "label")


def _overlap(a, b):
    return a[0] + EPS < b[2] and b[0] + EPS < a[2] and a[1] + EPS < b[3] and b[1] + EPS < a[3]


def layout_problems(manifest):
    """(a) inside the frame, numbers and labels clear of the title and caption bands;
    (b) no two numbers or labels overlap; (c) numbers at least 0.15 units tall;
    (d) numbers at most 10 characters; (e) captions in at most two lines, within the width."""
    if "frame" not in manifest or "layout" not in manifest:
        return ["no frame/layout in the manifest"]
    w, h = manifest["frame"]["width"], manifest["frame"]["height"]
    out = []
    for st in manifest["layout"]:
        n, items = st["step"], st["items"]
        bands = [it["box"] for it in items if it["kind"] in ("title", "caption")]
        texts = [it for it in items if it["kind"] in TEXT_KINDS]
        for it in items:
            x0, y0, x1, y1 = it["box"]
            name = f"step {n}: {it['kind']} {it['text'][:20]!r}"
            if x0 < -w / 2 - EPS or x1 > w / 2 + EPS or y0 < -h / 2 - EPS or y1 > h / 2 + EPS:
                out.append(f"{name} leaves the frame {it['box']}")
            if it["kind"] == "number":
                if y1 - y0 < MIN_NUMBER_HEIGHT - 1e-9:
                    out.append(f"{name} is {y1 - y0:.3f} units tall (< {MIN_NUMBER_HEIGHT})")
                if len(it["text"]) > MAX_NUMBER_CHARS:
                    out.append(f"{name} is longer than {MAX_NUMBER_CHARS} characters")
            if it["kind"] == "caption" and it["text"].count("\n") > 1:
                out.append(f"{name} takes more than two lines")
            if it["kind"] in TEXT_KINDS:
                for b in bands:
                    if y0 + EPS < b[3] and b[1] + EPS < y1:
                        out.append(f"{name} runs into the title or caption band")
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                if _overlap(texts[i]["box"], texts[j]["box"]):
                    out.append(f"step {n}: {texts[i]['text'][:16]!r} overlaps {texts[j]['text'][:16]!r}")
    return out


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
    return abs(shown - expected) <= tol * (1 + 1e-9) + 1e-12


def oracle_problems(records, expected):
    """Each record's text checked against expected[label]; labels with no oracle are problems."""
    out = []
    for rec in records:
        if rec["label"] not in expected:
            out.append(f"no oracle for {rec['label']!r} (shown as {rec['text']!r})")
        elif not agrees(rec["text"], expected[rec["label"]]):
            out.append(f"{rec['label']} shows {rec['text']!r}, the oracle says {expected[rec['label']]!r}")
    return out


def coverage(records, expected):
    checked = sum(rec["label"] in expected for rec in records)
    return checked / len(records) if records else 1.0
