"""Pictures that stand for numbers: a bar whose height is a value, a dividing line that falls
between two rows (an index). Each carries what it stands for (`mob.stands`); the layout reads
each visible one back from the screen at every step's end (its step's `pictures`), and at the
landings a scene marks mid-step (`landings`: a bar that grows from one value to the next):

    stands.bar(rect, "weights[0]", per)        # per: scene units a unit of value takes, as drawn now
    stands.relabel(bars, labels)               # the bars now stand for these (a moving bar's next values)
    stands.divider(line, "prefix", 3, row_above, row_below)
    stands.arrow(arrow, ["x[0][0]", "x[0][1]"], plane)   # an arrow on a plane: a vector
    stands.landed(scene)                       # the pictures on screen now, kept for the step's record

A bar is read as its height (or length) over `per`, scaled as the bar was since (its thickness
against the thickness it was drawn with: a page scales a chart whole); a dividing line as its y and the centres of the rows
it claims to divide; an arrow as its end less its start in its plane's coordinates (layout.read_picture). tests/support/pictures.py checks them against the oracle.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import Mobject

from scenes.kit.text.layout import pictures_now


def bar(mob: Mobject, label: str, per: float, along: str = "y") -> Mobject:
    """`mob`'s height (along "x": its length) stands for the value labelled `label`, `per` scene units
    a unit as drawn now; its thickness now is the measure of how the page scales it later."""
    thick = mob.width if along == "y" else mob.height
    mob.stands = {"picture": "bar", "label": label, "per": float(per), "along": along, "thick": float(thick)}
    return mob


def arrow(mob: Mobject, labels: Sequence[str], plane: Mobject) -> Mobject:
    """`mob` (an arrow on `plane`) stands for the vector whose components are labelled `labels`."""
    mob.stands = {"picture": "arrow", "label": labels[0].rsplit("[", 1)[0], "components": list(labels),
                  "plane": plane}
    return mob


def relabel(bars: Sequence[Mobject], labels: Sequence[str]) -> None:
    for mob, label in zip(bars, labels):
        mob.stands = {**mob.stands, "label": label}


def divider(mob: Mobject, label: str, index: int, above: Mobject, below: Mobject) -> Mobject:
    """`mob` (a line) falls between rows `index` − 1 (`above`) and `index` (`below`), the index labelled `label`."""
    mob.stands = {"picture": "divider", "label": label, "index": int(index), "rows": (above, below)}
    return mob


def landed(scene: Any) -> None:
    """Keep the pictures on screen now for the step's record (a moving bar's landing)."""
    if not hasattr(scene, "picture_landings"):
        scene.picture_landings = {}
    scene.picture_landings.setdefault(scene.book.step, []).append(pictures_now(scene))
