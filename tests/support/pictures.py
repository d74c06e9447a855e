"""Pictures are numbers too: every drawn thing whose size or place stands for a value or an index
(scenes/kit/text/stands.py: a bar's height, a dividing line between two rows) is read back from the
screen at each step's end (the layout's `pictures`) and at each landing a scene marks mid-step
(`landings`: a bar that grows from one value to the next), and compared with the oracle:

    picture_problems(manifest, expected) -> bars off their value, lines off their rows

A bar's height (over the scale it was drawn at) must be its label's value within TOL of the
largest value its chart shows; a dividing line must lie between the rows it names, and name the
index the oracle gives (future-check's prefix)."""
from support.contract_values import _value

TOL = 0.01       # of the chart's largest value: 1% of a bar's room


def _chart(label):
    return label.rsplit("[", 1)[0]


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
        if want is None:
            out.append(f"{name} stands for a label no oracle gives")
        elif p["picture"] == "bar":
            tol = TOL * (largest.get(_chart(p["label"])) or 1.0)
            if p["drawn"] is None or abs(p["drawn"] - float(want)) > tol:
                out.append(f"{name} is drawn {p['drawn']!r} high, the oracle says {float(want):.6g}")
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
