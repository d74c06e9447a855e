"""Blocks on the layout record: which drawn block (a grid with its header, name tag and shape tag)
each item belongs to. Each clip declares what its blocks are (its BLOCKS: the role of a block's
name and of its frames); tests/support/contract.block_problems checks every item of every block
drawn in it. A MatrixGrid names its block (`grid.block`) and records it in its entries' places
and its header's; a named grid's tags are recorded in it (`in_block`); anything else drawn inside a
block's mobject is its block's (`block_of`, as the layout walks the scene).
"""
from __future__ import annotations

import re
from typing import Any

from manim import Mobject


def block_of(mob: Mobject, around: str | None) -> str | None:
    """The block a mobject draws (a MatrixGrid's, a named grid's: each clip declares its blocks'
    roles, its BLOCKS, checked by tests/support/contract.block_problems), or the one around it."""
    named = getattr(mob, "block", None)      # a MatrixGrid's
    if isinstance(named, str):
        return named
    grid = getattr(mob, "grid", None)         # a named grid's MatrixGrid, whose block is its own
    found = getattr(grid, "block", None)
    return found if isinstance(found, str) else around


def grid_block(label: str, grid: str) -> str:
    """The block of a grid whose first entry is `label`: the label without its row and column
    (wrap.head[1] for wrap.head[1][0][0]), else the grid's name."""
    whole = ENTRY_LABEL.match(label)
    return whole[1] if whole else grid.split("#")[0]


ENTRY_LABEL = re.compile(r"^(.*?)(?:\[\d+\]){2}$")


def in_block(book: Any, mob: Mobject, name: str) -> Mobject:
    """Record that the book's items in `mob` (a grid's header, a name tag) belong to block `name`."""
    for part in mob.get_family():
        meta = book.meta.get(id(part))
        if meta is not None and meta["kind"] != "mark":
            meta["place"].setdefault("block", name)
    return mob
