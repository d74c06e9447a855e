"""MatrixGrid's texts (scenes/kit/draw/grids.py): cells holding a text the book made (a fraction, an id,
a word) in the grid's own boxes, with its labels, heat and marks, recorded in their cells; the
same grid of numbers and of texts share their geometry; spelled ids are numbers."""
from types import SimpleNamespace

import numpy as np
import pytest

from support.contract import structure_problems
from scenes.kit.draw.arrays import spelled_grid
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import snapshot
from scenes.kit.text.numbers import NumberBook, TypedNumberError

VALUES = [[1.0, 0.0], [0.5, 0.5]]
HIDDEN = [[False, True], [False, False]]


def texts(book):
    """'1', '0', '1/2', '1/2': each numerator and denominator recorded."""
    one = [book.index("f.num[0][0]", 1), book.index("f.num[0][1]", 0)]
    halves = [book.compose("{}/{}", book.index(f"f.num[1][{j}]", 1), book.index(f"f.den[1][{j}]", 2))
              for j in range(2)]
    return [one, halves]


def items(book, *mobs):
    return snapshot(SimpleNamespace(mobjects=list(mobs)), book, 1)["items"]


def test_texts_sit_in_the_cells_with_labels_heat_and_marks():
    book = NumberBook()
    grid = MatrixGrid(book, "f.frac", VALUES, texts=texts(book), hidden=HIDDEN, heat="weights",
                      header="softmax", row_labels=["x", "y"], col_labels=["u", "v"])
    found = items(book, grid)
    entries = {it["label"]: it for it in found if "row" in it}
    assert sorted(entries) == ["f.frac[0][0]", "f.frac[0][1]", "f.frac[1][0]", "f.frac[1][1]"]
    assert entries["f.frac[1][1]"]["text"] == "1/2" and entries["f.frac[1][1]"]["kind"] == "label"
    assert (entries["f.frac[1][0]"]["row"], entries["f.frac[1][0]"]["col"]) == (1, 0)
    assert [it["covers"] for it in found if it["kind"] == "mark"] == [["f.frac[0][1]"]]
    assert {it["text"] for it in found if it.get("axis")} == {"x", "y", "u", "v"}
    assert structure_problems({"layout": [{"step": 1, "items": found}]},
                              marks={"hidden": {"f.frac[0][1]"}}) == []
    # the heat scale of the values, as a grid of numbers colours them
    numbers = MatrixGrid(NumberBook(), "w", VALUES, heat="weights")
    assert grid.boxes[1][0].get_fill_color() == numbers.boxes[1][0].get_fill_color()
    # the numerators and denominators are the book's numbers; the cells hold texts
    labels = {r["label"] for r in book.records}
    assert {"f.num[1][0]", "f.den[1][0]"} <= labels and not any(x.startswith("f.frac") for x in labels)


def test_a_grid_of_texts_has_the_boxes_of_a_grid_of_numbers_as_wide():
    book = NumberBook()
    words = [[book.compose("{}.{}", book.index(f"a[{i}][{j}]", 0), book.index(f"b[{i}][{j}]", 5000))
              for j in range(3)] for i in range(2)]        # '0.5000' as a text: as wide as the number
    as_text = MatrixGrid(book, "t", np.full((2, 3), 0.5), texts=words)
    as_numbers = MatrixGrid(book, "n", np.full((2, 3), 0.5))
    for i in range(2):
        for j in range(3):
            assert as_text.boxes[i][j].get_center() == pytest.approx(as_numbers.boxes[i][j].get_center(), abs=0.02)
            assert as_text.entries[i][j].get_center() == pytest.approx(as_text.boxes[i][j].get_center())


def test_spelled_ids_are_numbers_in_their_cells():
    book = NumberBook()
    grid = spelled_grid(book, "e{}", [["id[0][0]", "id[0][1]"]], [[4, 5]])
    entries = [it for it in items(book, grid) if "row" in it]
    assert [(it["label"], it["text"], it["kind"]) for it in entries] == [("id[0][0]", "e4", "number"),
                                                                       ("id[0][1]", "e5", "number")]
    assert [r["value"] for r in book.records if r["label"].startswith("id[")] == [4, 5]


def test_a_text_with_a_typed_digit_is_refused():
    """Planted: a digit written into a cell's text instead of made by the book."""
    book = NumberBook()
    with pytest.raises(TypedNumberError):
        MatrixGrid(book, "f", [[0.5]], texts=[["1/2"]])


def test_a_text_out_of_its_cell_is_caught():
    book = NumberBook()
    grid = MatrixGrid(book, "f.frac", VALUES, texts=texts(book), hidden=HIDDEN, heat="weights")
    grid.entries[1][1].shift([2, 0, 0])                     # planted: drawn in its neighbour's place
    problems = structure_problems({"layout": [{"step": 1, "items": items(book, grid)}]})
    assert any("f.frac[1][1]" in p and "outside its cell" in p for p in problems)
