"""A grid whose first entries are made in front of the viewer where the page has room (derive.room
finds it: the page's band, else a strip by the caption line, else none): its shell first, shown
with whatever else the step brings in, then each made entry derived, then the rest in a sweep
(kit/motion/sweep.py: each entry lands with its sources lit; grid_made: the shell comes alone).

    band = derive.room(scene, page, made, band_if_the_page_has_one)
    shell, rest = first_of(book, grid, made, band)
    scene.play(Appear(shell), Appear(tag))
    make(scene, made, band, rest)
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import Mobject

from scenes.kit.motion import derive
from scenes.kit.motion.sweep import sweep
from scenes.kit.draw.anim import Appear
from scenes.kit.motion.derive import Band
from scenes.kit.motion.expressions import Derivation
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook


def first_of(book: NumberBook, grid: MatrixGrid, made: Sequence[Derivation], band: Band | None) -> tuple:
    """(shell, rest) of a grid whose entries `made` are made in front of the viewer where there is room."""
    return derive.split(book, grid, [d.cell for d in made] if band is not None else [])


def make(scene: Any, made: Sequence[Derivation], band: Band | None, rest: Mobject, *also: Any) -> None:
    """The derivations (where there is room), then the rest of their grid swept in (then `also`)."""
    for d in made if band is not None else ():
        derive.derive(scene, d, band)
    sweep(scene, rest, *also)


def grid_made(scene: Any, grid: MatrixGrid, d: Derivation | None, band: Band | None, run_time: float = 0.6) -> None:
    """A grid: its frame, one entry derived (when there is room), then the rest swept in."""
    shell, rest = derive.split(scene.book, grid, [d.cell] if d is not None and band is not None else [])
    scene.play(Appear(shell), run_time=run_time)
    if d is not None and band is not None:
        derive.derive(scene, d, band)
    sweep(scene, rest, run_time=run_time)
