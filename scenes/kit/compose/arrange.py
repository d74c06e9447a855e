"""Blocks and how they relate, declared; the page engine (scenes/kit/page/page.py) tries the ways
they may be laid out. A clip says what goes on a page and how its blocks relate:

    cache = beside_or_below(fresh, cached, gap=1.0)     # side by side, else one above the other
    board = below(cache, legend, gap=0.5)               # its ways: every way of each part
    Page(caption, board.group, reveal, say, lay=board.lay(book, AREA))

and the engine keeps the roomiest way that reads (page.choose: an earlier way, the clip's order,
where it is nearly as roomy). A relation's ways are every combination of its parts' ways (the
first part's choice varies slowest), each followed by the relation's own arrangement. Parts that
are None or draw nothing take no room.
"""
from __future__ import annotations

from itertools import product
from typing import Callable, Sequence, Union

from manim import DOWN, ORIGIN, RIGHT, UP, VGroup, VMobject

from scenes.kit.page import blocks
from scenes.kit.motion.derive import Band
from scenes.kit.motion.expressions import Derivation
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area, Way, arrange, choose, keeps_contract, needed


def still() -> None:
    """A block on its own: nothing to arrange."""


class Part:
    """A block, or blocks in a relation: the group drawn and the ways it may be laid out."""

    def __init__(self, group: VMobject, ways: Sequence[Way] = ()) -> None:
        self.group = group
        self.ways = list(ways) or [still]

    def lay(self, book: NumberBook, area: Area) -> Way:
        """For Page(lay=...): the roomiest way that keeps the numbers readable (or the only way)."""
        if len(self.ways) == 1:
            return self.ways[0]
        return lambda: choose(self.group, self.ways, area, needed(book, self.group))

    def reads(self, book: NumberBook, area: Area) -> bool:
        """Laid out as lay() does: does every number read in the area?"""
        return bool(arrange(book, self.group, self.ways, area))

    def settle(self, book: NumberBook, area: Area) -> Way:
        """The first way where it keeps the legibility contract, else as lay() does; the way
        taken is returned (to lay the part out again once something is added)."""
        self.ways[0]()
        if keeps_contract(book, self.group, area):
            return self.ways[0]
        taken: list[Way] = []

        def tried(way: Way) -> Way:
            def laid() -> None:
                taken.append(way)
                way()
            return laid
        choose(self.group, [tried(w) for w in self.ways], area, needed(book, self.group))
        return taken[-1]

    def place(self, book: NumberBook, area: Area) -> None:
        """Laid out as lay() does, scaled into the area and centred there."""
        self.lay(book, area)()
        area.place(self.group)


Block = Union[Part, VMobject, None]


def part(block: Part | VMobject) -> Part:
    return block if isinstance(block, Part) else Part(block)


def relation(parts: Sequence[Block], place: Callable[[VGroup], object]) -> Part:
    """The drawn parts in one group: for every combination of their ways, those ways, then `place`."""
    shown = [p for p in (part(b) for b in parts if b is not None) if p.group.family_members_with_points()]
    group = VGroup(*[p.group for p in shown])

    def way(choice: tuple[Way, ...]) -> Way:
        def laid() -> None:
            for w in choice:
                w()
            place(group)
        return laid
    return Part(group, [way(choice) for choice in product(*[p.ways for p in shown])])


def below(*parts: Block, gap: float = 0.4, edge=ORIGIN) -> Part:
    """One under another (centred, or `edge`s aligned)."""
    return relation(parts, lambda g: g.arrange(DOWN, buff=gap, aligned_edge=edge))


def beside(*parts: Block, gap: float = 0.8, edge=ORIGIN) -> Part:
    """Left to right (centred, or `edge`s aligned)."""
    return relation(parts, lambda g: g.arrange(RIGHT, buff=gap, aligned_edge=edge))


def either(*choices: Part) -> Part:
    """The same blocks related otherwise: each choice's ways in turn (the group: the first's)."""
    return Part(choices[0].group, [w for c in choices for w in c.ways])


def beside_or_below(first: Block, second: Block, gap: float = 0.8, edge=UP) -> Part:
    """Side by side (`edge`s aligned), else the first above the second (0.6 of the gap)."""
    return either(beside(first, second, gap=gap, edge=edge), below(first, second, gap=gap * 0.6))


def head_beside(head: Block, *rest: Block, gap: float = 0.8, column: float = 0.45) -> Part:
    """A column (the head above the rest), else the head beside the rest's column, tops aligned."""
    return either(below(head, *rest, gap=column), beside(head, below(*rest, gap=column), gap=gap, edge=UP))


def by_column(first: Block, head: Block, *rest: Block, gap: float = 0.8, column: float = 0.45,
              rows: float = 0.4) -> Part:
    """`first` beside a column (head above the rest); else beside the head, the rest below them
    both; else above the column."""
    col = below(head, *rest, gap=column)
    return either(beside(first, col, gap=gap),
                  below(beside(first, head, gap=gap, edge=UP), below(*rest, gap=column), gap=rows),
                  below(first, col, gap=rows))


def kept(book: NumberBook, area: Area, extra: VMobject, way: Way, *parts: Part) -> VMobject | None:
    """`extra` (a band) added at the end of each part (the first: the page, the others: groups
    that lay it out), kept where the page laid by `way` still keeps the legibility contract;
    else taken out again and the page laid without it. Returns `extra` kept, or None."""
    for p in parts:
        p.group.add(extra)
    way()
    if keeps_contract(book, parts[0].group, area):
        return extra
    for p in parts:
        p.group.remove(extra)
    way()
    return None


def whole_or_halves(book: NumberBook, area: Area, whole: Part, together: Part, halves: Sequence[Part],
                    made: Sequence[Sequence[Derivation]]) -> list[tuple[VMobject, Band | None, list]]:
    """A step's boards: `whole` on one where it keeps the legibility contract (laid as `whole`,
    else as `together`: the same blocks related otherwise), with the band of every derivation
    (`made`: each half's) kept where it still does, at the end of the last half; else each half on
    a board of its own, with its own band. Returns (board, band or None, its derivations) each."""
    way = either(whole, together).settle(book, area)
    if keeps_contract(book, whole.group, area):
        every = [d for half in made for d in half]
        return [(whole.group, kept(book, area, Band(every), way, whole, halves[-1]), every)]
    return [(h.group, kept(book, area, Band(list(m)), h.ways[0], h), list(m)) for h, m in zip(halves, made)]


class Linked(Part):
    """`second` made from `first` (blocks.linked): beside it with the link (an arrow) between,
    or below it, then with its own row names (`names`, when given)."""

    def __init__(self, first: VMobject, link: VMobject, second: VMobject,
                 names: blocks.RowNames | None = None, gap: float = 1.2) -> None:
        group, ways = blocks.linked(first, link, second, names, gap)
        super().__init__(group, ways)
        self.first, self.second, self.names = first, second, names

    def apart(self) -> tuple[Part, Part]:
        """The two on pages of their own, the second with its row names (given to it as the
        first is laid out)."""
        def alone() -> None:
            self.ways[0]()
            if self.names is not None:
                self.names.attach(self.second)
        return Part(self.first, [alone]), Part(self.second)


def linked(first: VMobject, link: VMobject, second: VMobject, names: blocks.RowNames | None = None,
           gap: float = 1.2) -> Linked:
    return Linked(first, link, second, names, gap)
