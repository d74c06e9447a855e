"""Grids whose −∞, NaN and masked zeros cannot pass for numbers (MatrixGrid's marks), with room
for their labels: a grid, one column, one row, a vector written out as '(a, b)', and boxes the
size of grids with row names, to choose a layout before drawing them.

    sums = column(book, "row_sums", steps.row_sums, col_labels=["行和"])    # row_sums[i]
    query = line(book, "q[1]", q[1], decimals=style.decimals_for(q[1]))      # q[1][c]

Every number goes through the NumberBook.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import RIGHT, VGroup

from scenes.kit.text import style
from scenes.kit.page.blocks import proxy
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook, Shown


def grid(book: NumberBook, name: Any, values: Any, decimals: int = 4, **options: Any) -> MatrixGrid:
    """A MatrixGrid with its marks (−∞, NaN, hidden zeros), its columns as wide as their labels
    (unless fit_col_labels=False)."""
    return MatrixGrid(book, name, values, decimals, marks=True, **{"fit_col_labels": True, **options})


def column(book: NumberBook, name: str, values: Any, **options: Any) -> MatrixGrid:
    """One value per row, recorded as name[i] (row sums, one query's scores)."""
    values = np.asarray(values, float)
    if options.get("hidden") is not None:
        options["hidden"] = np.asarray(options["hidden"], bool)[:, None]
    return grid(book, [[f"{name}[{i}]"] for i in range(len(values))], values[:, None], **options)


def line(book: NumberBook, name: str, values: Any, **options: Any) -> MatrixGrid:
    """One row of values, recorded as name[c] (a query, an output)."""
    values = np.asarray(values, float)
    return grid(book, [[f"{name}[{c}]" for c in range(len(values))]], values[None, :], **options)


def vector_text(book: NumberBook, name: str, values: Any, decimals: int = 4) -> Shown:
    """'(a, b)' with each component recorded as name[c]."""
    parts = [book.fmt(f"{name}[{c}]", v, decimals) for c, v in enumerate(values)]
    return book.compose("(" + ", ".join("{}" for _ in parts) + ")", *parts)


def stand_ins(book: NumberBook, values: Sequence[Any], names: Sequence[Shown] = (),
              gap: float = 0.4) -> VGroup:
    """Empty boxes the size of grids of these values (blocks.proxy), left to right, the first
    with room for the row names `names`: a grid's numbers are recorded as soon as it is made."""
    label_w = max(book.label(n, size=style.LABEL_SIZE).width for n in names) + 0.15 if names else 0.0
    boxes = [proxy(v, style.decimals_for(v), label_w if n == 0 else 0.0) for n, v in enumerate(values)]
    return VGroup(*boxes).arrange(RIGHT, buff=gap)      # type: ignore[arg-type]  # Rectangles
