"""A page hung under a top line (scenes/kit/motion/tables.py): a block scaled into the room under the
line, never past its most; a band for the derivations kept under the blocks only where every
number still keeps the legibility contract (style.LEGIBLE_H), measured here from the numbers'
own heights after placing, not from the engine's arithmetic."""
import pytest
from manim import Rectangle, VGroup

from scenes.kit.motion import derive, tables
from scenes.kit.text import style
from scenes.kit.draw.columns import Table
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area
from scenes.kit.motion.tables import under, with_band


class Made:
    """What a Band asks of a derivation: the width of its expression at scale 1."""

    def __init__(self, width: float) -> None:
        self._width = width

    def width(self) -> float:
        return self._width


def table(book: NumberBook, rows: int = 4) -> Table:
    return Table([[book.num(f"x[{i}][{j}]", 0.1 * i + 0.01 * j, 6) for j in range(4)] for i in range(rows)])


def smallest_number(book: NumberBook, page) -> float:
    return min(m.height for m in page.get_family() if book.meta.get(id(m), {}).get("kind") == "number")


def test_a_block_hangs_under_the_line_scaled_into_its_room():
    line = Rectangle(width=6, height=0.4).move_to([1.0, 2.75, 0])
    block = Rectangle(width=20, height=2)
    under(line, block, Area(10, height=3, most=1.3), buff=0.3)
    assert block.width == pytest.approx(10)                             # the width binds
    assert block.get_top()[1] == pytest.approx(line.get_bottom()[1] - 0.3)
    assert block.get_x() == pytest.approx(0.0)                          # centred on the frame
    small = Rectangle(width=1, height=1)
    under(line, small, Area(10, height=3, most=1.3))
    assert small.height == pytest.approx(1.3)                           # grown no more than most


def test_the_band_stays_where_the_numbers_still_read():
    book = NumberBook()
    t = table(book)
    page, band = with_band(book, [t], [Made(3.0)], Area(12, height=5, most=1.3))
    assert band is not None and band in page.submobjects
    assert band.get_top()[1] < t.get_bottom()[1]                         # under the table
    Area(12, height=5, most=1.3).place(page)
    assert smallest_number(book, page) >= style.LEGIBLE_H


def band_breaks_the_contract(book: NumberBook, area: Area) -> tuple:
    """A table that fills the area's height alone: with a wide band, numbers would fall short."""
    t = table(book, rows=12)
    page, band = with_band(book, [t], [Made(40.0)], area)
    area.place(page)
    return page, band


def test_the_band_leaves_where_it_would_shrink_the_numbers():
    book = NumberBook()
    page, band = band_breaks_the_contract(book, Area(12, height=5.2, most=1.3))
    assert band is None
    assert all(not isinstance(m, derive.Band) for m in page.submobjects)


def test_nothing_made_no_band():
    book = NumberBook()
    t = table(book)
    page, band = with_band(book, [t], [], Area(12, height=5))
    assert band is None and list(page.submobjects) == [t]


def test_planted_band_always_kept_is_caught(monkeypatch):
    """The engine's choice skipped (the band kept whatever it costs): the numbers fall short."""
    monkeypatch.setattr(tables.derive, "on_page", lambda book, group, band, area, lay=None: (lay(), band)[1])
    book = NumberBook()
    page, band = band_breaks_the_contract(book, Area(12, height=5.2, most=1.3))
    assert band is not None and smallest_number(book, page) < style.LEGIBLE_H


def test_blocks_stack_in_order_with_the_band_last():
    book = NumberBook()
    title, t = Rectangle(width=4, height=0.4), table(book)
    page, band = with_band(book, [title, t], [Made(3.0)], Area(12, height=6, most=1.3))
    assert list(page.submobjects) == [title, t, band]
    assert title.get_bottom()[1] > t.get_top()[1] and t.get_bottom()[1] > band.get_top()[1]
    assert isinstance(page, VGroup)
