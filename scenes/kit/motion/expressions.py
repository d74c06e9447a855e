"""Expressions for derivations (scenes/kit/motion/derive.py): the numbers a result is made from, as
Terms (label, value, decimals, where on screen), and the operations that join them into one line
("q₀·k₀ + q₁·k₁ = s", "exp(s₁) / (exp(s₀) + exp(s₁)) = a"; every number a book record), left
shorter ("a + … + z") where the whole would be wider than the room. Measured without recording
anything (the book records a number only when it is drawn: `draw`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from manim import RIGHT, Mobject, VGroup

from scenes.kit.text import lang, style
from scenes.kit.text.glyphs import NumberText
from scenes.kit.text.numbers import NumberBook, made_text

SIZE = style.NUMBER_SIZE
BUFF, TIGHT, CLOSE = 0.14, 0.03, 0.06   # between an expression's pieces; inside brackets; around "·"
LEAST_ROOM = 12.0    # an expression may be this wide (at scale 1: it never shrinks a page below 1.08) before
                     # terms are left out, however narrow the page
FEWEST = 3           # a sum of this many terms is always shown whole (leaving one out saves little)


@dataclass(eq=False)
class Term:
    """A number of an expression: its label, value and decimals; `at`: where it is on screen (a grid
    entry, or the text it is in), `box`: the cell lit while it moves; `source`: a dependency of the
    result (False: a constant, such as √dₖ)."""
    label: str
    value: float
    decimals: int
    at: Mobject | None = None
    box: Mobject | None = None
    source: bool = True

    def text(self) -> str:
        return style.format_number(self.value, self.decimals)


def cell(book: NumberBook, grid: Any, i: int, j: int, source: bool = True) -> Term:
    """The number in cell (i, j) of a MatrixGrid, as that grid draws it."""
    entry = grid.entries[i][j]
    return Term(grid.labels[i][j], float(grid.values[i, j]), decimals_of(book, entry), entry,
                grid.boxes[i][j], source)


def from_cells(d: "Derivation", *grids: Any) -> "Derivation":
    """Each term whose number one of these grids shows comes from its cell there (its copy flies
    from that cell, lit while it moves): the grid the step keeps on the board."""
    cells = {g.labels[i][j]: (g.entries[i][j], g.boxes[i][j])
             for g in grids for i in range(g.n_rows) for j in range(g.n_cols)}
    for t in d.terms():
        if t.label in cells:
            t.at, t.box = cells[t.label]
    return d


def decimals_of(book: NumberBook, mob: Mobject) -> int:
    meta = book.meta[id(mob)]
    rec = record(book, meta["label"], meta["text"])
    return 4 if rec is None or rec["decimals"] is None else int(rec["decimals"])


def record(book: NumberBook, label: str, text: str) -> dict[str, Any] | None:
    return next((r for r in book.records if r["label"] == label and r["text"] == text), None)


@dataclass(eq=False)
class Derivation:
    """How cell `cell` of `grid` is made: `pieces`, Terms and digit-free symbols left to right,
    the result (the cell's own number) last; `op` as compute/provenance.py names it;
    `shorter`: some terms are left out ("…")."""
    grid: Any
    cell: tuple[int, int]
    op: str
    pieces: list
    shorter: bool = False

    @property
    def result(self) -> Term:
        return self.pieces[-1]

    def terms(self) -> list[Term]:
        return [p for p in self.pieces[:-1] if isinstance(p, Term)]

    def shows(self) -> list[str]:
        """The labels of the sources it shows (each once, in order)."""
        return list(dict.fromkeys(t.label for t in self.terms() if t.source))

    def text(self) -> str:
        said = [p.text() if isinstance(p, Term) else lang.tr(p) for p in self.pieces]
        gaps = ["" if a.endswith("(") or b == ")" else " " for a, b in zip(said, said[1:])]
        return "".join(a + gap for a, gap in zip(said, gaps)) + said[-1]

    def width(self) -> float:
        return width(self.pieces)


# ---------------------------------------------------------------- measuring, without recording
_ADVANCE: list[float] = []


def advance() -> float:
    """One character of the number font at SIZE (monospaced)."""
    if not _ADVANCE:
        _ADVANCE.append(NumberText("0" * 10, size=SIZE).width / 10)
    return _ADVANCE[0]


def font(template: str) -> str:
    return style.FONT if lang.has_cjk(template) else style.NUMBER_FONT


def width(pieces: Sequence) -> float:
    """The width of an expression at scale 1: numbers by their characters, symbols as set."""
    each = [len(p.text()) * advance() if isinstance(p, Term)
            else made_text(lang.tr(p), lang.font(font(p)), SIZE, style.TEXT).width for p in pieces]
    return sum(each) + sum(_buff(a, b) for a, b in zip(pieces, pieces[1:]))


def _buff(a: Any, b: Any) -> float:
    if (isinstance(a, str) and a.endswith("(")) or b == ")":
        return TIGHT
    return CLOSE if "·" in (a, b) else BUFF


def joined(groups: list[list], room: float, rest: float) -> tuple[list, bool]:
    """Groups of pieces joined by "+"; when there are more than FEWEST and that is wider than
    `room` (with `rest`, the width of the rest of the expression), the first few, "…" and the
    last. (pieces, shortened?)"""
    def pieces(keep: list[int | None]) -> list:
        out: list = []
        for n, g in enumerate(keep):
            out += (["+"] if n else []) + (["…"] if g is None else groups[g])
        return out
    whole = pieces(list(range(len(groups))))
    if len(groups) <= FEWEST or width(whole) + rest <= room:
        return whole, False
    for first in range(len(groups) - 2, 0, -1):
        cut = pieces([*range(first), None, len(groups) - 1])
        if width(cut) + rest <= room:
            return cut, True
    return cut, True


def room_for(mob: Mobject) -> float:
    """How wide an expression under or beside `mob` may grow before terms are left out."""
    return max(mob.width, LEAST_ROOM)


# ---------------------------------------------------------------- the operations
def dot(grid: Any, at: tuple[int, int], result: Term, pairs: Sequence[tuple[Term, Term]], room: float,
        op: str = "dot") -> Derivation:
    """result = a·b + c·d + …"""
    tail = ["=", result]
    body, short = joined([[a, "·", b] for a, b in pairs], room, width(tail) + BUFF)
    return Derivation(grid, at, op, body + tail, short)


def sum_of(grid: Any, at: tuple[int, int], result: Term, terms: Sequence[Term], room: float,
           op: str = "sum") -> Derivation:
    """result = a + b + … (a row's or a column's sum; long sums left shorter)"""
    tail = ["=", result]
    body, short = joined([[t] for t in terms], room, width(tail) + BUFF)
    return Derivation(grid, at, op, body + tail, short)


def weighted(grid: Any, at: tuple[int, int], result: Term, pairs: Sequence[tuple[Term, Term]],
             room: float) -> Derivation:
    """result = w·v + w·v + … (an output: weights times values)"""
    return dot(grid, at, result, pairs, room, op="weighted sum")


def divide(grid: Any, at: tuple[int, int], result: Term, a: Term, b: Term) -> Derivation:
    """result = a / b"""
    return Derivation(grid, at, "divide", [a, "/", b, "=", result])


def softmax(grid: Any, at: tuple[int, int], result: Term, own: Term, visible: Sequence[Term],
            room: float) -> Derivation:
    """result = exp(own) / (exp(a) + exp(b) + …), over the visible entries of the row"""
    head, tail = ["exp(", own, ")", "/", "("], [")", "=", result]
    body, short = joined([["exp(", t, ")"] for t in visible], room, width(head + tail) + 2 * BUFF)
    return Derivation(grid, at, "softmax", head + body + tail, short)


def said_as(grid: Any, at: tuple[int, int], result: Term, words: str, op: str) -> Derivation:
    """result, with a digit-free sentence saying why (a NaN row: no visible key)."""
    return Derivation(grid, at, op, [words, result])


def draw(book: NumberBook, d: Derivation) -> VGroup:
    """The expression's mobjects, every number the book's, at scale 1."""
    mobs: list[Any] = [book.num(p.label, p.value, p.decimals, size=SIZE,
                     color=style.TRACK if p is d.result else style.TEXT) if isinstance(p, Term)
            else book.text(p, size=SIZE, font=font(p), color=style.MUTED) for p in d.pieces]
    for n in range(1, len(mobs)):
        mobs[n].next_to(mobs[n - 1], RIGHT, buff=_buff(d.pieces[n - 1], d.pieces[n]))
    return VGroup(*mobs)
