"""The kit's tables and text grids (scenes/kit/draw/columns.py, MatrixGrid texts=, blocks.share): columns
as wide as their widest cell and aligned as asked, rules and bands that follow a scaled table,
fractions recorded in their cells with their marks, two blocks sharing an area's width."""
from types import SimpleNamespace

import numpy as np
import pytest
from manim import LEFT, ORIGIN, RIGHT, Rectangle

from support.contract import structure_problems
from scenes.kit.page.blocks import share
from scenes.kit.draw.columns import Table
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import snapshot
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area


def box(w, h=0.3):
    return Rectangle(width=w, height=h)


def test_columns_take_their_widest_cell_and_align_as_asked():
    rows = [[box(1.0), box(0.5), box(0.4)], [box(2.0), None, box(0.8)]]
    t = Table(rows, aligns=(LEFT, RIGHT), gap=0.5, row_h=0.6)      # the third column centred
    assert t.widths == [2.0, 0.5, 0.8]
    (a, b, c), (d, _, f) = rows
    assert a.get_left()[0] == pytest.approx(d.get_left()[0]) == pytest.approx(0)
    assert b.get_right()[0] == pytest.approx(2.0 + 0.5 + 0.5)
    assert c.get_center()[0] == pytest.approx(f.get_center()[0]) == pytest.approx(3.5 + 0.8 / 2)
    assert d.get_center()[1] == pytest.approx(-0.6)
    assert len(t.row(1)) == 2 and len(t.rows()) == 2 and len(t.col(2)) == 2


def test_rules_and_bands_follow_the_table_when_it_is_scaled():
    rows = [[box(1.0), box(1.0)], [box(1.0), box(1.0)]]
    t = Table(rows, gap=0.4, row_h=0.5)
    t.scale(2).shift(RIGHT * 3)
    rule, band = t.rule(1), t.band([0, 1])
    assert t.zoom() == pytest.approx(2)
    assert rule.get_center()[1] == pytest.approx((rows[0][0].get_y() + rows[1][0].get_y()) / 2)
    assert rule.get_left()[0] == pytest.approx(rows[0][0].get_left()[0] - 0.4)       # half a gap each side
    assert band.height == pytest.approx(2 * 0.5 * 2)
    assert band.get_right()[0] == pytest.approx(rows[0][1].get_right()[0] + 0.4)


def fractions(book):
    texts = [[book.index("f.num[0][0]", 1), book.index("f.num[0][1]", 0)],
             [book.compose("{}/{}", book.index("f.num[1][0]", 1), book.index("f.den[1][0]", 2)),
              book.compose("{}/{}", book.index("f.num[1][1]", 1), book.index("f.den[1][1]", 2))]]
    return MatrixGrid(book, "f.frac", [[1.0, 0.0], [0.5, 0.5]], texts=texts, hidden=[[False, True], [False, False]],
                      heat="weights", header="softmax")


def layout(book, *mobs):
    return {"layout": [snapshot(SimpleNamespace(mobjects=list(mobs)), book, 1)]}


def test_a_text_grid_records_each_text_in_its_cell_and_its_marks():
    book = NumberBook()
    grid = fractions(book)
    items = layout(book, grid)["layout"][0]["items"]
    entries = {it["label"]: it for it in items if "row" in it}
    assert sorted(entries) == ["f.frac[0][0]", "f.frac[0][1]", "f.frac[1][0]", "f.frac[1][1]"]
    assert entries["f.frac[1][0]"]["text"] == "1/2" and entries["f.frac[1][0]"]["col"] == 0
    assert [it["covers"] for it in items if it["kind"] == "mark"] == [["f.frac[0][1]"]]
    assert structure_problems(layout(book, grid), marks={"hidden": {"f.frac[0][1]"}}) == []
    assert not [r for r in book.records if r["label"].startswith("f.frac")]      # texts, not numbers


def test_a_fraction_out_of_its_cell_is_caught():
    book = NumberBook()
    grid = fractions(book)
    grid.entries[1][1].shift(RIGHT * 2)                     # planted: drawn in its neighbour's place
    problems = structure_problems(layout(book, grid))
    assert any("f.frac[1][1]" in p and "outside its cell" in p for p in problems)


def test_two_blocks_share_the_width_and_keep_their_most():
    area = Area(width=10, top=3, bottom=-3)
    left, right = box(8, 2), box(1, 1)
    share(left, right, area, split=0.6, most=(1.0, 1.5), edge=ORIGIN)
    assert left.width == pytest.approx(10 * 0.6 - 0.3)
    assert right.width == pytest.approx(1.5)                 # room for more, held at its most
    assert right.get_left()[0] - left.get_right()[0] == pytest.approx(0.6)
    assert np.allclose((left.get_left() + right.get_right())[:2] / 2, area.center()[:2])
