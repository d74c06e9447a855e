"""A question and its answer on the board: the question as a card with a countdown (one dot a
second), the answer's heading at the top left and its area under it, blocks in a row with their
tops on one line (a line below, a link level with a grid's first row), a block with its tag; the
question step and an answer step, and the reveals an answer is made with (a grid's column slid
from another's row, heads slid into their concatenation, a table's sums made from its rows,
shapes flowing from row to row, one grid's entry made among blocks shown in turn).

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Any, Sequence

from manim import DOWN, LEFT, RIGHT, UP, Animation, Dot, LaggedStart, Mobject, RoundedRectangle, VGroup

from scenes.kit.motion import derive
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.motion.derive import Band
from scenes.kit.motion.expressions import Derivation
from scenes.kit.motion.flow import flow
from scenes.kit.motion.made import grid_made
from scenes.kit.motion.sweep import sweep
from scenes.kit.text.layout import content_width, fit
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area
from scenes.kit.compose.sheets import in_turn, tell

ANSWER_TOP = style.CONTENT_TOP - 0.6      # answers start below their heading
DOT_RADIUS, DOT_GAP = 0.08, 0.14


def question_card(book: NumberBook, header: Shown, lines: Sequence[Mobject], pause: int) -> tuple:
    """The question as a card: header, question lines and (pause > 0) the countdown, one dot a
    second. Returns (card, dots); dots is None without a pause."""
    head = book.text(header, color=style.ACCENT, size=style.TITLE_SIZE)
    body = VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.28)
    parts, dots = [head, body], None
    if pause:
        hold = note(book, "先想一想：停 {} 秒", book.index("pause", pause))
        dots = VGroup(*[Dot(radius=DOT_RADIUS, color=style.TRACK) for _ in range(pause)])
        dots.arrange(RIGHT, buff=DOT_GAP)
        parts.append(VGroup(hold, dots).arrange(DOWN, aligned_edge=LEFT, buff=0.22))
    content = VGroup(*parts).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
    fit(content, width=content_width() - 1.2, height=style.CONTENT_TOP - style.CONTENT_BOTTOM - 1.0)
    frame = RoundedRectangle(corner_radius=0.2, width=content.width + 0.9, height=content.height + 0.8,
                             stroke_color=style.ACCENT, stroke_width=3)
    frame.set_fill(style.NAN_FILL, opacity=0.25).move_to(content)
    card = VGroup(frame, content).move_to([0, (style.CONTENT_TOP + style.CONTENT_BOTTOM) / 2, 0])
    return card, dots


def countdown(dots: VGroup) -> Animation:
    """The countdown's dots going out one a second, the last first."""
    return LaggedStart(*[Vanish(d, run_time=1.0) for d in reversed(dots)], lag_ratio=1.0)


def heading(book: NumberBook, header: Shown) -> Mobject:
    """'习题 3.1 · 答案' at the top left of the content area."""
    mob = book.text("{} · 答案", header, color=style.ACCENT, size=style.BODY_SIZE)
    return mob.move_to([0, style.CONTENT_TOP - 0.2, 0]).align_to([-content_width() / 2, 0, 0], LEFT)


def place(group: Mobject, most: float = 1.0) -> Mobject:
    """Fit an answer into the content area under the heading, centred there."""
    area = Area(content_width(), top=ANSWER_TOP, height=ANSWER_TOP - style.CONTENT_BOTTOM - 0.05, most=most)
    return area.place(group)


def tagged(block: Mobject, tag: Mobject) -> VGroup:
    """A block (a grid) with its tag (its shape) under it."""
    return VGroup(block, tag.next_to(block, DOWN, buff=0.15))


def in_a_row(*groups: Mobject, buff: float = 0.5, below: Mobject | None = None, link: Mobject | None = None,
             to: Any = None) -> list:
    """Groups left to right, their tops on one line (and a line below), fitted under the heading;
    the link (an arrow) level with the boxes of `to` (a grid)."""
    row = VGroup(*groups).arrange(RIGHT, buff=buff, aligned_edge=UP)
    if below is not None:
        below.next_to(row, DOWN, buff=0.5)
    place(VGroup(row, below) if below is not None else row, most=1.3)
    if link is not None:
        link.match_y(to.box_group)
    return list(groups) + ([below] if below is not None else [])


# ---------------------------------------------------------------- the steps
def ask(scene: Any, header: Shown, caption: str, lines: Sequence[Mobject], say: str, pause: int,
        **slots: Shown) -> None:
    """The question step: caption, what the lecturer says (then the pause), the card and the
    countdown, one dot a second. Each template takes the slots it names, {exercise} (the header) too."""
    tell(scene, caption, say, exercise=header, **slots)
    if pause:
        scene.narrate("先停 {} 秒，自己想一想。", scene.book.index("pause", pause))
    scene.clear_stage()
    card, dots = question_card(scene.book, header, lines, pause)
    scene.play(Appear(card))
    if dots is not None:
        scene.play(countdown(dots), run_time=float(pause))


def answer(scene: Any, header: Shown, caption: str, say: str, **slots: Shown) -> None:
    """An answer step: caption and narration (each taking the slots it names), the heading (it comes
    with the answer's first play, the question's board giving way to the answer's)."""
    tell(scene, caption, say, **slots)
    scene.clear_stage()
    scene.with_next(Appear(heading(scene.book, header), run_time=0.4))


# ---------------------------------------------------------------- the reveals
def room(scene: Any, parts: Sequence[Mobject], made: Sequence[Derivation], band: Band) -> Band | None:
    """Where an answer's derivations are drawn: its band while the placed answer keeps its numbers
    readable, else a strip above the caption line, else nowhere (each skipped, its record says so)."""
    return derive.room(scene, VGroup(*parts, band), made, band, readable=True)


def derived(scene: Any, built: tuple, at: int, run_time: float = 0.6) -> None:
    """An answer's blocks in turn, the one at `at` a grid with one entry made in front of the viewer."""
    parts, made, band = built
    band = room(scene, parts, [made], band)
    in_turn(scene, parts[:at], run_time=run_time)
    grid_made(scene, parts[at], made, band, run_time)
    in_turn(scene, parts[at + 1:], run_time=run_time)


def transposed(scene: Any, parts: list) -> None:
    """[source tagged, link, target tagged, lines]: the source grid, then the target's first column
    slides over from the source's first row (the rest of the target swept in), then the lines."""
    left, link, right, lines = parts
    lin, mine = left[0], right[0]
    scene.play(Appear(left))
    shell, rest = derive.split(scene.book, mine, [(j, 0) for j in range(mine.n_rows)])
    scene.play(Appear(link), Appear(shell), Appear(right[1]))
    derive.slide(scene, [(mine.entries[j][0], lin.entries[0][j]) for j in range(mine.n_rows)], op="transpose")
    sweep(scene, rest)
    scene.play(Appear(lines))


def concatenated(scene: Any, parts: list, width: int) -> None:
    """[call, row of the heads tagged, link and their concatenation tagged, sums]: each head's entries
    (`width` columns a head) slide into the concatenation."""
    call, row, sums = parts
    heads, cat = [row[h][0] for h in range(len(row) - 2)], row[-1][0]
    scene.play(Appear(call))
    scene.play(*[Appear(row[h]) for h in range(len(row) - 2)], Appear(row[-2]))
    moves = [(cat.entries[i][j], heads[j // width].entries[i][j % width])
             for i in range(cat.n_rows) for j in range(cat.n_cols)]
    derive.grid_slid(scene, cat, moves, "concat", row[-1][1])
    scene.play(Appear(sums))


def counts(scene: Any, rows: Sequence[Any], made: Derivation, band: Band | None, run_time: float) -> None:
    """Table rows in turn, the last one's count made from those above it (a sum)."""
    for row in rows[:-1]:
        scene.play(Appear(row), run_time=run_time)
    entry = made.grid.entries[0][0]
    scene.play(Appear(VGroup(*[m for m in rows[-1] if m is not entry])), run_time=run_time)
    if band is not None:
        derive.derive(scene, made, band)
    else:
        scene.play(Appear(entry), run_time=run_time)


def shapes_flow(scene: Any, sizes: Any, rows: Sequence[Any], table: Any, at: int = 2) -> None:
    """The sizes, then each row, its shape (column `at`) flowing in from the sizes and the shapes above."""
    scene.play(Appear(sizes))
    for i, row in enumerate(rows):
        shape = table.cells[i][at]
        flow(scene, shape, [*[table.cells[k][at] for k in range(i - 1, -1, -1)], sizes], show=0.4,
             also=[Appear(VGroup(*[m for m in row if m is not shape]))], quick=True)
