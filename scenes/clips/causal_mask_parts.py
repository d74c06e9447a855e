"""Builders for the causal-mask clip: grids whose −∞, exact-zero and NaN cells
cannot be mistaken for ordinary numbers, and rows of grids that line up.

Every number goes through the NumberBook; every colour comes from style.
"""
import math

import numpy as np
from manim import LEFT, RIGHT, UP, Rectangle, SurroundingRectangle, VGroup

from scenes.kit import style
from scenes.kit.grids import heat_color

CELL_H = style.MIN_CELL_H


def look(value, hidden, heat, low, high, hidden_color=style.MASK):
    """(fill, fill opacity, stroke, stroke width, text colour, decimals or None) of one cell.

    −∞: a red cell; a hidden (masked) exact zero: "0" in red in a red frame;
    NaN: a grey cell in a red frame. Anything else: the heat scale or no fill.
    """
    if math.isnan(value):
        return style.NAN_FILL, 1.0, style.MASK, 4, style.TEXT, None
    if math.isinf(value):
        return style.MASK, 0.9, style.MASK, 2, style.TEXT, None
    if hidden and value == 0:
        return style.BACKGROUND, 0.0, hidden_color, 4, hidden_color, 0
    if heat:
        return heat_color(value, low, high), 0.9, style.GRID_LINE, 2, style.TEXT, None
    return style.BACKGROUND, 0.0, style.GRID_LINE, 2, style.TEXT, None


class Grid(VGroup):
    """Cells indexed (i, j): a Rectangle and a number each, recorded as `labels[i][j]`.

    values: 2-D; labels: a name ("A" -> "A[i][j]") or a 2-D list of labels;
    hidden: 2-D bool (cells drawn as an exact "0" in hidden_color); heat: None, "weights" (0..1) or "scores".
    """

    def __init__(self, book, labels, values, decimals=4, hidden=None, heat=None,
                 row_labels=None, col_labels=None, row_color=style.TEXT, col_color=style.TEXT,
                 header=None, header_color=style.TEXT, cell_w=None, hidden_color=style.MASK):
        super().__init__()
        values = np.atleast_2d(np.asarray(values, float))
        self.n_rows, self.n_cols = values.shape
        if isinstance(labels, str):
            labels = [[f"{labels}[{i}][{j}]" for j in range(self.n_cols)] for i in range(self.n_rows)]
        hidden = np.zeros(values.shape, bool) if hidden is None else np.asarray(hidden, bool)
        finite = values[np.isfinite(values)]
        low, high = (0.0, 1.0) if heat == "weights" else (
            (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0))
        looks = [[look(values[i, j], hidden[i, j], heat, low, high, hidden_color) for j in range(self.n_cols)]
                 for i in range(self.n_rows)]
        self.entries = [[book.num(labels[i][j], values[i, j],
                                  decimals if looks[i][j][5] is None else looks[i][j][5],
                                  color=looks[i][j][4])
                         for j in range(self.n_cols)] for i in range(self.n_rows)]
        self.col_labels = VGroup(*[book.label(t, color=col_color, size=style.LABEL_SIZE)
                                   for t in (col_labels or [])])
        widths = [e.width for row in self.entries for e in row] + [m.width for m in self.col_labels]
        width = cell_w or max(max(widths) + style.CELL_PAD, style.MIN_CELL_W)
        self.cell_w = width
        self.boxes = []
        for i in range(self.n_rows):
            row = []
            for j in range(self.n_cols):
                fill, opacity, stroke, stroke_w, _, _ = looks[i][j]
                box = Rectangle(width=width, height=CELL_H, stroke_color=stroke, stroke_width=stroke_w,
                                fill_color=fill, fill_opacity=opacity).move_to([j * width, -i * CELL_H, 0])
                self.entries[i][j].move_to(box)
                row.append(box)
            self.boxes.append(row)
        # red frames drawn last so neighbours' grey lines do not cover them
        order = sorted(((i, j) for i in range(self.n_rows) for j in range(self.n_cols)),
                       key=lambda ij: looks[ij[0]][ij[1]][3])
        self.box_group = VGroup(*[self.boxes[i][j] for i, j in order])
        self.entry_group = VGroup(*[e for row in self.entries for e in row])
        self.add(self.box_group, self.entry_group)
        for j, mob in enumerate(self.col_labels):
            mob.next_to(self.boxes[0][j], UP, buff=0.12)
        self.row_labels = VGroup()
        for i, text in enumerate(row_labels or []):
            mob = book.label(str(text), color=row_color, size=style.LABEL_SIZE)
            self.row_labels.add(mob.next_to(self.boxes[i][0], LEFT, buff=0.15))
        self.add(self.col_labels, self.row_labels)
        self.header = None
        if header:
            self.header = book.label(header, color=header_color, size=style.LABEL_SIZE)
            self.header.next_to(VGroup(self.box_group, self.col_labels), UP, buff=0.15)
            self.add(self.header)

    def cell(self, i, j):
        return VGroup(self.boxes[i][j], self.entries[i][j])

    def row(self, i):
        return VGroup(*[self.cell(i, j) for j in range(self.n_cols)])

    def col(self, j):
        return VGroup(*[self.cell(i, j) for i in range(self.n_rows)])

    def frame_row(self, i, color, width=5):
        """Outline row i (the tracked query, the changed key), leaving its cells' own frames."""
        self.add(SurroundingRectangle(VGroup(*self.boxes[i]), color=color, buff=0.06,
                                      stroke_width=width))
        return self


def side_by_side(grids, buff=0.3):
    """Grids placed left to right with their first rows on one line."""
    group = VGroup(*grids)
    for left, right in zip(grids, grids[1:]):
        right.shift(left.boxes[0][-1].get_right() + RIGHT * buff - right.boxes[0][0].get_left())
        right.shift(UP * (left.boxes[0][0].get_center()[1] - right.boxes[0][0].get_center()[1]))
    return group


def fill(mob, width=13.0, height=5.6, most=1.35):
    """Scale a group to use the content area: down to fit, up by at most `most`."""
    return mob.scale(min(width / mob.width, height / mob.height, most))


def vector_text(book, name, values, decimals=4):
    """'(a, b)' with each component recorded as name[c]."""
    return "(" + ", ".join(book.fmt(f"{name}[{c}]", v, decimals) for c, v in enumerate(values)) + ")"
