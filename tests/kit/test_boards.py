"""The boards the kit declares for the clips (scenes/kit/compose/boards.py): which choices plan() took,
the ways a row of blocks splits over pages, a table of columns that share rows, bars as long
as their values, Falk's scheme for a product, and a board in a row, else the first block above,
else the compact pieces, else the first block on a page of its own (planted, by hand: picked()
reading the axes in reverse order, a table whose later columns start a row low, and an engine
that takes the compact row without asking the contract, each failed its test here)."""
from types import SimpleNamespace

import numpy as np
import pytest
from manim import UP, Rectangle

from support.contract import structure_problems
from scenes.kit.compose import boards
from scenes.kit.draw.columns import Columns, side_bars
from scenes.kit.text.layout import snapshot
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.options import optional, variants
from scenes.kit.page.page import Area, Page, plan


def box(w, h=1.0):
    return Rectangle(width=w, height=h)


def layout(book, *mobs):
    return {"layout": [snapshot(SimpleNamespace(mobjects=list(mobs)), book, 1)]}


def test_picked_names_the_choices_of_the_option_plan_took():
    """Each page carries its own choices: picked() must give those back for whichever option is taken."""
    head, band = box(1), box(2)
    labels, parts = ["whole", "cut"], optional(head, band)
    options = variants(lambda cols, shown: [Page((cols, tuple(shown), {}), box(1))], labels, parts)
    for option in options:
        cols, shown, _ = option[0].caption
        assert boards.picked(options, list(option), labels, parts) == (cols, list(shown))
    area = Area(width=10, top=3, bottom=-3)
    taken = plan(None, options, area, [1.0] * len(options))     # every option fits: the first
    assert boards.picked(options, taken, labels, parts) == ("whole", [head, band])


def test_a_row_splits_into_one_board_runs_that_fit_or_one_a_page():
    blocks = [box(4), box(4), box(4)]
    whole, runs, each = boards.splits(blocks, width=10, height=5, gap=1, least=0.9)
    assert whole == [blocks]
    assert runs == [blocks[:2], blocks[2:]]                   # 4 + 1 + 4 = 9 fits 10; 14 does not
    assert each == [[b] for b in blocks]
    laid = boards.in_row(blocks[:2], gap=0.5)(2.0)            # the gap grows with the page's scale
    assert blocks[1].get_left()[0] - blocks[0].get_right()[0] == pytest.approx(1.0)
    assert laid.height == pytest.approx(1.0)


def table(book):
    heads = [book.label("s"), book.label("a long head"), book.label("w")]
    columns = [("s", [1.0, 2.0, 3.0], 0, heads[0], None), ("r", [0.5, 0.25, 0.25], 2, heads[1], None),
               ("w", [0.2, 0.3, 0.5], 1, heads[2], "weights")]
    return Columns(book, columns, ["a", "b", "c"], ["red", "white", "white"],
                          [("s_sum", 6.0, 0), None, ("w_sum", 1.0, 1)], book.label("Σ"))


def test_a_table_of_columns_shares_its_rows_and_keeps_its_heads_apart():
    book = NumberBook()
    t = table(book)
    for i in range(3):
        ys = [g.boxes[i][0].get_y() for g in t.grids]
        assert max(ys) - min(ys) == pytest.approx(0.0, abs=1e-9)
        assert t.grids[0].row_labels[i].get_right()[0] < t.grids[0].box_group.get_left()[0]
    heads = [m for m in t.submobjects if m not in t.grids and m not in t.sums][:3]
    for left, right in zip(heads, heads[1:]):
        assert left.get_right()[0] < right.get_left()[0]         # a wide head pushes its neighbour
    for g, head in zip(t.grids, heads):
        assert head.get_bottom()[1] > g.box_group.get_top()[1]
    columns = [t.grids[0].box_group.get_x(), t.grids[2].box_group.get_x()]
    assert [s.get_x() for s in t.sums] == pytest.approx(columns)          # each Σ under its column
    assert structure_problems(layout(book, t)) == []


def test_side_bars_are_as_long_as_their_values_on_their_rows():
    t = table(NumberBook())
    axis, bars = side_bars(t, [0.2, 0.3, 0.5], ["blue"], length=2.0)
    for i, (bar, value) in enumerate(zip(bars, [0.2, 0.3, 0.5])):
        assert bar.width == pytest.approx(value * 2.0 + 1e-3)
        assert bar.get_y() == pytest.approx(t.grids[-1].boxes[i][0].get_y())
        assert bar.get_left()[0] == pytest.approx(axis.get_x())
    assert axis.get_x() > max(g.box_group.get_right()[0] for g in t.grids)


def test_falk_puts_x_left_of_the_products_and_each_w_above_its_own():
    book = NumberBook()
    x = boards.named_grid(book, "x", np.ones((3, 2)), 0, "white", "X")
    def block(n):
        w = boards.named_grid(book, f"w{n}", np.ones((2, 2)), 0, "white", "W", side=UP)
        out = boards.named_grid(book, n, np.ones((3, 2)), 0, "white", n.upper())
        return boards.product(w, out, n.upper(), "W")
    blocks = [block("q"), block("k")]
    boards.falk(x, blocks)
    assert x.get_right()[0] < blocks[0].get_left()[0] < blocks[1].get_left()[0]
    for b in blocks:
        assert b.w.grid.box_group.get_bottom()[1] > b.out.grid.box_group.get_top()[1]
        assert b.w.grid.box_group.get_x() == pytest.approx(b.out.grid.box_group.get_x())
        assert b.grid.box_group.get_y() == pytest.approx(x.grid.box_group.get_y())   # X's rows beside theirs


def test_a_board_in_a_row_else_the_first_above_else_the_compact_pieces():
    book = NumberBook()
    first = box(2, 2)
    drafts, compact = [box(3, 2), box(3, 2)], [box(1, 2), box(1, 2)]
    made = []

    def draw():
        made.append(1)
        return [box(3, 2), box(3, 2)]

    def board(width, need=0.0):
        return boards.row_or_stacked(book, Area(width, top=4, bottom=-4), lambda ps: [first, *ps], drafts,
                                     draw, compact, need)
    wide = board(12)
    assert wide.width > wide.height and made == [1]              # in a row, drawn once
    tall = board(6, need=0.7)                                     # a row would shrink to 6 / 9.0
    assert tall.submobjects[0].get_bottom()[1] > tall.submobjects[1].get_top()[1] - 1e-6 and made == [1, 1]
    narrow = board(3, need=0.7)                       # neither reads: the compact pieces, not drawn
    assert list(narrow.submobjects[1:]) == compact and made == [1, 1]
    assert boards.names_fit_over(0.1, np.ones((2, 2)), 0)
    assert not boards.names_fit_over(5.0, np.ones((2, 2)), 0)


def test_where_no_board_keeps_the_contract_the_first_block_takes_a_page_of_its_own(monkeypatch):
    """A wide grid first: even the row of compact pieces would draw its numbers under the contract's
    0.15, so it goes on a page of its own and the rest on the next (drawn while they read at `need`,
    else the `apart` pieces); with room, one board. Planted: an engine that takes the compact row
    without asking whether it keeps the contract: the layout contract names the numbers too small."""
    from support.contract import layout_problems
    from scenes.kit.draw.grids import MatrixGrid
    book, made = NumberBook(), []

    def draw():
        made.append(1)
        return [box(3, 2), box(3, 2)]

    def pages(ratio, drafts=(box(3, 2), box(3, 2)), apart=(box(1, 2), box(1, 2))):
        first = MatrixGrid(book, "wide", np.full((2, 8), -9966.6667), 4)
        area = Area(ratio * first.width, top=4, bottom=-4)
        laid = boards.row_stacked_or_apart(book, area, lambda ps: [first, *ps], drafts, draw,
                                           [box(1, 2), box(1, 2)], 0.7, list(apart))
        return first, [area.place(p) for p in laid]

    def problems(*placed):
        return layout_problems({"frame": {"width": 14.2, "height": 8.0}, **layout(book, *placed)})
    first, split = pages(0.6)
    assert split[0] is first and len(split) == 2 and made == [1] and problems(split[0]) == []
    apart = [box(1, 2), box(1, 2)]
    _, split = pages(0.6, drafts=[box(20, 2), box(20, 2)], apart=apart)
    assert list(split[1].submobjects) == apart and made == [1]
    assert len(pages(3.0)[1]) == 1 and made == [1, 1]
    monkeypatch.setattr(boards, "fits", lambda *args, **kwargs: True)
    _, (row,) = pages(0.6)
    assert any("units tall (< 0.15)" in p for p in problems(row)), problems(row)
