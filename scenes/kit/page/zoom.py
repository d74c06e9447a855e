"""A zoom on the tracked row: when a step's grid is too big for its numbers to stay readable, the
page shows the whole grid small, in its colours only (no number too small to read is drawn), and
the row the clip follows (its tracked query) drawn again at READABLE_H below or beside it (as a
column, where that leaves more room), the two linked by a frame.

The row's numbers are the grid's own records (its labels name[row][j], its values and decimals),
each entry's place marked `zoom_of` the grid's name; its cells take the small grid's colours.
plan() tries the zoom as one more option before its fallback:

    option = zoom_page(book, caption, "scores", values, query, decimals, area, heat="scores")
    pages = plan(book, options, area, needs, zoom=option)
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Line, SurroundingRectangle, VGroup

from scenes.kit.text import style
from scenes.kit.draw.arrays import colour_grid
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area, Page, needed

ROOM = 1.05          # the copy's numbers aim this much above READABLE_H
GAP = 0.5            # between the small grid and the copy


class Shell(VGroup):
    """A grid's cells without numbers; rows[i]: row i's rectangles."""
    rows: list[VGroup]


def shell(values: Any, heat: str | None,
          cell: tuple[float, float] = (style.MIN_CELL_W, style.MIN_CELL_H)) -> Shell:
    """The grid in its colours only (arrays.colour_grid: the heat over the finite min..max, or the
    weights' 0..1), no numbers: `rows[i]` holds row i's cells."""
    values = np.atleast_2d(np.asarray(values, float))
    finite = values[np.isfinite(values)]
    low, high = (0.0, 1.0) if heat == "weights" or not finite.size else (finite.min(), finite.max())
    group = Shell(*colour_grid(values, cell[0], cell[1], low, high))
    n = values.shape[1]
    group.rows = [VGroup(*group.submobjects[i * n:(i + 1) * n]) for i in range(len(values))]
    return group


def row_copy(book: NumberBook, name: str, values: Any, row: int, decimals: int, small: Shell,
             column: bool = False, **options: Any) -> MatrixGrid:
    """Row `row` of the grid `name` drawn at full size: its own records (name[row][j]), a row or,
    with `column`, a column of cells coloured as the small grid's (options: MatrixGrid's)."""
    values = np.atleast_2d(np.asarray(values, float))[row]
    labels = [[f"{name}[{row}][{j}]" for j in range(len(values))]]
    copy = MatrixGrid(book, [list(x) for x in zip(*labels)] if column else labels,
                      values[:, None] if column else values[None, :], decimals, **options)
    for j, source in enumerate(small.rows[row]):
        i, k = (j, 0) if column else (0, j)
        entry, box = copy.entries[i][k], copy.boxes[i][k]
        book.meta[id(entry)]["place"]["zoom_of"] = name
        box.set_fill(source.get_fill_color(), opacity=source.get_fill_opacity())
    return copy


def link(small: Shell, row: int, copy: MatrixGrid, column: bool, color: str | None = None) -> VGroup:
    """A frame around the row in the small grid, one around its copy, two lines joining them (the
    tracked colour unless told)."""
    color = color or style.TRACK
    near = SurroundingRectangle(small.rows[row], buff=0.03, color=color, stroke_width=3)
    far = SurroundingRectangle(copy.box_group, buff=0.06, color=color, stroke_width=3)
    sides = ((RIGHT + UP, LEFT + UP), (RIGHT + DOWN, LEFT + DOWN)) if column else \
        ((DOWN + LEFT, UP + LEFT), (DOWN + RIGHT, UP + RIGHT))
    lines = [Line(near.get_corner(a), far.get_corner(b), color=color, stroke_width=2, stroke_opacity=0.7)
             for a, b in sides]
    return VGroup(near, far, *lines)


def zoomed(small: Shell, row: int, copy: MatrixGrid, area: Area, column: bool) -> VGroup | None:
    """The small grid in what the copy (its numbers READABLE_H tall) leaves of the area, the copy
    below it (a row) or right of it (a column), the frame linking them; in the area's units.
    None where the copy leaves no room."""
    copy.scale(style.READABLE_H * ROOM / min(m.height for m in copy.entry_group))
    rest = (Area(area.width - copy.width - GAP, height=area.tall()) if column
            else Area(area.width, height=area.tall() - copy.height - GAP))
    if min(rest.width, rest.tall()) <= 0 or copy.width > area.width or copy.height > area.tall():
        return None
    small.scale(rest.room(small))
    copy.next_to(small, RIGHT if column else DOWN, buff=GAP)
    return VGroup(small, copy, link(small, row, copy, column))


def zoom_page(book: NumberBook, caption: tuple, name: str, values: Any, row: int, decimals: int, area: Area,
              heat: str | None = None, say: Sequence[tuple] = (), **options: Any) -> list[Page]:
    """The zoom as a plan() option: one page, the copy as a row below the small grid or as a column
    beside it, whichever leaves the grid larger. It fits where the copy's numbers read. The copy's
    records are made once the option is measured (they are those the grid itself would make)."""
    page = Page(caption, VGroup(), say=say)

    def lay() -> None:
        sizes: dict[bool, float] = {}
        for column in (False, True):
            small = shell(values, heat)
            copy = row_copy(book, name, values, row, decimals, small, column, heat=heat, **options)
            if zoomed(small, row, copy, area, column) is not None:
                sizes[column] = small.height
        column = max(sizes, key=lambda c: sizes[c]) if sizes else False
        small = shell(values, heat)
        copy = row_copy(book, name, values, row, decimals, small, column, heat=heat, **options)
        group = zoomed(small, row, copy, area, column)
        page.blocks = group if group is not None else VGroup(small, copy)
        page.need = needed(book, copy) if group is not None else float("inf")
        setattr(page, "small", small)        # for the clip's reveal
        setattr(page, "copy", copy)
    page.lay = lay
    return [page]

