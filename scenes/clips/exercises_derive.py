"""The exercises' answers made in front of the viewer (issue 25; scenes/kit/derive.py): 3.1's first row
of W slides into the first column of its transpose, 3.2's heads slide into their concatenation, 3.3's
subtotal and total are sums of the table's counts, the supplementary weights are a softmax over the
row the mask leaves (a row with no visible key said as NaN), the wrong softmax's column sums, and the
shapes flow from row to row (scenes/kit/flow.py). The rest of each grid appears at once.

Each answer's builder (exercises_answers.py) lays out a Band for its expression with its blocks; the
expression is drawn there, else by the caption line, else left out (its record says so).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Sequence

from manim import LaggedStart, Rectangle, VGroup

from scenes.clips.exercises_parts import heading, question_card
from scenes.kit.flow import flow
from scenes.kit import derive, expressions as ex, style
from scenes.kit.anim import Appear, Vanish
from scenes.kit.derive import Band
from scenes.kit.expressions import Derivation, Term
from scenes.kit.page import named, needed

EXERCISES = ("3.1", "3.2", "3.3", "zeros", "shapes", "dim", "diagonal")   # book order
NAN_WORDS = "这一行的键全被遮住，softmax 得到"      # a row with no visible key: its weight, said as NaN


class Grouped(int):
    """A whole number the book prints with grouping commas (2,360,064). As a Term's value the kit's
    expressions draw and record it as the book's grouped text (style.format_number draws an int as
    str(): the same record as big_number's)."""

    def __str__(self) -> str:
        return style.format_grouped(int(self))


def sum_of(grid: Any, at: tuple[int, int], result: Term, terms: Sequence[Term], room: float) -> Derivation:
    """result = a + b + … (a row's or a column's sum; long sums left shorter, as the kit's)."""
    tail = ["=", result]
    body, short = ex.joined([[t] for t in terms], room, ex.width(tail) + ex.BUFF)
    return Derivation(grid, at, "sum", body + tail, short)


def counted(label: str, value: int, entry: Any) -> Term:
    """A table's grouped count as a Term, flown from its entry (lit as a text is: a table's entries
    are no grid's cells)."""
    return Term(label, Grouped(value), 0, at=entry)


def in_table(entry: Any, table: Any) -> SimpleNamespace:
    """A table's entry as the one cell a derivation lands in (its frame: an empty box around it,
    laid out with the table)."""
    box = Rectangle(width=entry.width + 0.1, height=entry.height + 0.1, stroke_opacity=0).move_to(entry)
    table.add(box)
    return SimpleNamespace(boxes=[[box]], entries=[[entry]])


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


def room(scene: Any, page: Any, band: Band, made: Sequence[Any]) -> Band | None:
    """The page's band while the placed page keeps its numbers readable, else room by the caption
    line, else none (the derivations are left out and say so)."""
    found = band if needed(scene.book, page) <= 1.0 else derive.strip(scene, page, made)
    for d in made if found is None else ():
        derive.skip(scene.book, d, "no room")
    return found


def make(scene: Any, grid: Any, d: Derivation | None, band: Band | None, run_time: float = 0.6) -> None:
    """A grid: its frame, one entry derived (when there is room), then the rest at once."""
    shell, rest = derive.split(scene.book, grid, [d.cell] if d is not None and band is not None else [])
    scene.play(Appear(shell), run_time=run_time)
    if d is not None and band is not None:
        derive.derive(scene, d, band)
    scene.play(Appear(rest), run_time=run_time)


def slid(scene: Any, grid: Any, moves: list, op: str, *with_shell: Any) -> None:
    """A grid whose entries are copies: its frame (with `with_shell`), then the entries slide in."""
    every = [(i, j) for i in range(grid.n_rows) for j in range(grid.n_cols)]
    shell, rest = derive.split(scene.book, grid, every)
    scene.play(Appear(shell), *[Appear(m) for m in with_shell])
    derive.slide(scene, moves, op=op)
    if len(rest):
        scene.play(Appear(rest), run_time=0.4)


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
    slid(scene, cat, moves, "concat", row[-1][1])
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
            self.play(LaggedStart(*[Vanish(d, run_time=1.0) for d in reversed(dots)], lag_ratio=1.0),
                      run_time=float(self.inputs["pause"]))

    def answer(self, name, caption, say, **slots):
        """An answer step: caption and narration (each taking the slots it names), the heading."""
        self.step(caption, **named(caption, slots))
        self.narrate(say, **named(say, slots))
        self.clear_stage()
        self.play(Appear(heading(self.book, self.header(name))), run_time=0.4)

    def derived(self, built, at, run_time=0.6):
        """An answer's blocks in turn, the one at `at` a grid with one entry made in front of the viewer."""
        parts, made, band = built
        band = room(self, VGroup(*parts, band), band, [made])
        self.show(parts[:at], run_time=run_time)
        make(self, parts[at], made, band, run_time)
        self.show(parts[at + 1:], run_time=run_time)

    def show(self, parts, together=None, run_time=None):
        """The answer's parts in turn: one at a time, or `together` of them in each play."""
        n = 0
        for count in together or [1] * len(parts):
            self.play(*[Appear(p) for p in parts[n:n + count]], run_time=run_time)
            n += count
