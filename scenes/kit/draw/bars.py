"""Bars: plain bars standing on a line, dashed marks at target heights, the same bars grown to
other heights, bars with their numbers over them and names under them, a chart of one number
per position batch by batch, and a width bar of equal segments (a tensor's last axis).

Every number is drawn through the NumberBook; the colours come from style.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, DashedLine, Line, Rectangle, VGroup

from scenes.kit.text import stands, style
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import NumberBook, Shown

SMALL = style.LABEL_SIZE


def plain(values: Sequence[float], xs: Sequence[float], unit: float, width: float,
          color: str | None = None, labels: Sequence[str] | None = None) -> VGroup:
    """Bars standing on y = 0 at the given x positions (no numbers; the value colour unless told);
    each stands for its label's value where `labels` are given (the layout's `pictures`)."""
    color = color or style.VALUE
    shown = VGroup(*[Rectangle(width=width, height=max(float(v) * unit, 1e-3), fill_color=color,
                               fill_opacity=0.85, stroke_width=0).move_to([x, 0, 0], aligned_edge=DOWN)
                     for v, x in zip(values, xs)])
    for bar, label in zip(shown, labels or ()):
        stands.bar(bar, label, unit)
    return shown


def targets(values: Sequence[float], xs: Sequence[float], unit: float, width: float) -> VGroup:
    """Dashed marks at the target heights, drawn over the bars."""
    return VGroup(*[DashedLine([x - width / 2 - 0.15, float(v) * unit, 0],
                               [x + width / 2 + 0.15, float(v) * unit, 0],
                               dash_length=0.1, color=style.TRACK, stroke_width=5).set_z_index(2)
                    for v, x in zip(values, xs)])


def under(table: Any, values: Sequence[float], first: int, top: float, tallest: float = 2.4,
          labels: Sequence[str] | None = None) -> VGroup:
    """`values` as bars under the table's columns first, first + 1, …, standing on a base line at
    most `tallest` high, their tops at `top` (the tallest bar's); each stands for its label's value."""
    height = min(tallest, top - style.CONTENT_BOTTOM - 0.3)
    xs = [table.x(first + i) for i in range(len(values))]
    width = 0.5 * min(table.widths[first:first + len(values)]) * table.zoom()
    shown = plain(values, xs, height / float(max(values)), width, labels=labels)
    base = Line([xs[0] - width, 0, 0], [xs[-1] + width, 0, 0], color=style.GRID_LINE)
    return VGroup(shown, base).shift(UP * (top - height))


def regrown(bars: VGroup, drawn: Sequence[float], values: Sequence[float], unit: float) -> VGroup:
    """Copies of `bars` (drawn at the heights `drawn`, then placed) at the heights `values` (each copy
    stands for what its bar stands for: stands.relabel gives it its own)."""
    stretch = bars[0].height / max(float(drawn[0]) * unit, 1e-3)
    base = bars.get_bottom()[1]
    out = VGroup()
    for bar, v in zip(bars, values):
        new = bar.copy().stretch_to_fit_height(max(float(v) * unit, 1e-3) * stretch)
        out.add(new.move_to([bar.get_x(), base, 0], aligned_edge=DOWN))
    return out


def marked(book: NumberBook, label: str, values: Sequence[float], marks: Sequence[float],
           names: Sequence[Shown], decimals: int, tallest: float, width: float = 0.6) -> tuple:
    """Bars of `values` with their numbers over them (recorded as label[i]), dashed marks at
    `marks`, a base line with the names under it; 3 scene units stand for `tallest`. Returns
    (bars, marks, feet, numbers, unit)."""
    numbers = VGroup(*[book.num(f"{label}[{i}]", v, decimals, size=SMALL) for i, v in enumerate(values)])
    spacing = max(1.2 if len(values) <= 4 else 1.0, max(m.width for m in numbers) + 0.2)
    unit = 3.0 / tallest
    xs = [i * spacing for i in range(len(values))]
    base = Line([-width, 0, 0], [xs[-1] + width, 0, 0], color=style.GRID_LINE)
    feet = VGroup(base, *[note(book, "{}", s).next_to([x, 0, 0], DOWN, buff=0.15) for s, x in zip(names, xs)])
    for mob, x, v, a in zip(numbers, xs, values, marks):
        mob.move_to([x, max(float(v), float(a)) * unit + 0.1 + mob.height / 2, 0])
    shown = plain(values, xs, unit, width, labels=[f"{label}[{i}]" for i in range(len(values))])
    return shown, targets(marks, xs, unit, width), feet, numbers, unit


def by_position(book: NumberBook, label: str, values: np.ndarray, prefix: int, room: float,
                tallest: float) -> VGroup:
    """One number per position (recorded as label[b][t]), one chart per batch on a shared pitch:
    bars with their numbers on top, positions below; the first `prefix` positions in the accent
    colour, the rest in the value colour. The largest value, `tallest`, stands `room` high (all
    bars flat where it is 0). Each chart is VGroup(base, bars, tag)."""
    unit = room / (tallest or 1.0)

    def colour(t: int) -> str:
        return style.ACCENT if t < prefix else style.VALUE
    nums = [[book.num(f"{label}[{b}][{t}]", v, 0 if v == 0 else 4, size=SMALL, color=colour(t))
             for t, v in enumerate(row)] for b, row in enumerate(values)]
    pitch = max(max(n.width for row in nums for n in row) + 0.35, 0.9)
    charts = VGroup()
    for b, row in enumerate(values):
        group = VGroup()
        for t, (v, num) in enumerate(zip(row, nums[b])):
            bar = Rectangle(width=0.5, height=max(float(v) * unit, 0.02), fill_color=colour(t),
                            fill_opacity=0.85, stroke_width=0).move_to([t * pitch, 0, 0], aligned_edge=DOWN)
            num.next_to(bar, UP, buff=0.1)
            pos = book.text("{}", book.index(f"position[{t}]", t), size=SMALL,
                            color=style.TEXT if t < prefix else style.MASK)
            group.add(VGroup(bar, num, pos.next_to([t * pitch, 0, 0], DOWN, buff=0.12)))
        base = Line([-0.45, 0, 0], [(len(row) - 1) * pitch + 0.45, 0, 0], color=style.GRID_LINE)
        tag = note(book, "批 {}", book.index(f"batch[{b}]", b), color=style.TEXT)
        charts.add(VGroup(base, group, tag.next_to(base, LEFT, buff=0.35)))
    return charts.arrange(DOWN, buff=0.55, aligned_edge=RIGHT)


def width_bar(segments: int, segment_width: float, color: str, unit: float) -> VGroup:
    """A bar of `segments` blocks, each `segment_width` features wide (unit: scene units per feature)."""
    bar = VGroup(*[Rectangle(width=segment_width * unit, height=0.28, stroke_color=style.BACKGROUND,
                             stroke_width=2, fill_color=color, fill_opacity=0.8) for _ in range(segments)])
    return bar.arrange(RIGHT, buff=0)
