"""Tables on a page that hangs under a top line (a mode line, a title): a block scaled into the
room under it, and blocks stacked with a band for the derivations of their numbers, the band
kept only where the page still keeps the legibility contract.

    area = Area(width, height=room, most=1.3)
    page, band = with_band(book, [table], made, area)    # band: None where it would not read
    under(mode_line, page, area)                          # scaled into the area, hung under the line

The clip says which blocks, which numbers are made and how much room; these decide the rest.
"""
from __future__ import annotations

from typing import Sequence

from manim import DOWN, Mobject, VGroup, VMobject

from scenes.kit.motion import derive
from scenes.kit.motion.derive import Band
from scenes.kit.motion.expressions import Derivation
from scenes.kit.text.layout import fit
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area


def under(top: Mobject, mob: Mobject, area: Area, buff: float = 0.35) -> Mobject:
    """Scale `mob` into the area's width and height (never past its `most`) and hang it `buff`
    under `top`, centred across the frame."""
    return fit(mob, area.width, area.tall(), area.most).next_to(top, DOWN, buff=buff).set_x(0)


def with_band(book: NumberBook, blocks: Sequence[VMobject], made: Sequence[Derivation], area: Area,
              buff: float = 0.25) -> tuple[VGroup, Band | None]:
    """The blocks, and under them a band for the derivations `made`, stacked `buff` apart: the
    band stays where, scaled into `area`, every number keeps LEGIBLE_H (derive.on_page), else the
    blocks are stacked without it. Nothing made: the blocks as they are, no band."""
    page = VGroup(*blocks)
    if not made:
        return page, None
    band = Band(made)
    page.add(band)
    return page, derive.on_page(book, page, band, area, lambda: page.arrange(DOWN, buff=buff))
