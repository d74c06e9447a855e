"""Tensors drawn as a lecturer draws them: a position's features as a strip of coloured cells (no
digits), a board of positions (strip, strip, one number each, batch by batch), a T x T picture of
coloured cells (a mask, the weights), a mask as its bit string, and columns of one position's
numbers under their heads.

Every number is drawn through the NumberBook; the colours come from style.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from manim import (LEFT, RIGHT, DashedLine, DOWN, Line, ManimColor, Mobject, VGroup,
                   interpolate_color)

from scenes.kit.text import stands, style
from scenes.kit.draw.columns import Table
from scenes.kit.draw.grids import tile
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import NumberBook

ROW_H = 0.36          # one position's row
CELL_H = 0.28         # a strip cell's height
STRIP_W = 2.6         # a strip's width at most (D cells)
COL_GAP = 0.35
SMALL = style.LABEL_SIZE


# ---------------------------------------------------------------- strips and boards
def signed_color(value: float, limit: float) -> ManimColor:
    """Diverging scale: negative towards the query blue, positive towards the key orange."""
    t = float(np.clip(value / limit, -1, 1)) if limit > 0 else 0.0
    end = style.KEY if t >= 0 else style.QUERY
    return interpolate_color(ManimColor(style.HEAT_LOW), ManimColor(end), abs(t))


def strip(values: np.ndarray, limit: float, cell_w: float) -> VGroup:
    """One position's D features as a row of coloured cells (no digits)."""
    cells = VGroup(*[tile(cell_w, CELL_H, signed_color(v, limit)) for v in values])
    return cells.arrange(RIGHT, buff=0)


def legend(book: NumberBook, label: str, limit: float) -> VGroup:
    """The strips' colour scale from −limit to limit, its ends' numbers recorded as label.low and
    label.high."""
    low, high = book.num(f"{label}.low", -limit, size=SMALL), book.num(f"{label}.high", limit, size=SMALL)
    return VGroup(low, strip(np.linspace(-limit, limit, 9), limit, 0.3), high).arrange(RIGHT, buff=0.15)


def strip_rows(x: np.ndarray, x2: np.ndarray, number: Callable[[int, int], Mobject], limit: float) -> list:
    """rows[b][t] = (x's strip, x2's strip, number(b, t)) for a Board, on one colour scale."""
    w = min(0.26, STRIP_W / x.shape[2])
    return [[(strip(x[b, t], limit, w), strip(x2[b, t], limit, w), number(b, t)) for t in range(x.shape[1])]
            for b in range(x.shape[0])]


class Board(VGroup):
    """Rows of positions, one block per batch: position | strip | strip | number, a dashed line
    between the first `prefix` positions and the rest (drawn in the mask colour).

    columns: the three column titles; rows[b][t] = (left strip, right strip, number)."""

    def __init__(self, book: NumberBook, columns: tuple[str, str, str], rows: list, prefix: int,
                 prefix_label: str = "prefix") -> None:
        super().__init__()
        t_count = len(rows[0])
        head = VGroup(note(book, "t"), *[note(book, c) for c in columns])
        strip_w = max(max(r[0].width for block in rows for r in block), head[1].width, head[2].width)
        num_w = max(max(r[2].width for block in rows for r in block), head[3].width)
        xs = [0.0, 0.45, 0.45 + strip_w + COL_GAP, 0.45 + 2 * (strip_w + COL_GAP)]
        y = 0.0
        for k, mob in enumerate(head):
            mob.move_to([xs[k] + (0 if k == 0 else (strip_w if k < 3 else num_w) / 2), y, 0])
        self.add(head)
        self.numbers: list[Mobject] = []
        self.rights: list[Mobject] = []
        self.batches = len(rows)
        for b, block in enumerate(rows):
            y -= ROW_H * 1.15
            tag = note(book, "批 {}", book.index(f"batch[{b}]", b), color=style.TEXT)
            self.add(tag.move_to([xs[1], y, 0], aligned_edge=LEFT))
            places: list[Mobject] = []             # the positions' texts, row by row
            for t, (left, right, number) in enumerate(block):
                y -= ROW_H
                color = style.TEXT if t < prefix else style.MASK
                pos = book.text("{}", book.index(f"position[{t}]", t), color=color, size=SMALL)
                self.add(pos.move_to([xs[0], y, 0]))
                places.append(pos)
                left.move_to([xs[1], y, 0], aligned_edge=LEFT)
                right.move_to([xs[2], y, 0], aligned_edge=LEFT)
                number.move_to([xs[3] + num_w, y, 0], aligned_edge=RIGHT)
                self.add(left, right, number)
                self.rights.append(right)
                self.numbers.append(number)
            if 0 < prefix < t_count:   # the boundary between the kept and the perturbed positions
                cut = y + (t_count - 1 - prefix) * ROW_H + ROW_H / 2
                line = DashedLine([xs[0] - 0.2, cut, 0], [xs[2] + strip_w, cut, 0], dash_length=0.08,
                                  stroke_width=2, color=style.MASK)
                self.add(stands.divider(line, prefix_label, prefix, places[prefix - 1], places[prefix]))

    def number(self, b: int, t: int) -> Mobject:
        """The number of batch b, position t."""
        return self.numbers[b * (len(self.numbers) // self.batches) + t]


def columns(book: NumberBook, title: Mobject, heads: tuple[str, str], names: tuple[str, str],
            a: np.ndarray, b: np.ndarray) -> VGroup:
    """One position's D features from two runs, side by side under a rule: c | a[c] | b[c]
    (recorded as names[0][c], names[1][c]); `.table` is their Table."""
    rows = [[note(book, "c"), note(book, heads[0]), note(book, heads[1])]]
    for c in range(len(a)):
        rows.append([note(book, "{}", book.index(f"feature[{c}]", c)),
                     book.num(f"{names[0]}[{c}]", a[c], 4, size=SMALL),
                     book.num(f"{names[1]}[{c}]", b[c], 4, size=SMALL)])
    table = Table(rows, aligns=(RIGHT,) * 3, gap=0.4, row_h=ROW_H * 0.95)
    y = rows[0][0].get_y() - ROW_H * 0.95 / 2
    rule = Line([table.get_left()[0], y, 0], [table.get_right()[0], y, 0], color=style.GRID_LINE,
                stroke_width=2)
    out = VGroup(title, VGroup(table, rule)).arrange(DOWN, buff=0.25)
    out.table = table
    return out


# ---------------------------------------------------------------- pictures and bit strings
def picture(colors: list, room: float, most: float) -> VGroup:
    """A T x T picture of coloured cells (a mask or the weights), no digits; None: an empty cell.
    Its T rows share `room` (scene units), each cell at most `most` wide."""
    cell = min(most, room / len(colors))
    grid = VGroup()
    for i, row in enumerate(colors):
        for j, color in enumerate(row):
            grid.add(tile(cell, cell, color or style.BACKGROUND, 1 if color else 0, stroke_width=1,
                          stroke_opacity=1 if color else 0.4).move_to([j * cell, -i * cell, 0]))
    return grid


def mask_colors(keep: np.ndarray) -> list:
    """Kept visible weights green, dropped red, the future (masked anyway) grey."""
    t = len(keep)
    return [[style.NAN_FILL if j > i else style.VALUE if keep[i][j] else style.MASK for j in range(t)]
            for i in range(t)]


def weight_colors(weights: np.ndarray) -> list:
    """Visible weights on the heat scale; the masked future left empty (the triangle)."""
    low, high = ManimColor(style.HEAT_LOW), ManimColor(style.HEAT_HIGH)
    return [[None if j > i else interpolate_color(low, high, float(np.clip(w, 0, 1)))
             for j, w in enumerate(row)] for i, row in enumerate(weights)]


def bits(book: NumberBook, label: str, mask: Sequence[bool], size: float = style.NUMBER_SIZE,
         ignored: bool = False) -> VGroup:
    """A mask as its bit string ('101'), one recorded digit per bit: kept bits plain, dropped bits
    in the mask colour, all muted where the mask is ignored (eval mode)."""
    digits = [book.num(f"{label}[{i}]", int(b), 0, size=size,
                       color=style.MUTED if ignored else style.TEXT if b else style.MASK)
              for i, b in enumerate(mask)]
    pitch = max(d.width for d in digits) + 0.06
    for i, d in enumerate(digits):
        d.move_to([i * pitch, 0, 0])
    return VGroup(*digits)
