"""Answer sheets (scenes/kit/compose/sheets.py): a step's caption and narration each take only the slots
they name; parts appear in the groups asked for; a row's softmax weight is made on the first row
that sees more than one key (a row that sees none said as NaN when asked first); a change is
green only when it is exactly zero; two runs that read the same yet differ are said to differ.
Planted: the NaN row taken first whatever was asked (the exercises' zeros would then show no
softmax at all) is caught by the row test."""
import numpy as np
import pytest

from scenes.kit.compose import sheets
from scenes.kit.text import style
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import NumberBook


class Stage:
    """A scene that writes down what it is asked to do."""

    def __init__(self):
        self.book, self.calls = NumberBook(), []

    def step(self, template, *slots, **named):
        self.calls.append(("step", template, sorted(named)))

    def narrate(self, template, *slots, **named):
        self.calls.append(("narrate", template, sorted(named)))

    def play(self, *anims, run_time=None):
        self.calls.append(("play", len(anims), run_time))

    def wait(self, seconds=1.0):
        self.calls.append(("wait", seconds))


def test_caption_and_narration_take_their_own_slots():
    stage = Stage()
    slots = {"p": stage.book.index("p", 1), "q": stage.book.index("q", 2), "r": stage.book.index("r", 3)}
    sheets.tell(stage, "p = {p}", "q = {q}, p = {p}", **slots)
    assert stage.calls == [("step", "p = {p}", ["p"]), ("narrate", "q = {q}, p = {p}", ["p", "q"])]


def test_parts_appear_in_the_groups_asked_for():
    stage, book = Stage(), NumberBook()
    parts = [note(book, "a"), note(book, "b"), note(book, "c"), note(book, "d")]
    sheets.in_turn(stage, parts, (1, 2, 1), run_time=0.6)
    assert stage.calls == [("play", 1, 0.6), ("play", 2, 0.6), ("play", 1, 0.6)]
    stage.calls.clear()
    sheets.in_turn(stage, parts[:2], pause=0.3)
    assert stage.calls == [("play", 1, None), ("wait", 0.3), ("play", 1, None), ("wait", 0.3)]


def made_on(hidden, nan_first=False):
    book = NumberBook()
    values = np.where(hidden, np.nan, 0.5)
    weights = sheets.grid(book, "w", values, 4)
    scores = sheets.grid(book, "s", np.where(hidden, -np.inf, 1.0), 4)
    return sheets.softmax_cell(book, weights, scores, hidden, nan_first)


@pytest.mark.parametrize("diagonal, nan_first, cell, op", [
    (1, False, (1, 0), "softmax"),      # the causal mask: row 0 sees itself only, row 1 two keys
    (0, False, (2, 0), "softmax"),      # the diagonal masked too: row 0 sees nothing, row 2 two keys
    (0, True, (0, 0), "softmax"),       # ... and asked for first: the row with no key, said as NaN
])
def test_the_weight_made_is_on_the_row_asked_for(diagonal, nan_first, cell, op):
    hidden = np.triu(np.ones((3, 3), bool), diagonal)
    d = made_on(hidden, nan_first)
    assert (d.cell, d.op) == (cell, op)
    said = [p for p in d.pieces if isinstance(p, str)]
    assert (sheets.NAN_WORDS in said) == (not (~hidden[cell[0]]).any())


def test_a_change_is_green_only_when_exactly_zero():
    book = NumberBook()
    zero, tiny = sheets.change(book, "a", 0.0), sheets.change(book, "b", 1e-300)
    assert zero.get_color().to_hex().lower() == style.VALUE.lower()
    assert tiny.get_color().to_hex().lower() == style.MASK.lower()
    assert sheets.slot(book, "c", 0.0) == "0" and sheets.slot(book, "d", 0.25) == "0.2500"


def test_two_runs_that_read_the_same_are_said_to_differ():
    book = NumberBook()
    a = np.array([0.1, 0.2])

    def noted(b, gap):
        zoom = sheets.two_runs(book, note(book, "t"), ("y", "y′"), ("y", "y2"), a, b, gap, "gap")
        return len(zoom.submobjects) == 3
    assert noted(a + 1e-9, 1e-9)           # the same at four decimals, yet not equal: said
    assert not noted(a, 0.0)               # equal: nothing to say
    assert not noted(a + 0.5, 0.5)         # the columns show the difference themselves
