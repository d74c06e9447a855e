"""Builders for the score-grid clip: named grids with shape tags, a heat legend,
column-aligned number rows and grouped bars. Numbers only through the NumberBook."""
import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.grids import MatrixGrid, heat_color
from scenes.kit.numbers import NumberBook, Shown


def axis_names(book: NumberBook, tokens: list[str] | None, prefix: str, count: int) -> list[Shown]:
    """Token labels when given, else q0, q1, ... (indices recorded)."""
    if tokens:
        return [book.user_text(t) for t in tokens]
    return [book.compose(prefix + "{}", book.index(f"{prefix}.index", j)) for j in range(count)]


def labelled_grid(book: NumberBook, name: str, values, decimals: int, row_labels=None, col_labels=None,
         row_color: str = style.TEXT, col_color: str = style.TEXT, **kw) -> MatrixGrid:
    """A MatrixGrid whose axis labels keep the book's provenance (labels such as q0 are Shown)."""
    mob = MatrixGrid(book, name, values, decimals, **kw)
    for n, text in enumerate(row_labels or []):
        mob.row_labels.add(book.label(text, color=row_color, size=style.LABEL_SIZE)
                           .next_to(mob.boxes[n][0], LEFT, buff=0.15))
    for n, text in enumerate(col_labels or []):
        mob.col_labels.add(book.label(text, color=col_color, size=style.LABEL_SIZE)
                           .next_to(mob.boxes[0][n], UP, buff=0.15))
    return mob


def name_tag(book, tex, name, shape, color):
    """'W_Q [3, 2]': the matrix's name (LaTeX) and its shape, each size recorded."""
    head = book.math(tex, color=color, size=style.BODY_SIZE)
    dims = book.label(book.coords(f"{name}.shape", shape), color=color, size=style.LABEL_SIZE)
    return VGroup(head, dims).arrange(RIGHT, buff=0.15)


def role_grid(book, name, values, decimals, color, tex, side=DOWN, **kw):
    """A grid drawn in its role's colour with 'name [shape]' beside it."""
    mob = labelled_grid(book, name, values, decimals, stroke=color, **kw)
    tag = name_tag(book, tex, name, values.shape, color).next_to(mob.box_group, side, buff=0.15)
    group = VGroup(mob, tag)
    group.grid, group.tag = mob, tag
    return group


def upright_columns(grid):
    """Turn column labels wider than their cell a quarter turn, so neighbours never touch."""
    width = grid.boxes[0][0].width
    if any(lab.width > width * 0.92 for lab in grid.col_labels):
        for j, lab in enumerate(grid.col_labels):
            lab.rotate(PI / 2).next_to(grid.boxes[0][j], UP, buff=0.12)
    return grid


def legend(book, name, low, high, decimals, height=2.6, steps=12):
    """A vertical heat bar from low (bottom) to high (top), its two ends numbered."""
    cells = VGroup(*[Rectangle(width=0.3, height=height / steps, stroke_width=0,
                               fill_color=heat_color(low + (high - low) * n / (steps - 1), low, high),
                               fill_opacity=0.9) for n in range(steps)]).arrange(UP, buff=0)
    top = book.num(f"{name}.high", high, decimals, size=style.LABEL_SIZE).next_to(cells, UP, buff=0.12)
    bottom = book.num(f"{name}.low", low, decimals, size=style.LABEL_SIZE).next_to(cells, DOWN, buff=0.12)
    return VGroup(cells, top, bottom)


def align_columns(grids, buff=0.0):
    """Give every grid the widest cell, then stack them so that column j lines up."""
    width = max(g.boxes[0][0].width for g in grids)
    y = 0.0
    for g in grids:
        height = g.boxes[0][0].height
        for i, row in enumerate(g.boxes):
            for j, box in enumerate(row):
                box.stretch_to_fit_width(width).move_to([j * width, y - i * height, 0])
                g.entries[i][j].move_to(box)
        for n, lab in enumerate(g.row_labels):
            lab.next_to(g.boxes[n][0], LEFT, buff=0.15)
        for n, lab in enumerate(g.col_labels):
            lab.next_to(g.boxes[0][n], UP, buff=0.12)
        y -= g.n_rows * height + buff
    return VGroup(*grids)


def grouped_bars(grid, series, colors, height=1.8):
    """Bars over each column of `grid`: one per series, side by side, tallest = height."""
    top = max(float(np.max(s)) for s in series) or 1.0
    width = grid.boxes[0][0].width
    bar_w = width * 0.8 / len(series)
    floor = max([grid.box_group.get_top()[1]] + [lab.get_top()[1] for lab in grid.col_labels]) + 0.15
    group = VGroup()
    for j in range(grid.n_cols):
        base = np.array([grid.boxes[0][j].get_x(), floor, 0.0])
        for n, (values, color) in enumerate(zip(series, colors)):
            bar = Rectangle(width=bar_w, height=max(float(values[j]), 0.0) / top * height + 1e-3,
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            offset = (n - (len(series) - 1) / 2) * bar_w
            group.add(bar.move_to(base + RIGHT * offset, aligned_edge=DOWN))
    return group


def batches(mobs, width, height, buff, min_scale):
    """Split a row of mobjects, in order, into runs that each fit at min_scale or more."""
    out, run = [], []
    for mob in mobs:
        trial = run + [mob]
        w = sum(m.width for m in trial) + buff * (len(trial) - 1)
        h = max(m.height for m in trial)
        if run and min(width / w, height / h) < min_scale:
            out.append(run)
            trial = [mob]
        run = trial
    return out + [run]
