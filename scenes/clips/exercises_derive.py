"""The exercises' answers made in front of the viewer (issue 25; scenes/kit/derive.py): 3.1's first row
of W slides into the first column of its transpose, 3.2's heads slide into their concatenation, 3.3's
subtotal and total are sums of the table's counts, the supplementary weights are a softmax over the
row the mask leaves (a row with no visible key said as NaN), the wrong softmax's column sums, and the
shapes flow from row to row (scenes/kit/flow.py). The rest of each grid appears at once.

Each answer's builder (exercises_answers.py) lays out a Band for its expression with its blocks; the
expression is drawn there, else by the caption line, else left out (its record says so).
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import VGroup

from scenes.kit.flow import flow
from scenes.kit import derive, expressions as ex
from scenes.kit.anim import Appear
from scenes.kit.derive import Band
from scenes.kit.expressions import Derivation
from scenes.kit.page import named
from scenes.kit.quiz import countdown, heading, question_card

EXERCISES = ("3.1", "3.2", "3.3", "zeros", "shapes", "dim", "diagonal")   # book order
NAN_WORDS = "这一行的键全被遮住，softmax 得到"      # a row with no visible key: its weight, said as NaN


def softmax_cell(book: Any, weights: Any, of: Any, hidden: Any, nan_first: bool = False) -> Derivation:
    """A row's first visible weight as exp(own) / Σ exp(visible), on the first row that sees more
    than one key; a row that sees none said as NaN (nan_first: that row, when there is one)."""
    rows = range(weights.n_rows)
    seen = {i: [k for k in range(weights.n_cols) if not hidden[i][k]] for i in rows}
    empty, many = [n for n in rows if not seen[n]], [n for n in rows if len(seen[n]) > 1]
    i = ((empty + many if nan_first else many + empty) + [0])[0]
    if not seen[i]:
        return ex.said_as(weights, (i, 0), ex.cell(book, weights, i, 0), NAN_WORDS, "softmax")
    j = seen[i][0]
    return ex.softmax(weights, (i, j), ex.cell(book, weights, i, j), ex.cell(book, of, i, j),
                      [ex.cell(book, of, i, k) for k in seen[i]], ex.room_for(weights))


# ---------------------------------------------------------------- each answer's reveal
def transposed(scene: Any, parts: list) -> None:
    """3.1: W_query.weight, then W: its first column slides over from the weight's first row."""
    left, link, right, lines = parts
    lin, mine = left[0], right[0]
    scene.play(Appear(left))
    shell, rest = derive.split(scene.book, mine, [(j, 0) for j in range(mine.n_rows)])
    scene.play(Appear(link), Appear(shell), Appear(right[1]))
    derive.slide(scene, [(mine.entries[j][0], lin.entries[0][j]) for j in range(mine.n_rows)], op="transpose")
    scene.play(Appear(rest), run_time=0.6)
    scene.play(Appear(lines))


def concatenated(scene: Any, parts: list, d_out: int) -> None:
    """3.2: the heads' outputs, then each of their entries slides into the concatenation."""
    call, row, sums = parts
    heads, cat = [row[h][0] for h in range(len(row) - 2)], row[-1][0]
    scene.play(Appear(call))
    scene.play(*[Appear(row[h]) for h in range(len(row) - 2)], Appear(row[-2]))
    moves = [(cat.entries[i][j], heads[j // d_out].entries[i][j % d_out])
             for i in range(cat.n_rows) for j in range(cat.n_cols)]
    derive.grid_slid(scene, cat, moves, "concat", row[-1][1])
    scene.play(Appear(sums))


def counts(scene: Any, rows: Sequence[Any], made: Derivation, band: Band | None, run_time: float) -> None:
    """3.3: table rows in turn, the last one's count made from those above it (a sum)."""
    for row in rows[:-1]:
        scene.play(Appear(row), run_time=run_time)
    entry = made.grid.entries[0][0]
    scene.play(Appear(VGroup(*[m for m in rows[-1] if m is not entry])), run_time=run_time)
    if band is not None:
        derive.derive(scene, made, band)
    else:
        scene.play(Appear(entry), run_time=run_time)


def shapes_flow(scene: Any, sizes: Any, rows: Sequence[Any], table: Any) -> None:
    """The shapes exercise: each row's shape flows in from the sizes and the shapes above it."""
    scene.play(Appear(sizes))
    for i, row in enumerate(rows):
        shape = table.cells[i][2]
        flow(scene, shape, [*[table.cells[k][2] for k in range(i - 1, -1, -1)], sizes], show=0.4,
             also=[Appear(VGroup(*[m for m in row if m is not shape]))], quick=True)


# ---------------------------------------------------------------- the clip's steps (mixed into the scene)
class Rounds:
    """Each exercise: a question with its pause, answers, their parts in turn."""
    book: Any
    inputs: dict

    def header(self, name):
        """'习题 3.1' for the book's exercises, '补充题 1' for the supplementary ones."""
        if name[0].isdigit():
            return self.book.compose("习题 {}", self.book.section(f"ex.{name}", name))
        return self.book.compose("补充题 {}", self.book.index(f"ex.{name}", EXERCISES.index(name) - 2))

    def ask(self, name, caption, lines, say, **slots):
        """The question step: caption, what the lecturer says (then the pause), the card and the
        countdown, one dot a second. Each template takes the slots it names, {exercise} too."""
        slots["exercise"] = self.header(name)
        self.step(caption, **named(caption, slots))
        self.narrate(say, **named(say, slots))
        if self.inputs["pause"]:
            self.narrate("先停 {} 秒，自己想一想。", self.book.index("pause", self.inputs["pause"]))
        self.clear_stage()
        card, dots = question_card(self.book, slots["exercise"], lines, self.inputs["pause"])
        self.play(Appear(card))
        if dots is not None:
            self.play(countdown(dots), run_time=float(self.inputs["pause"]))

    def answer(self, name, caption, say, **slots):
        """An answer step: caption and narration (each taking the slots it names), the heading."""
        self.step(caption, **named(caption, slots))
        self.narrate(say, **named(say, slots))
        self.clear_stage()
        self.play(Appear(heading(self.book, self.header(name))), run_time=0.4)

    def derived(self, built, at, run_time=0.6):
        """An answer's blocks in turn, the one at `at` a grid with one entry made in front of the viewer."""
        parts, made, band = built
        band = derive.room(self, VGroup(*parts, band), [made], band, readable=True)
        self.show(parts[:at], run_time=run_time)
        derive.grid_made(self, parts[at], made, band, run_time)
        self.show(parts[at + 1:], run_time=run_time)

    def show(self, parts, together=None, run_time=None):
        """The answer's parts in turn: one at a time, or `together` of them in each play."""
        n = 0
        for count in together or [1] * len(parts):
            self.play(*[Appear(p) for p in parts[n:n + count]], run_time=run_time)
            n += count
