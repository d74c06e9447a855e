"""The declarations the page engine tries (scenes/kit/page/options.py): every combination of the
choices in the clip's order, parts left out first-listed first, and plan() taking the first
that reads; two blocks beside each other, else each on a page of its own. Planted: a product
that varies the first axis fastest picks the abbreviated labels while the whole ones still fit."""
from manim import Rectangle, VGroup

from scenes.kit.page import options
from scenes.kit.page.options import beside_or_apart, needs, optional, variants
from scenes.kit.page.page import Area, Page, plan

AREA = Area(width=10, top=3, bottom=-3)


def box(w, h=1.0):
    return Rectangle(width=w, height=h)


def test_parts_go_first_listed_first():
    head, band = box(1), box(2)
    assert optional(head, band) == [[head, band], [band], [head], []]
    assert optional(head) == [[head], []]


def chosen(axes_order=None):
    """Labels (whole: 9 wide, cut: 6 wide) x parts (a 4-tall formula over a 1-tall grid): the
    whole labels fit without the formula, so that is the page plan keeps."""
    body = {"whole": box(9), "cut": box(6)}
    formula = box(2, 4.5)

    def page(labels, parts):
        p = Page((labels, (), {}), lambda s: VGroup(*parts, body[labels]).arrange(buff=0.1))
        p.parts = parts
        return [p]
    made = variants(page, ["whole", "cut"], optional(formula))
    return plan(None, made, AREA, needs(made, 0.95, 0.5, last=2))[0]


def test_the_first_combination_that_reads_in_the_clips_order():
    page = chosen()
    assert page.caption[0] == "whole" and page.parts == []
    assert needs([1, 2, 3, 4], 0.8, 0.6, last=2) == [0.8, 0.8, 0.6, 0.6]


def test_planted_axes_varied_fastest_first_is_caught(monkeypatch):
    from itertools import product

    def backwards(*axes, repeat=1):  # the first axis varying fastest
        return [c[::-1] for c in product(*(axes * repeat)[::-1])]
    monkeypatch.setattr(options, "product", backwards)
    page = chosen()
    assert not (page.caption[0] == "whole" and page.parts == [])


def test_beside_or_apart():
    a, b = box(6, 2), box(6, 2)
    one, apart = beside_or_apart(("one", (), {}), [("a", (), {}), ("b", (), {})], [lambda s: a, lambda s: b],
                                 most=[1.3])
    board = one[0].laid_out(1.0)
    assert board.width > 12 and board.height == 2
    assert [p.caption[0] for p in apart] == ["a", "b"] and apart[0].most == 1.3 and apart[1].most is None
    assert plan(None, [one, apart], AREA, [0.9, 0.5]) == apart       # 12.x wide: 0.8 < 0.9, so apart
