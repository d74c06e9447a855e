"""A plane for a few vectors: just big enough for them, without tick numbers (any scale reads),
arrows (a dot where one would be too short to see) and their tags placed clear of each other."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from manim import Arrow, Dot, Mobject, NumberPlane

from scenes.kit.text import stands, style

PLANE_HALF = 2.6      # the plane's half side, in scene units
MARGIN = 1.15         # the plane reaches this much past the longest arrow
SHORTEST = 0.04       # an arrow shorter than this is drawn as a dot


def plane_for(points: np.ndarray) -> NumberPlane:
    """A plane just big enough for the points, without tick numbers (any scale reads)."""
    reach = float(np.abs(points).max()) if np.size(points) else 0.0
    reach = reach if reach > 0 else 1.0
    span, lines = reach * MARGIN, reach / 2          # grid lines at half and all of the reach
    unit = PLANE_HALF / span
    return NumberPlane(x_range=[-span, span, lines], y_range=[-span, span, lines],
                       x_length=2 * span * unit, y_length=2 * span * unit,
                       background_line_style={"stroke_color": style.GRID_LINE, "stroke_opacity": 0.5})


def arrow(plane: NumberPlane, start: Sequence[float], end: Sequence[float], color: str,
          labels: Sequence[str] | None = None) -> Mobject:
    """An arrow from start to end, or a dot where it would be too short to see; the arrow stands for
    the vector whose components are labelled `labels`, where given (the layout's `pictures`)."""
    a, b = plane.c2p(*start), plane.c2p(*end)
    if np.linalg.norm(b - a) < SHORTEST:
        return Dot(b, radius=0.06, color=color)
    shown = Arrow(a, b, buff=0, color=color, stroke_width=5, max_tip_length_to_length_ratio=0.15,
                  max_stroke_width_to_length_ratio=8)
    return stands.arrow(shown, labels, plane) if labels else shown


def _overlaps(a: np.ndarray, b: np.ndarray, pad: float = 0.06) -> bool:
    return a[0] - pad < b[2] and b[0] - pad < a[2] and a[1] - pad < b[3] and b[1] - pad < a[3]


def _box(mob: Mobject) -> np.ndarray:
    return np.array([mob.get_left()[0], mob.get_bottom()[1], mob.get_right()[0], mob.get_top()[1]])


def _crosses(box: np.ndarray, start: np.ndarray, end: np.ndarray, pad: float = 0.04) -> bool:
    """Whether the segment start-end passes through the box (sampled along its length)."""
    for t in np.linspace(0, 1, 24):
        p = start + t * (end - start)
        if box[0] - pad < p[0] < box[2] + pad and box[1] - pad < p[1] < box[3] + pad:
            return True
    return False


def place_tags(tags: Sequence[Mobject], tips: Sequence[np.ndarray], area: Sequence[float],
               origin: np.ndarray, lines: Sequence[tuple] = ()) -> None:
    """Put each tag beside its arrow's tip (arrows from `origin`): just off the arrow's line
    first, then turning and stepping away until it covers no arrow, no line (start, end) and no
    tag already placed and stays in `area` (xmin, ymin, xmax, ymax). Where nothing is free,
    the first spot clear of the other tags."""
    placed: list[np.ndarray] = []
    tips = [np.asarray(t, float) for t in tips]
    segments = [(origin, t) for t in tips] + [(np.asarray(a, float), np.asarray(b, float)) for a, b in lines]
    for tag, tip in zip(tags, tips):
        out = tip - origin
        base = np.arctan2(out[1], out[0]) if np.linalg.norm(out[:2]) > SHORTEST else np.pi / 4
        chosen, fallback = None, None
        for radius in (0.1, 0.25, 0.45, 0.7, 1.0, 1.4, 1.9, 2.5):
            for turn in (1, -1, 0, 2, -2, 3, -3, 4):
                angle = base + turn * np.pi / 4
                d = np.array([np.cos(angle), np.sin(angle), 0.0])
                reach = radius + abs(d[0]) * tag.width / 2 + abs(d[1]) * tag.height / 2
                centre = tip + d * reach
                box = np.array([centre[0] - tag.width / 2, centre[1] - tag.height / 2,
                                centre[0] + tag.width / 2, centre[1] + tag.height / 2])
                inside = box[0] >= area[0] and box[2] <= area[2] and box[1] >= area[1] and box[3] <= area[3]
                if not inside or any(_overlaps(box, p) for p in placed):
                    continue
                fallback = centre if fallback is None else fallback
                if not any(_crosses(box, a, b) for a, b in segments):
                    chosen = centre
                    break
            if chosen is not None:
                break
        tag.move_to(chosen if chosen is not None else fallback if fallback is not None else tip)
        placed.append(_box(tag))
