"""Builders for the score-grid clip: named grids with shape tags, a heat legend,
column-aligned number rows, grouped bars and the page planner that keeps every number
legible. Numbers only through the NumberBook."""
from __future__ import annotations

import unicodedata
from typing import Sequence

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Mobject, Rectangle, VGroup

from scenes.kit import style
from scenes.kit.anim import Vanish
from scenes.kit.grids import MatrixGrid, heat_color
from scenes.kit.numbers import NumberBook, Shown

MIN_SCALE = 0.6      # keeps every number above the contract's least height
FULL_SCALE = 0.8     # below this, long column labels are abbreviated (the rows keep them whole)
SHORT_NAME = 7       # an abbreviated column label: this many half-widths, the ellipsis included
SHORT = 7            # a grid's numbers aim at this many characters (fewer decimals when large)
WIDTH = 13.2         # the width a drawing may take


def grid_decimals(values) -> int:
    """The book's exact decimals (0.43 stays 0.43), fewer for large magnitudes: a grid of
    values up to 80000 is drawn as whole numbers, not as ten-character strings."""
    arr = np.asarray(values, float)
    top = float(np.max(np.abs(arr))) if arr.size else 0.0
    digits = len(str(int(top))) if top >= 1 else 1
    return min(style.decimals_for(arr), max(0, SHORT - 2 - digits))


def axis_names(book: NumberBook, tokens: list[str] | None, prefix: str, count: int) -> list[Shown]:
    """Token labels when given, else q0, q1, ... (indices recorded)."""
    if tokens:
        return [book.user_text(t) for t in tokens]
    return [book.compose(prefix + "{}", book.index(f"{prefix}.index[{j}]", j)) for j in range(count)]


def labelled_grid(book: NumberBook, name: str, values, decimals: int, row_labels=None,
                  col_labels=None, row_color: str = style.TEXT, col_color: str = style.TEXT,
                  **kw) -> MatrixGrid:
    """A MatrixGrid whose axis labels keep the book's provenance (labels such as q0 are Shown)."""
    mob = MatrixGrid(book, name, values, decimals, **kw)
    for n, text in enumerate(row_labels or []):
        mob.row_labels.add(book.label(text, color=row_color, size=style.LABEL_SIZE)
                           .next_to(mob.boxes[n][0], LEFT, buff=0.15))
    for n, text in enumerate(col_labels or []):
        mob.col_labels.add(book.label(text, color=col_color, size=style.LABEL_SIZE)
                           .next_to(mob.boxes[0][n], UP, buff=0.15))
    return mob


def name_tag(book: NumberBook, tex: str, name: str, shape, color: str) -> VGroup:
    """'W_Q [3, 2]': the matrix's name (LaTeX) and its shape, each size recorded."""
    head = book.math(tex, color=color, size=style.BODY_SIZE)
    dims = book.label(book.coords(f"{name}.shape", shape), color=color, size=style.LABEL_SIZE)
    return VGroup(head, dims).arrange(RIGHT, buff=0.15)


def role_grid(book: NumberBook, name: str, values, color: str, tex: str, side=DOWN, **kw) -> VGroup:
    """A grid drawn in its role's colour with 'name [shape]' beside it."""
    mob = labelled_grid(book, name, values, grid_decimals(values), stroke=color, **kw)
    tag = name_tag(book, tex, name, values.shape, color).next_to(mob.box_group, side, buff=0.15)
    group = VGroup(mob, tag)
    group.grid, group.tag, group.side = mob, tag, side
    return group


def same_columns(*groups: VGroup) -> None:
    """Give role grids stacked column over column one cell width (the widest), tags re-placed."""
    width = max(g.grid.boxes[0][0].width for g in groups)
    for g in groups:
        grid = g.grid
        for i, row in enumerate(grid.boxes):
            for j, box in enumerate(row):
                box.stretch_to_fit_width(width).move_to(grid.boxes[0][0].get_center()
                                                        + [j * width, -i * box.height, 0])
                grid.entries[i][j].move_to(box)
        g.tag.next_to(grid.box_group, g.side, buff=0.15)


def short_names(book: NumberBook, names: Sequence[Shown]) -> list[Shown]:
    """Long token labels cut to SHORT_NAME half-widths with an ellipsis (names q0, k1 stay)."""
    half = lambda ch: 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    out = []
    for name in names:
        if sum(map(half, name)) <= SHORT_NAME:
            out.append(name)
            continue
        cut, used = "", 0
        for ch in name:
            if used + half(ch) > SHORT_NAME - 1:
                break
            cut, used = cut + ch, used + half(ch)
        out.append(book.user_text(cut + "…"))
    return out


def column_labels(book: NumberBook, names: Sequence[Shown], color: str) -> list[Mobject]:
    return [book.label(name, color=color, size=style.LABEL_SIZE) for name in names]


def set_columns(grid: MatrixGrid, labels: Sequence[Mobject], s: float = 1.0) -> MatrixGrid:
    """Put `labels` over the grid's columns (replacing any), all a quarter turn up when one is
    wider than its cell, so that neighbours never touch. Safe to call again."""
    grid.col_labels.remove(*list(grid.col_labels.submobjects))
    width = grid.boxes[0][0].width
    turn = any((lab.height if getattr(lab, "turned", False) else lab.width) > width * 0.92
               for lab in labels)
    for j, lab in enumerate(labels):
        if turn != getattr(lab, "turned", False):
            lab.rotate(PI / 2 if turn else -PI / 2)
            lab.turned = turn
        grid.col_labels.add(lab.next_to(grid.boxes[0][j], UP, buff=(0.12 if turn else 0.15) * s))
    return grid


def legend(book: NumberBook, name: str, low: float, high: float, decimals: int,
           height: float = 2.6, steps: int = 12) -> VGroup:
    """A vertical heat bar from low (bottom) to high (top), its two ends numbered."""
    cells = VGroup(*[Rectangle(width=0.3, height=height / steps, stroke_width=0,
                               fill_color=heat_color(low + (high - low) * n / (steps - 1), low, high),
                               fill_opacity=0.9) for n in range(steps)]).arrange(UP, buff=0)
    top = book.num(f"{name}.high", high, decimals).next_to(cells, UP, buff=0.12)
    bottom = book.num(f"{name}.low", low, decimals).next_to(cells, DOWN, buff=0.12)
    return VGroup(cells, top, bottom)


def align_columns(grids: Sequence[MatrixGrid], buff: float = 0.0) -> VGroup:
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


def grouped_bars(series, colors, n_cols: int, height: float = 1.8) -> VGroup:
    """Bars for each column: one per series, side by side, the tallest `height` (place_bars
    puts them over a grid's columns)."""
    top = max(float(np.max(s)) for s in series) or 1.0
    group = VGroup()
    for j in range(n_cols):
        for n, (values, color) in enumerate(zip(series, colors)):
            bar = Rectangle(width=0.3, height=max(float(values[j]), 0.0) / top * height + 1e-3,
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            bar.col, bar.offset, bar.share = j, n - (len(series) - 1) / 2, 0.8 / len(series)
            group.add(bar)
    return group


def place_bars(bars: VGroup, grid: MatrixGrid, s: float = 1.0) -> VGroup:
    """Stand the bars on the grid's column labels, each group over its column."""
    width = grid.boxes[0][0].width
    floor = max([grid.box_group.get_top()[1]] + [lab.get_top()[1] for lab in grid.col_labels]) + 0.15 * s
    for bar in bars:
        bar.stretch_to_fit_width(width * bar.share)
        bar.move_to([grid.boxes[0][bar.col].get_x() + bar.offset * bar.width, floor, 0], aligned_edge=DOWN)
    return bars


def variance_table(book: NumberBook, v, own: int) -> VGroup:
    """d_k | Var(q.k) | Var(q.k / sqrt(d_k)), the clip's own d_k in the tracked colour."""
    cols = [labelled_grid(book, "variance.d_k", [[d] for d in v.d_ks], 0, col_labels=["dₖ"]),
            labelled_grid(book, "variance.var", v.var[:, None], 4, col_labels=["Var(q·k)"]),
            labelled_grid(book, "variance.var_scaled", v.var_scaled[:, None], 4,
                          col_labels=["Var(q·k/√dₖ)"])]
    table = VGroup(*cols).arrange(RIGHT, buff=0.1, aligned_edge=DOWN)
    for g in cols:
        g.entry(own, 0).set_color(style.TRACK)
        g.box(own, 0).set_stroke(style.TRACK, width=3)
    table.header = VGroup(*[g.col_labels for g in cols], *[g.box_group for g in cols])
    table.rows = [VGroup(*[g.entry(i, 0) for g in cols]) for i in range(len(v.d_ks))]
    return table


def row_caption(book: NumberBook, r, name: Shown, peaks) -> tuple:
    """What this row shows, chosen by the data (and by the texts drawn)."""
    if len(r.k) == 1:
        return "只有一个键：softmax 把全部权重给它，缩放与否都一样（查询 {}）。", name
    if r.d_k == 1:
        return ("本例 dₖ = {}：除以 √dₖ 不改变分数，两行权重相同（查询 {}）。",
                book.index("d_k", r.d_k), name)
    if np.ptp(r.scores[r.query]) == 0:
        return "这一行的分数全相同：缩放前后权重都均匀（查询 {}）。", name
    if str(peaks[0]) == str(peaks[1]):
        return "同一行 softmax：不缩放时分数差距更大，但最大权重在显示精度下相同（查询 {}）。", name
    return "同一行 softmax：不缩放时分数差距更大，权重更集中（查询 {}）。", name


# ---------------------------------------------------------------- pages
def natural_scale(mob: Mobject, width: float, height: float) -> float:
    """The scale at which `mob` fills width x height (never above one)."""
    return min(width / max(mob.width, 1e-9), height / max(mob.height, 1e-9), 1.0)


def falk(x: VGroup, blocks: Sequence[VGroup], s: float = 1.0) -> VGroup:
    """X to the left of the products, each W above its product, X's rows beside theirs."""
    row = VGroup(*blocks).arrange(RIGHT, buff=0.45 * s, aligned_edge=UP)
    VGroup(x, row).arrange(RIGHT, buff=0.45 * s)
    x.shift(UP * (blocks[-1].grid.box_group.get_y() - x.grid.box_group.get_y()))
    return VGroup(x, *blocks)


def batches(mobs: Sequence[Mobject], width: float, height: float, buff: float,
            min_scale: float = MIN_SCALE) -> list[list[Mobject]]:
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


class Pages:
    """A step drawn on one board, or, when its grids would be too small, on several boards in
    turn, each its own captioned step (so every board is a still, a subtitle and a checked layout).

    A plan is a list of pages; a page is (caption, arrange[, most]): caption = (template, *slots)
    for ClipScene.step, arrange(s) lays its mobjects out (buffs times s) and returns them as a
    VGroup, most is the largest scale the page may take (one by default).
    """

    def plan(self, options, top: float = style.CONTENT_TOP, most: float = 1.0, needs=None):
        """The first plan whose pages all fit at its need (MIN_SCALE by default) or more, else the last:
        (pages, scales, bottom): each page at its own scale, in the content area above a
        caption of one or two lines (style.CONTENT_BOTTOM)."""
        bottom = style.CONTENT_BOTTOM
        for pages, need in zip(options, needs or [MIN_SCALE] * len(options)):
            scales = [min(natural_scale(page[1](1.0), WIDTH, top - bottom), page[2] if len(page) > 2
                          else most) for page in pages]
            if min(scales) >= need:
                break
        return pages, scales, bottom

    def turn_pages(self, plan, show, top: float = style.CONTENT_TOP, keep=(), first=None):
        """Give each page its step: caption, cleared board, its mobjects at the page's scale."""
        pages, scales, bottom = plan
        center = np.array([0.0, (top + bottom) / 2, 0.0])
        for n, ((caption, arrange, *_), scale) in enumerate(zip(pages, scales)):
            self.step(*caption)
            gone = [m for m in self.mobjects if m not in (self.title_mob, self._caption, *keep)]
            if gone:
                self.play(*[Vanish(m) for m in gone], run_time=0.4)
            if n == 0 and first is not None:
                first()
            for m in arrange(scale).submobjects:      # each piece at this page's scale
                m.scale(scale / getattr(m, "page_scale", 1.0))
                m.page_scale = scale
            for m in arrange(scale).move_to(center).submobjects:
                show(m)
