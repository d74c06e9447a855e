"""Grids in arrays, for the page engine (scenes/kit/page/page.py): a grid of whole numbers spelled
through a template (the ids e0, e1, …), a header beside or above a grid, blocks in rows like
Manim's VGroup.arrange_in_grid, and a grid drawn in colour only (its numbers left out, where
they could not be read).

The arrangements are ways: a clip declares them (`lambda: in_grid(blocks, 2)`), `choose` measures.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DL, LEFT, UL, UP, UR, Mobject, VGroup

from scenes.kit.text import style
from scenes.kit.draw.grids import MatrixGrid, heat_color, tile
from scenes.kit.text.numbers import NumberBook


def spelled_grid(book: NumberBook, template: str, labels: list[list[str]], values: Any,
                 **options: Any) -> MatrixGrid:
    """A MatrixGrid of whole numbers drawn through a digit-free template ("e{}" draws 5 as e5),
    each recorded as the number at its label, in its cell (options: MatrixGrid's)."""
    values = np.atleast_2d(np.asarray(values, float))
    texts = [[book.compose(template, book.index(label, int(v))) for label, v in zip(row, vals)]
             for row, vals in zip(labels, values)]
    return MatrixGrid(book, labels, values, 0, texts=texts, as_numbers=True, **options)


def headed(header: Mobject, body: Mobject, side: np.ndarray, pad: float = 0.18,
           first: Mobject | None = None) -> None:
    """Put the header left of the body's first row (side LEFT; `first`: that row, e.g. a grid's
    first cell) or above the body, left-aligned (UP)."""
    if side[0] < 0:
        header.next_to(body if first is None else first, LEFT, buff=pad)
    else:
        header.next_to(body, UP, buff=pad, aligned_edge=LEFT)


def in_grid(blocks: Sequence[Mobject], columns: int, buff: tuple[float, float] = (0.35, 0.14),
            edge: np.ndarray = UL, every: int = 0, extra: float = 0.0) -> None:
    """Blocks left to right in rows of `columns`, top to bottom, each in a slot as large as the
    largest block, against the slot's `edge` (UL, UR); after every `every` rows, `extra` room."""
    sizes = [b.get_corner(UR) - b.get_corner(DL) for b in blocks]      # corners: faster than .width
    width, height = max(s[0] for s in sizes), max(s[1] for s in sizes)
    for k, block in enumerate(blocks):
        row, col = divmod(k, columns)
        y = row * (height + buff[1]) + (row // every if every else 0) * extra
        centre = np.array([col * (width + buff[0]) + width / 2, -y - height / 2, 0.0])
        block.move_to(centre + edge * np.array([width / 2, height / 2, 0.0]), aligned_edge=edge)


def batch_columns(groups: int, per_batch: int) -> list[int]:
    """The numbers of columns that keep a batch's groups in whole rows, or whole batches in a row."""
    return [c for c in range(1, groups + 1) if per_batch % c == 0 or c % per_batch == 0]


def colour_grid(values: Any, width: float, height: float = style.MIN_CELL_H, low: float = 0.0,
                high: float = 1.0) -> VGroup:
    """A grid in colour only (the heat scale from low to high), its numbers left out: for a grid
    too large to read, shown beside what it sums to."""
    values = np.atleast_2d(np.asarray(values, float))
    cells = VGroup()
    for (i, j), v in np.ndenumerate(values):
        cell = tile(width, height, heat_color(float(v), low, high), 0.9)
        cells.add(cell.move_to([j * width, -i * height, 0]))
    return cells
