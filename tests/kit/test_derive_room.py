"""Where a page's derivations go (scenes/kit/motion/derive.py on_page and room): the band stays on the page
while the page, with it, keeps every number LEGIBLE_H tall in its area (the page engine's plan of
the page with and without it), else it leaves and the page is laid out again; room() takes the
page's band, else a strip by the caption line, else none and each derivation's record says why.
Planted: a band kept whatever the numbers, a derivation dropped without saying so."""
from types import SimpleNamespace

from manim import DOWN, Rectangle, VGroup

from scenes.kit.motion import derive
from scenes.kit.text import style
from scenes.kit.motion.derive import Band
from scenes.kit.motion.derive_cells import total
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area


def page_of(width):
    """A number, a block `width` wide and the band for the number made as a sum of itself."""
    book = NumberBook()
    num = book.num("x", 0.5)
    d = total(book, num, [], 12.0)
    band = Band([d])
    group = VGroup(num, Rectangle(width=width, height=0.4), band)
    return book, group, band, d


def lay(group):
    return lambda: group.arrange(DOWN, buff=0.25)


def test_the_band_stays_while_the_numbers_stay_legible():
    book, group, band, _ = page_of(2.0)
    assert derive.on_page(book, group, band, Area(width=13.0, height=6.0), lay(group)) is band
    assert band in group.submobjects
    assert group.submobjects[0].get_y() > band.get_y()              # laid out with it, below the rest


def test_the_band_leaves_where_the_page_would_be_too_small_with_it():
    book, group, band, _ = page_of(2.0)
    tight = Area(width=13.0, height=style.LEGIBLE_H * 2.2)            # too small with the band in it
    assert derive.on_page(book, group, band, tight, lay(group)) is None
    assert band not in group.submobjects and len(group.submobjects) == 2
    number, block = group.submobjects
    assert number.get_bottom()[1] - block.get_top()[1] > 0.2          # laid out again without it


def test_room_is_the_band_else_the_caption_line_else_none_said_in_the_record(monkeypatch):
    book, group, band, d = page_of(2.0)
    scene = SimpleNamespace(book=book)
    assert derive.room(scene, group, [d], band) is band
    strip = Band([d], where="caption line")
    monkeypatch.setattr(derive, "strip", lambda scene, page, made: strip)
    assert derive.room(scene, group, [d]) is strip
    monkeypatch.setattr(derive, "strip", lambda scene, page, made: None)
    assert derive.room(scene, group, [d]) is None
    assert next(r for r in book.records if r["label"] == "x")["derivation"]["skipped"] == "no room"


def test_readable_keeps_the_band_only_while_the_placed_page_reads(monkeypatch):
    book, group, band, d = page_of(2.0)
    scene = SimpleNamespace(book=book)
    monkeypatch.setattr(derive, "strip", lambda scene, page, made: None)
    assert derive.room(scene, group, [d], band, readable=True) is band
    group.scale(style.READABLE_H / group.submobjects[0].height * 0.5)   # numbers half as tall as readable
    assert derive.room(scene, group, [d], band, readable=True) is None
