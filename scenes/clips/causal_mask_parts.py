"""Builders for the causal-mask clip: grids whose −∞, exact-zero and NaN cells
cannot be mistaken for ordinary numbers, and rows of grids that line up.

Every number goes through the NumberBook; every colour comes from style.
"""
from manim import RIGHT, UP, VGroup

from scenes.kit.grids import MatrixGrid

def grid(book, name, values, decimals=4, **kw) -> MatrixGrid:
    """A MatrixGrid whose −∞, NaN and masked zeros cannot pass for numbers, with room for its labels."""
    return MatrixGrid(book, name, values, decimals, marks=True, fit_col_labels=True, **kw)


def side_by_side(grids, buff=0.3):
    """Grids placed left to right with their first rows on one line."""
    group = VGroup(*grids)
    for left, right in zip(grids, grids[1:]):
        right.shift(left.boxes[0][-1].get_right() + RIGHT * buff - right.boxes[0][0].get_left())
        right.shift(UP * (left.boxes[0][0].get_center()[1] - right.boxes[0][0].get_center()[1]))
    return group


def vector_text(book, name, values, decimals=4):
    """'(a, b)' with each component recorded as name[c]."""
    parts = [book.fmt(f"{name}[{c}]", v, decimals) for c, v in enumerate(values)]
    return book.compose("(" + ", ".join("{}" for _ in parts) + ")", *parts)
