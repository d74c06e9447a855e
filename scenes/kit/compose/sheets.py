"""Answer sheets: the blocks a worked answer or a check is made of, and the steps that show them.

- a step said at once: its caption and narration, each taking the slots it names (`tell`);
- parts shown in turn, one or a few at a time (`in_turn`);
- grids with their marks (−∞, hidden zeros, NaN), a one-column grid of row sums, rows named
  q0, q1, …, a link (an arrow in code) between two blocks;
- a row's softmax weight made in front of the viewer from the cells its row still sees;
- a change that a check needs to be exactly zero: 0 in green, anything else in red; two runs'
  outputs side by side, said to differ where they read the same;
- blocks one under another in the content area; a board beside its panel (a band in the panel
  where its numbers stay legible with it), its changes shown after the worked one.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import DOWN, LEFT, ORIGIN, RIGHT, UP, FadeIn, Mobject, VGroup

from scenes.kit.motion import derive, expressions as ex
from scenes.kit.page import marked
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.page.blocks import share
from scenes.kit.draw.columns import Table
from scenes.kit.motion.derive import Band
from scenes.kit.draw.exact import zero_or
from scenes.kit.motion.expressions import Derivation
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import content_width
from scenes.kit.draw.notes import code, note
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area, named
from scenes.kit.draw.pictures import columns

NAN_WORDS = "这一行的键全被遮住，softmax 得到"      # a row with no visible key: its weight, said as NaN


# ---------------------------------------------------------------- steps
def tell(scene: Any, caption: str, narration: str, **slots: Shown) -> None:
    """Start a step: its caption and its narration, each taking the slots it names."""
    scene.step(caption, **named(caption, slots))
    scene.narrate(narration, **named(narration, slots))


def in_turn(scene: Any, parts: Sequence[Mobject], together: Sequence[int] | None = None,
            run_time: float | None = None, pause: float = 0.0) -> None:
    """Parts appearing in turn: one at a time, or `together` of them in each play (then `pause`);
    the board before gives way to all of them (what it shares with any is carried there)."""
    n = 0
    if hasattr(scene, "toward"):
        for p in parts:
            scene.toward(p)
    for count in together or [1] * len(parts):
        scene.play(*[Appear(p) for p in parts[n:n + count]], run_time=run_time)
        if pause:
            scene.wait(pause)
        n += count


# ---------------------------------------------------------------- grids
def grid(book: NumberBook, name: Any, values: Any, decimals: int, header: str | Mobject | None = None,
         header_color: str | None = None, **options: Any) -> MatrixGrid:
    """marked.grid with its columns as wide as their numbers, under a header (words, or a line of
    code drawn above it the same way; muted unless told)."""
    return marked.grid(book, name, values, decimals, header=header, header_color=header_color or style.MUTED,
                       fit_col_labels=False, **options)


def column(book: NumberBook, name: str, values: Any, decimals: int, header: str,
           colors: Sequence[str] = ()) -> MatrixGrid:
    """A one-column grid (row sums, visible keys) under a header, recorded as name[i]."""
    g = marked.column(book, name, values, decimals=decimals, header=header, header_color=style.ACCENT,
                      fit_col_labels=False)
    for row, color in zip(g.entries, colors):
        row[0].set_color(color)
    return g


def row_sums(book: NumberBook, name: str, sums: Any, colors: Sequence[str] = ()) -> MatrixGrid:
    return column(book, name, sums, 4, "行和", colors)


def queries(book: NumberBook, n: int) -> dict:
    """A grid's row names 'q0', 'q1', ... as options, each index recorded as row[i]."""
    return {"row_labels": [book.compose("q{}", book.index(f"row[{i}]", i)) for i in range(n)],
            "row_color": style.QUERY}


def code_arrow(book: NumberBook, template: str = "→", *slots: Shown) -> Mobject:
    """The link between a block and the one made from it, in code ('.T →', 'softmax(dim=1) →')."""
    return code(book, template, *slots, color=style.MUTED, size=style.BODY_SIZE)


def softmax_cell(book: NumberBook, weights: Any, of: Any, hidden: Any, nan_first: bool = False) -> Derivation:
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


# ---------------------------------------------------------------- changes that must be exactly zero
def exact_decimals(value: float) -> int:
    """Fewest decimals (up to 6) that show an input such as p or delta exactly, else 6."""
    return style.decimals_for([value], (0, 1, 2, 3, 4, 5, 6))


def slot(book: NumberBook, label: str, value: float) -> Shown:
    """A change as a slot of a sentence: an exact 0 as 0."""
    return book.fmt(label, value, zero_or(value))


def change(book: NumberBook, label: str, value: float, size: float = style.NUMBER_SIZE) -> Mobject:
    """A change that must be exactly 0 for the check to pass: 0 green, anything else red."""
    return book.num(label, value, zero_or(value), color=style.VALUE if value == 0 else style.MASK, size=size)


def table(rows: list) -> Table:
    """Words and the numbers they name: left-aligned words, right-aligned numbers."""
    return Table(rows, aligns=(LEFT, RIGHT), gap=0.45, row_h=0.62)


# ---------------------------------------------------------------- placing
def one_under_another(*blocks: Mobject, buff: float, most: float = 1.0, left: bool = True) -> VGroup:
    """Blocks one under another (their left edges aligned, else centred), fitted into the content area."""
    group = VGroup(*blocks).arrange(DOWN, aligned_edge=LEFT if left else ORIGIN, buff=buff)
    return Area(content_width(), most=most).place(group)


def panels(left: Mobject, right: Mobject, split: float = 0.56, top: bool = True) -> VGroup:
    """A board on the left, its panel on the right (tops aligned, else centres), in the content area."""
    return share(left, right, Area(content_width()), split, (1.8, 1.1), edge=UP if top else ORIGIN)


def board_and_panel(scene: Any, board: Mobject, top: Mobject, bottom: Mobject, made: Sequence[Derivation],
                    buff: float = 0.35) -> Band | None:
    """The board beside a panel: `top`, a band for the derivations `made`, `bottom`, one under another,
    the band kept where the panel's numbers stay legible with it (else laid out without it). Returns
    where the derivations are drawn: that band, a strip by the caption line, or None (derive.room)."""
    band = Band(made)
    right = VGroup(top, band, bottom)
    band = derive.on_page(scene.book, right, band, Area(content_width() * 0.44 - 0.3, most=1.1),
                          lambda: right.arrange(DOWN, buff=buff))
    panels(board, right)
    return derive.room(scene, VGroup(board, right), made, band)


def board_then_rights(scene: Any, board: Any, panel: Mobject) -> None:
    """A board (pictures.Board) beside its panel: the board and the panel, then the board's right-hand
    strips fading in (what changed)."""
    panels(board, panel)
    scene.play(*[Appear(m) for m in board.submobjects if m not in board.rights], Appear(panel))
    scene.play(*[FadeIn(m) for m in board.rights], run_time=0.8)


def worked_board(scene: Any, board: Any, zoom: Mobject, words: Mobject, largest: Mobject,
                 made: Derivation) -> None:
    """A board of changes (pictures.Board) beside the zoom on one of them and a summary (its words,
    then `largest`): the worked change made in front of the viewer where there is room for it, the
    board's other changes at once, then the largest of them slides into the summary."""
    summary = VGroup(words, largest).arrange(RIGHT, buff=0.2)
    band = board_and_panel(scene, board, zoom, summary, [made])
    target = made.grid.entry
    board.remove(*board.numbers)           # the changes after the worked one, at once
    scene.play(Appear(board), Appear(zoom), Appear(words))
    if band is not None:
        derive.derive(scene, made, band)
    scene.play(*[Appear(n) for n in board.numbers if n is not target or band is None], run_time=0.6)
    derive.slide(scene, [(largest, target)], op="max")


def two_runs(book: NumberBook, title: Mobject, heads: tuple[str, str], names: tuple[str, str], a: Any, b: Any,
             gap: float, gap_label: str) -> VGroup:
    """One position's features from two runs side by side (pictures.columns), with a note where they
    read the same at display precision yet differ (by `gap`, recorded as gap_label)."""
    zoom = columns(book, title, heads, names, a, b)
    if gap > 0 and all(style.format_number(x) == style.format_number(y) for x, y in zip(a, b)):
        zoom.add(note(book, "两列在四位小数内相同，实际最大差 {}", slot(book, gap_label, gap),
                      color=style.MASK).next_to(zoom, DOWN, buff=0.2))
    return zoom
