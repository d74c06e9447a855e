"""The declared relations of scenes/kit/compose/arrange.py and the ways they yield the page engine: every
combination of the parts' ways (the first part's choice varying slowest), parts that draw nothing
left out, the lay that keeps the clip's order while it is as roomy, whether the chosen way reads,
a block beside a column (or its head, or above it), and two linked blocks set apart with the
second's row names. Checked by where the boxes land, not by the module's own arithmetic.
Also a block (a band) kept where the page still keeps the contract, and the first way kept while
it does. Planted: the combinations taken with the first part varying fastest."""
import pytest
from manim import Rectangle, VGroup

from scenes.kit.compose import arrange
from scenes.kit.text import style
from scenes.kit.compose.arrange import Linked, below, beside, beside_or_below, by_column, either, head_beside, kept
from scenes.kit.page.blocks import RowNames, arrow
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area

EPS = 1e-6


def box(w, h=1.0):
    return Rectangle(width=w, height=h)


def gap_right(a, b):
    """How far b starts right of a's end."""
    return b.get_left()[0] - a.get_right()[0]


def gap_down(a, b):
    """How far b starts below a's bottom."""
    return a.get_bottom()[1] - b.get_top()[1]


def side(a, b) -> str:
    return "beside" if gap_right(a, b) > -EPS else "below" if gap_down(a, b) > -EPS else "overlap"


def laid_pairs():
    a, b, c, d = box(1), box(2), box(1.5), box(2.5)
    page = below(beside_or_below(a, b, gap=1.0), beside_or_below(c, d, gap=1.0), gap=0.5)
    seen = []
    for way in page.ways:
        way()
        seen.append((side(a, b), side(c, d)))
    return page, (a, b, c, d), seen


def test_every_combination_the_first_part_varying_slowest():
    page, (a, b, c, d), seen = laid_pairs()
    assert seen == [("beside", "beside"), ("beside", "below"), ("below", "beside"), ("below", "below")]
    # the last way: each pair stacked 0.6 of its gap apart, the second pair 0.5 under the first
    assert gap_down(a, b) == pytest.approx(0.6) and gap_down(c, d) == pytest.approx(0.6)
    assert gap_down(VGroup(a, b), VGroup(c, d)) == pytest.approx(0.5)
    page.ways[0]()
    assert gap_right(a, b) == pytest.approx(1.0) and a.get_top()[1] == pytest.approx(b.get_top()[1])


def test_planted_first_part_varying_fastest_is_caught(monkeypatch):
    from itertools import product

    def backwards(*axes):
        return [c[::-1] for c in product(*axes[::-1])]
    monkeypatch.setattr(arrange, "product", backwards)
    assert laid_pairs()[2][1] != ("beside", "below")


def test_parts_that_draw_nothing_take_no_room():
    a, b = box(2), box(3)
    page = below(a, None, VGroup(), b, gap=0.3)
    assert list(page.group) == [a, b]
    page.ways[0]()
    assert gap_down(a, b) == pytest.approx(0.3)


def test_lay_keeps_the_clips_order_while_as_roomy():
    area, book = Area(width=10, top=3, bottom=-3), NumberBook()
    a, b = box(4, 2), box(4, 2)
    beside_or_below(a, b).lay(book, area)()
    assert side(a, b) == "beside"                  # 8.8 wide fits whole: the first way
    a, b = box(7, 1), box(7, 1)
    beside_or_below(a, b).lay(book, area)()
    assert side(a, b) == "below"                   # beside would shrink to 0.68


def test_reads_when_the_chosen_way_keeps_numbers_readable():
    for room, reads in ((1.02, True), (0.98, False)):
        book = NumberBook()
        n = book.num("x", 1.0, 2)
        need = style.READABLE_H / n.height
        block = beside_or_below(box(20, 0.5), n, gap=0.5)
        area = Area(width=20 * need * room, height=50, most=10)
        assert block.reads(book, area) is reads
        area.place(block.group)
        assert bool(n.height >= style.READABLE_H - EPS) is reads


def test_by_column_beside_then_wrapped_then_above():
    first, head, z, note = box(3, 3), box(2), box(4), box(1, 0.5)
    shown = by_column(first, head, z, note, gap=0.8, column=0.45, rows=0.4)
    assert len(shown.ways) == 3 and list(shown.group)[0] is first
    shown.ways[0]()
    assert gap_right(first, head) == pytest.approx(0.8 + (4 - 2) / 2)      # head centred over z
    assert gap_down(head, z) == pytest.approx(0.45) and gap_down(z, note) == pytest.approx(0.45)
    shown.ways[1]()
    assert gap_right(first, head) == pytest.approx(0.8)
    assert first.get_top()[1] == pytest.approx(head.get_top()[1])
    assert gap_down(first, z) == pytest.approx(0.4)
    shown.ways[2]()
    assert gap_down(first, head) == pytest.approx(0.4) and gap_down(head, z) == pytest.approx(0.45)


def test_head_beside_a_column_of_the_rest():
    head, z, note = box(2, 3), box(4), box(1, 0.5)
    shown = head_beside(head, z, note)
    shown.ways[0]()
    assert gap_down(head, z) == pytest.approx(0.45) and gap_down(z, note) == pytest.approx(0.45)
    shown.ways[1]()
    assert gap_right(head, z) == pytest.approx(0.8) and head.get_top()[1] == pytest.approx(z.get_top()[1])


def test_linked_blocks_apart_the_second_with_its_row_names():
    book = NumberBook()
    m = MatrixGrid(book, "m", [[0, 1], [1, 0]], 0)
    a = MatrixGrid(book, "a", [[0.5, 0.5], [1, 0]], 2)
    link, names = arrow(book), RowNames(book, a, ["early", "late"], style.QUERY)
    made = Linked(m, link, a, names)
    made.ways[1]()                                  # below: turned, with its names
    assert link.turned and names in a.submobjects
    made.ways[0]()                                  # beside: m's row names serve both
    assert not link.turned and names not in a.submobjects
    made.ways[1]()
    first, second = made.apart()
    assert first.group is m and second.group is a
    first.ways[0]()
    assert not link.turned and names in a.submobjects
    for name, row in zip(names, a.boxes):
        assert name.get_right()[0] < row[0].get_left()[0]
        assert name.get_y() == pytest.approx(row[0].get_y())


def test_settle_keeps_the_first_way_while_it_keeps_the_contract():
    for room, first in ((2.0, True), (1.2, False)):
        book = NumberBook()
        n, wide = book.num("x", 1.0, 2), box(30, 1)
        need = style.LEGIBLE_H / n.height        # below: 1.4 + n tall, beside: 1 tall
        shown = either(below(n, wide), beside(n, wide))
        way = shown.settle(book, Area(width=100, height=need * room, most=10))
        assert (way is shown.ways[0]) is first
        assert side(n, wide) == ("below" if first else "beside")


def test_kept_where_the_page_still_keeps_the_contract():
    for room, keeps in ((3.0, True), (1.6, False)):
        book = NumberBook()
        n, extra = book.num("x", 1.0, 2), box(1, 1)
        need = style.LEGIBLE_H / n.height
        page, column = below(n, box(1, 1), gap=0.2), below(box(2, 1), gap=0.2)
        # with the extra: 2.4 + n tall; without: 1.2 + n
        found = kept(book, Area(width=100, height=need * room, most=10), extra, page.ways[0], page, column)
        assert (found is extra) is keeps
        assert (extra in page.group.submobjects) is keeps and (extra in column.group.submobjects) is keeps
        if keeps:
            assert gap_down(page.group[1], extra) == pytest.approx(0.2)


class Worked:
    """A stand-in derivation: all a band needs of one is its width."""

    def width(self):
        return 1.0


def halves_case(room):
    """Two halves, each a number above a box; the whole is both, one above the other (together:
    beside, too wide to fit). `room`: the area's height, in units at the least legible scale."""
    book = NumberBook()
    a, b = book.num("a", 1.0, 2), book.num("b", 2.0, 2)
    first, second = below(a, box(1, 1), gap=0.2), below(b, box(1, 1), gap=0.2)
    whole = below(a, first.group[1], b, second.group[1], gap=0.2)
    together = beside(first, second, gap=0.5)
    legible = style.LEGIBLE_H / a.height               # the least scale at which the numbers read
    area = Area(width=1.5 * legible, height=room * legible, most=10)    # side by side never fits
    boards = arrange.whole_or_halves(book, area, whole, together, (first, second), ([Worked()], [Worked()]))
    return area, (a, b), boards


def placed_heights(area, boards, numbers):
    """Each number's height once its board is placed in the area (as page.turn places it)."""
    heights = []
    for board, _, _ in boards:
        area.place(board)
        heights += [n.height for n in numbers if n in board.get_family()]
    return heights


@pytest.mark.parametrize("room, count, banded", [(8.0, 1, True), (3.5, 1, False), (3.0, 2, True),
                                                  (2.0, 2, False)])
def test_whole_or_halves_one_board_while_it_keeps_the_contract(room, count, banded):
    """One board while the whole keeps the contract, its band only where it still does; else the
    halves on boards of their own, each band likewise."""
    area, numbers, boards = halves_case(room)
    assert len(boards) == count
    assert [band is not None for _, band, _ in boards] == [banded] * count
    assert all(h >= style.LEGIBLE_H - EPS for h in placed_heights(area, boards, numbers))
    assert [len(m) for _, _, m in boards] == ([2] if count == 1 else [1, 1])


def test_planted_whole_kept_past_the_contract_is_caught(monkeypatch):
    """An engine that keeps the whole board whatever its scale: the tight case's numbers are
    drawn below the legible height, and the check says so."""
    monkeypatch.setattr(arrange, "keeps_contract", lambda book, mob, area: True)
    area, numbers, boards = halves_case(2.0)
    assert len(boards) == 1
    assert min(placed_heights(area, boards, numbers)) < style.LEGIBLE_H - EPS
