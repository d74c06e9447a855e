"""Pictures are numbers too: every drawn thing whose size or place stands for a value or an index
(scenes/kit/text/stands.py: a bar's height, a dividing line between two rows) is read back from the
screen at each step's end (the layout's `pictures`) and at each landing a scene marks mid-step
(`landings`: a bar that grows from one value to the next), and compared with the oracle:

    picture_problems(manifest, expected) -> bars off their value, lines off their rows

A bar's height (over the scale it was drawn at) must be its label's value within TOL of the
largest value its chart shows; an arrow's components (its end less its start, in its plane's
coordinates) its vector's within TOL of the longest component on the planes; a dividing line must lie between the rows it names, and name the
index the oracle gives (future-check's prefix)."""
import re

from support.contract_values import _value

TOL = 0.01       # of the chart's largest value: 1% of a bar's room


def _chart(label):
    """The chart a bar belongs to: its label without its indices (weights for weights[2][0])."""
    return re.sub(r"(\[\d+\])+$", "", label)


def _shown(pictures, expected, n, when):
    out, largest = [], {}
    for p in pictures:
        if p["picture"] == "bar":
            want = _value(expected, p["label"])
            if want is not None:
                largest[_chart(p["label"])] = max(largest.get(_chart(p["label"]), 0.0), abs(float(want)))
    for p in pictures:
        want = _value(expected, p["label"])
        name = f"step {n}{when}: the {p['picture']} for {p['label']}"
        if want is None and p["picture"] != "arrow":
            out.append(f"{name} stands for a label no oracle gives")
        elif p["picture"] == "bar":
            tol = TOL * (largest.get(_chart(p["label"])) or 1.0)
            if p["drawn"] is None or abs(p["drawn"] - float(want)) > tol:
                out.append(f"{name} is drawn {p['drawn']!r} high, the oracle says {float(want):.6g}")
        elif p["picture"] == "arrow":
            wants = [_value(expected, c) for c in p["components"]]
            reach = max([abs(float(w)) for q in pictures if q["picture"] == "arrow"
                         for w in (_value(expected, c) for c in q["components"]) if w is not None] or [1.0])
            if None in wants or any(abs(d - w) > TOL * reach for d, w in zip(p["drawn"], wants)):
                out.append(f"{name} is drawn as {p['drawn']}, the oracle says {wants}")
        elif p["picture"] == "divider":
            if p["index"] != want:
                out.append(f"{name} divides at row {p['index']}, the oracle says {want}")
            if not p["below"] < p["y"] < p["above"]:
                out.append(f"{name} lies at y = {p['y']}, not between rows {p['index'] - 1} "
                           f"({p['above']}) and {p['index']} ({p['below']})")
    return out


def picture_problems(manifest, expected):
    out = []
    for st in manifest["layout"]:
        out += _shown(st.get("pictures", []), expected, st["step"], "")
        for k, landed in enumerate(st.get("landings", [])):
            out += _shown(landed, expected, st["step"], f" (landing {k + 1})")
    return out


HEAT_TOL = 0.02     # of the scale: an 8-bit colour's rounding is well inside


def heat_problems(manifest, expected):
    """Each heat grid's cells at each step's end: a cell's place on the heat scale (`heat`, read from
    its fill) is its value's, on the grid's scale: 0 to 1 (weights), or its finite values' least to
    largest (scores); the oracle's values, whichever scale the grid's cells follow."""
    import math
    from collections import defaultdict
    out = []
    recorded = {r["label"]: r.get("value") for r in manifest["numbers"]}

    def value(label):      # the oracle's, or where it states a rule (near zero) the record's, which it checks
        v = _value(expected, label)
        return v if v is not None or callable(expected.get(label)) is False else _value(recorded, label)
    for st in manifest["layout"]:
        grids = defaultdict(list)
        for it in st["items"]:
            if "row" in it and it.get("grid"):
                grids[it["grid"]].append(it)
        for grid, cells in grids.items():
            heated = [(it, value(it["label"])) for it in cells if it.get("heat") is not None]
            heated = [(it, v) for it, v in heated if v is not None and math.isfinite(v)]
            if not heated:
                continue
            finite = [v for v in (value(it["label"]) for it in cells) if v is not None and math.isfinite(v)]
            low, high = min(finite), max(finite)
            scales = [lambda v: min(max(v, 0.0), 1.0),
                      lambda v: 0.0 if high <= low else (v - low) / (high - low)]
            if not any(all(abs(it["heat"] - scale(v)) <= HEAT_TOL for it, v in heated) for scale in scales):
                worst = max(heated, key=lambda iv: min(abs(iv[0]["heat"] - s(iv[1])) for s in scales))
                out.append(f"step {st['step']}: {worst[0]['label']} = {worst[1]:.4g} is coloured at "
                           f"{worst[0]['heat']:.3f} of the heat scale in {grid}, which its value does not give")
    return out
