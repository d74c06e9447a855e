"""Reusable builders: number grids indexed by (i, j), shape tags, bars, captions.

Builders draw numbers only through the NumberBook, so every one is recorded.
"""
import math

import numpy as np
from manim import DOWN, LEFT, UP, ManimColor, Rectangle, VGroup, interpolate_color

from scenes.kit import style


def heat_color(value, low=0.0, high=1.0):
    """Weights heat scale; -inf is the mask colour, NaN its own grey."""
    if math.isnan(value):
        return ManimColor(style.NAN_FILL)
    if math.isinf(value):
        return ManimColor(style.MASK)
    t = 0.0 if high <= low else (value - low) / (high - low)
    return interpolate_color(ManimColor(style.HEAT_LOW), ManimColor(style.HEAT_HIGH), float(np.clip(t, 0, 1)))


class MatrixGrid(VGroup):
    """A grid of cells (a Rectangle and a Text each), sized to its widest number.

    heat: None (plain), "weights" (0..1 scale) or "scores" (scaled to the finite
    min..max). Labels are strings already made by the NumberBook or plain words.
    """

    def __init__(self, book, name, values, decimals=4, row_labels=None, col_labels=None,
                 heat=None, size=style.NUMBER_SIZE, row_color=style.TEXT, col_color=style.TEXT,
                 max_width=None, max_height=None, stroke=style.GRID_LINE):
        super().__init__()
        values = np.atleast_2d(np.asarray(values, float))
        self.values = values
        self.n_rows, self.n_cols = values.shape
        finite = values[np.isfinite(values)]
        low, high = (0.0, 1.0) if heat == "weights" else (
            (finite.min(), finite.max()) if finite.size else (0.0, 1.0))
        self.entries = [[book.num(f"{name}[{i}][{j}]", values[i, j], decimals, size=size)
                         for j in range(self.n_cols)] for i in range(self.n_rows)]
        flat = [e for row in self.entries for e in row]
        width = max(max(e.width for e in flat) + style.CELL_PAD, style.MIN_CELL_W)
        height = max(max(e.height for e in flat) + style.CELL_PAD, style.MIN_CELL_H)
        self.boxes = [[Rectangle(width=width, height=height, stroke_color=stroke, stroke_width=2)
                       for _ in range(self.n_cols)] for _ in range(self.n_rows)]
        for i in range(self.n_rows):
            for j in range(self.n_cols):
                box = self.boxes[i][j].move_to([j * width, -i * height, 0])
                if heat:
                    box.set_fill(heat_color(values[i, j], low, high), opacity=0.9)
                self.entries[i][j].move_to(box)
        self.box_group = VGroup(*[b for row in self.boxes for b in row])
        self.entry_group = VGroup(*flat)
        self.add(self.box_group, self.entry_group)
        self.row_labels = self._labels(book, row_labels, row_color, LEFT)
        self.col_labels = self._labels(book, col_labels, col_color, UP)
        self.add(self.row_labels, self.col_labels)
        if max_width and self.width > max_width:
            self.scale_to_fit_width(max_width)
        if max_height and self.height > max_height:
            self.scale_to_fit_height(max_height)

    def _labels(self, book, labels, color, side):
        group = VGroup()
        for n, text in enumerate(labels or []):
            mob = book.label(str(text), color=color, size=style.LABEL_SIZE)
            anchor = self.boxes[n][0] if side is LEFT else self.boxes[0][n]
            mob.next_to(anchor, side, buff=0.15)
            group.add(mob)
        return group

    def cell(self, i, j):
        return VGroup(self.boxes[i][j], self.entries[i][j])

    def entry(self, i, j):
        return self.entries[i][j]

    def box(self, i, j):
        return self.boxes[i][j]

    def row(self, i):
        return VGroup(*[self.cell(i, j) for j in range(self.n_cols)])

    def col(self, j):
        return VGroup(*[self.cell(i, j) for i in range(self.n_rows)])


def shape_tag(book, name, shape, color=style.MUTED):
    """'[3, 2]' under a grid, each size recorded."""
    return book.label(book.coords(f"{name}.shape", shape), color=color, size=style.LABEL_SIZE)


def labelled(mob, label, side=UP, buff=0.2):
    """A grid or vector with its name above it."""
    label.next_to(mob, side, buff=buff)
    return VGroup(label, mob)


def bars(book, name, values, colors, max_height=2.0, width=0.6, decimals=4, labels=None):
    """Vertical bars for a row of weights, each with its number on top."""
    group = VGroup()
    for j, v in enumerate(values):
        bar = Rectangle(width=width, height=max(float(v), 0.0) * max_height + 1e-3,
                        fill_color=colors[j % len(colors)], fill_opacity=0.85, stroke_width=0)
        bar.move_to([j * (width + 0.5), 0, 0], aligned_edge=DOWN)
        num = book.num(f"{name}[{j}]", v, decimals, size=style.LABEL_SIZE).next_to(bar, UP, buff=0.1)
        parts = [bar, num]
        if labels:
            parts.append(book.label(labels[j], size=style.LABEL_SIZE, color=style.MUTED)
                         .next_to(bar, DOWN, buff=0.1))
        group.add(VGroup(*parts))
    return group


def fit(mob, width=13.0, height=6.0):
    """Scale a group down (never up) to fit the content area."""
    if mob.width > width:
        mob.scale_to_fit_width(width)
    if mob.height > height:
        mob.scale_to_fit_height(height)
    return mob

