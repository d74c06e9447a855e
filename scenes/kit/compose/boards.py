"""Boards the page engine arranges, declared rather than searched in a clip: grids named with
their shapes, a product drawn as Falk's scheme (X left of the products, each W above its own),
the ways a row of blocks may be split over pages and which choices plan() took, a heat grid's
corner and legend, a table (kit/draw/columns.Columns) beside a plane with tagged arrows, blocks
under their tags in a row or the first above the rest (else the first on a page of its own),
and a grid made in front of the viewer with room for its band of derivations.

    block = product(named_grid(book, "wq", wq, 4, color, "W_Q", side=UP),
                    named_grid(book, "q", q, 4, color, "Q"), "Q", "W_Q")   # W above its product
    options = [[Page(caption, lambda s: falk(x, [block], s))], [Page(c, alone(x)), Page(d, alone(block))]]
    runs = splits(grids, width, height, gap, least)            # one board, runs that fit, one each
    board = row_or_stacked(book, area, blocks, drafts, draw, fallback, need)
    pages = row_stacked_or_apart(book, area, blocks, drafts, draw, fallback, need, apart)
    fill(scene, grid, made, laid_out(scene, group, made), Appear(tag))
"""
from __future__ import annotations

from itertools import product as every
from typing import Any, Callable, Sequence

import numpy as np
from manim import DOWN, RIGHT, UL, UP, FadeIn, GrowArrow, LaggedStart, Mobject, NumberPlane, VGroup, config

from scenes.kit.motion import derive
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.page.blocks import batches, proxy
from scenes.kit.draw.columns import GAP, same_columns
from scenes.kit.motion.derive import Band
from scenes.kit.motion.expressions import Derivation
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.inblock import in_block
from scenes.kit.text.layout import content_center, content_height, content_width, fit
from scenes.kit.motion.made import first_of, make
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area, Page, fits, named, phrase, turn
from scenes.kit.draw.plane import arrow, place_tags, plane_for

PLANE_X, TABLE_X = -3.2, 3.6   # a plane left of the middle, its table right
SIDE_W = 6.0          # the width of a table beside a plane


# ---------------------------------------------------------------- blocks of a page
def alone(block: Mobject) -> Callable[[float], VGroup]:
    """A page's blocks: this one alone (at any scale)."""
    return lambda s: VGroup(block)


def in_row(blocks: Sequence[Mobject], gap: float = 0.6, edge: np.ndarray = UP) -> Callable[[float], VGroup]:
    """A page's blocks: these side by side, `gap` apart at the page's scale, their `edge`s aligned."""
    return lambda s: VGroup(*blocks).arrange(RIGHT, buff=gap * s, aligned_edge=edge)


def splits(blocks: Sequence[Mobject], width: float, height: float, gap: float,
           least: float) -> list[list[list[Mobject]]]:
    """The ways a row of blocks may go over pages, in order: all on one, runs that each fit
    width x height at `least` (blocks.batches), one block a page."""
    return [[list(blocks)], batches(blocks, width, height, gap, least), [[b] for b in blocks]]


def picked(options: Sequence[Sequence[Page]], pages: Sequence[Page], *axes: Sequence[Any]) -> tuple:
    """The choices (one per axis, as options.variants was given them) of the option plan() took."""
    n = next(k for k, option in enumerate(options) if option[0] is pages[0])
    return list(every(*axes))[n]


# ---------------------------------------------------------------- named grids and products
def name_tag(book: NumberBook, tex: str, name: str, shape: Any, color: str) -> VGroup:
    """'W_Q [3, 2]': the matrix's name (LaTeX) and its shape, each size recorded."""
    head = book.math(tex, color=color, size=style.BODY_SIZE)
    dims = book.label(book.coords(f"{name}.shape", shape), color=color, size=style.LABEL_SIZE)
    return VGroup(head, dims).arrange(RIGHT, buff=0.15)


def named_grid(book: NumberBook, name: str, values: Any, decimals: int, color: str, tex: str,
               side: np.ndarray = DOWN, **kw: Any) -> VGroup:
    """A grid drawn in its role's colour with 'name [shape]' beside it (.grid, .tag, .side)."""
    mob = MatrixGrid(book, name, values, decimals, stroke=color, **kw)
    tag = name_tag(book, tex, name, values.shape, color).next_to(mob.box_group, side, buff=0.15)
    in_block(book, tag, mob.block)          # the tag is the block's: drawn in its role
    group = VGroup(mob, tag)
    group.grid, group.tag, group.side = mob, tag, side
    return group


def product(w: VGroup, out: VGroup, name: str, w_name: str) -> VGroup:
    """W above its product (named grids), column over column (.w, .out, .grid, .name, .w_name)."""
    out.product = True
    same_columns(w, out)
    block = VGroup(w, out).arrange(DOWN, buff=0.3)
    block.w, block.out, block.grid, block.name, block.w_name = w, out, out.grid, name, w_name
    return block


def falk(x: VGroup, blocks: Sequence[VGroup], s: float = 1.0) -> VGroup:
    """X to the left of the products, each W above its product, X's rows beside theirs."""
    row = VGroup(*blocks).arrange(RIGHT, buff=0.45 * s, aligned_edge=UP)
    VGroup(x, row).arrange(RIGHT, buff=0.45 * s)
    x.shift(UP * (blocks[-1].grid.box_group.get_y() - x.grid.box_group.get_y()))
    return VGroup(x, *blocks)


def show_product(scene: Any, mob: Mobject) -> None:
    """A product block shows W, then fills its product entry by entry; anything else appears."""
    if hasattr(mob, "out"):
        scene.play(Appear(mob.w), run_time=0.5)
        mob = mob.out
    if not getattr(mob, "product", False):
        return scene.play(Appear(mob))
    scene.play(Appear(mob.tag), Appear(mob.grid.box_group), run_time=0.5)
    scene.play(LaggedStart(*[Appear(mob.grid.entry(i, j)) for i in range(mob.grid.n_rows)
                             for j in range(mob.grid.n_cols)], lag_ratio=0.05), run_time=0.8)


# ---------------------------------------------------------------- heat grids
def corner(book: NumberBook, grid: MatrixGrid, across: Shown | str, down: Shown | str,
           across_color: str, down_color: str) -> VGroup:
    """What the columns and the rows are ('键 →' over '查询 ↓'), at the grid's top left corner (added)."""
    mob = VGroup(book.label(across, color=across_color, size=style.LABEL_SIZE),
                 book.label(down, color=down_color, size=style.LABEL_SIZE))
    mob.arrange(DOWN, buff=0.08, aligned_edge=RIGHT).next_to(grid.box_group, UL, buff=0.12)
    grid.add(mob)
    grid.corner = mob
    return mob


def with_legend(grid: Mobject, tag: Mobject, legend: Mobject, gap: float, s: float = 1.0) -> VGroup:
    """A grid with its tag under it and its legend to the right, `gap` apart at the page's scale s."""
    return VGroup(VGroup(grid, tag).arrange(DOWN, buff=0.25 * s), legend).arrange(RIGHT, buff=gap * s)


def beside_plane(table: Mobject, points: np.ndarray | None) -> NumberPlane | None:
    """Place the table alone in the content area (points None: nothing to draw on a plane), or
    right of a plane just big enough for the points (returned, not drawn)."""
    y = content_center()[1]
    if points is None:
        fit(table).move_to(content_center())
        return None
    fit(table, SIDE_W).move_to([TABLE_X, y, 0])
    return plane_for(points).move_to([PLANE_X, y, 0])


def tagged_arrows(plane: NumberPlane, points: Sequence[Any], tags: Sequence[Mobject], colors: Sequence[str],
                  right: float, labels: Sequence[Sequence[str]] | None = None) -> list[Mobject]:
    """An arrow from the origin to each point (a dot where too short), each tag placed by its tip
    clear of the arrows, the axes and the other tags, left of x = right (plane.place_tags)."""
    arrows = [arrow(plane, (0, 0), p, c, labels[n] if labels else None) for n, (p, c) in enumerate(zip(points, colors))]
    area = (-config.frame_width / 2 + style.FRAME_MARGIN, style.CONTENT_BOTTOM, right, style.CONTENT_TOP)
    axes = [(axis.get_start(), axis.get_end()) for axis in (plane.x_axis, plane.y_axis)]
    place_tags(tags, [plane.c2p(*p) for p in points], area, plane.c2p(0, 0), axes)
    return arrows


def head_to_tail(plane: NumberPlane, steps: Sequence[Any], color: str,
                 labels: Sequence[Sequence[str]] | None = None) -> list[Mobject]:
    """Arrows one after another from the origin, each starting where the last one ended (each standing
    for its step's components labelled labels[n], where given)."""
    tip, out = np.zeros(2), []
    for n, step in enumerate(steps):
        out.append(arrow(plane, tip, tip + step, color, labels[n] if labels else None))
        tip = tip + step
    return out


def grow(mob: Mobject) -> Any:
    """An arrow grows from its start; a dot (an arrow too short to see) fades in."""
    return GrowArrow(mob) if hasattr(mob, "tip") else FadeIn(mob)


def names_fit_over(width: float, values: Any, decimals: int) -> bool:
    """Whether names `width` wide fit over the columns of a grid of these values, GAP apart."""
    values = np.atleast_2d(values)
    return width <= proxy(values, decimals, head=False).width / values.shape[1] - GAP


# ---------------------------------------------------------------- blocks under their tags
def row(blocks: Sequence[Mobject], gap: float = 0.5) -> VGroup:
    """Blocks left to right, their bottoms aligned."""
    return VGroup(*blocks).arrange(RIGHT, buff=gap, aligned_edge=DOWN)


def first_above(blocks: Sequence[Mobject], gap: float = 0.8, buff: float = 0.3) -> VGroup:
    """The first block above the others, those in a row."""
    first, *rest = blocks
    VGroup(first, VGroup(*rest).arrange(RIGHT, buff=gap, aligned_edge=DOWN)).arrange(DOWN, buff=buff)
    return VGroup(first, *rest)


def row_or_stacked(book: NumberBook, area: Area, blocks: Callable[[Sequence[Mobject]], list[VGroup]],
                   drafts: Sequence[Mobject], draw: Callable[[], Sequence[Mobject]],
                   fallback: Sequence[Mobject], need: float) -> Mobject:
    """row_stacked_or_apart's board on one page, placed in the area."""
    return area.place(row_stacked_or_apart(book, area, blocks, drafts, draw, fallback, need)[0])


def row_stacked_or_apart(book: NumberBook, area: Area, blocks: Callable[[Sequence[Mobject]], list[VGroup]],
                         drafts: Sequence[Mobject], draw: Callable[[], Sequence[Mobject]],
                         fallback: Sequence[Mobject], need: float,
                         apart: Sequence[Mobject] | None = None) -> list[VGroup]:
    """The boards blocks(pieces) makes, laid out for the area (not placed: page.turn places each on
    a page): in a row while every number reads at `need`, else the first block above the rest, else
    in a row of `fallback` pieces (drawn as they are). Measured with `drafts` (boxes the size of the
    drawn pieces), so that draw() records its numbers only for the board chosen. Given `apart`
    (pieces for a page without the first block), that last row is taken only where it keeps the
    contract; else the first block on a page of its own, then the rest in a row on the next, drawn
    while they read at `need`, else as `apart`; where neither keeps the contract, that last row."""
    def keeps(board: Mobject) -> bool:
        return fits(book, board, area, style.LEGIBLE_H)
    if area.room(row(blocks(drafts))) >= need:
        return [row(blocks(draw()))]
    if area.room(first_above(blocks(drafts))) >= need:
        return [first_above(blocks(draw()))]
    if apart is None or keeps(row(blocks(fallback))):
        return [row(blocks(fallback))]
    first, *rest = blocks(drafts)
    if keeps(first) and area.room(row(rest)) >= need:
        first, *rest = blocks(draw())
        return [first, row(rest)]
    first, *rest = blocks(apart)
    if keeps(first) and keeps(row(rest)):
        return [first, row(rest)]
    return [row(blocks(fallback))]


def turn_named(scene: Any, pages: Sequence[tuple[str, Mobject, Sequence[str]]], area: Area,
               slots: dict) -> None:
    """page.turn for pages given as (caption, board, sentences): each template takes the slots it names."""
    turn(scene, [Page(phrase(c, **named(c, slots)), board, say=[phrase(s, **named(s, slots)) for s in said])
                 for c, board, said in pages], area)


# ---------------------------------------------------------------- room for derivations
def reserve(book: NumberBook, group: VGroup, band: Band, width: float | None = None,
            buff: float = 0.4) -> Band | None:
    """Put `band` under the group's pieces when, fitted into width x the content height with it,
    every number still keeps the contract; else None and the group as it was."""
    area = Area(content_width() if width is None else width, height=content_height())
    group.add(band)
    return derive.on_page(book, group, band, area, lambda: group.arrange(DOWN, buff=buff))


def fill(scene: Any, grid: MatrixGrid, made: Sequence[Derivation], band: Band | None, *shown: Any) -> None:
    """A grid made in front of the viewer: its shell appears after the animations `shown`, then
    each of `made` is derived where there is room (band), then the rest of the grid at once."""
    shell, rest = first_of(scene.book, grid, made, band)
    scene.play(*shown, Appear(shell))
    make(scene, made, band, rest)


def laid_out(scene: Any, group: VGroup, made: Sequence[Derivation]) -> Band | None:
    """Room for `made`: a band under the group where it keeps the contract (the group then fitted in
    the content area), else room by the caption line, else none."""
    band = reserve(scene.book, group, Band(made))
    return derive.room(scene, fit(group).move_to(content_center()), made, band)
