"""The ways of things that move at once (kit/draw/paths.py), judged on real Manim mobjects: each
Transform played with its planned path function and rate, its bounding box measured at 61 moments
(not the planner's own model of a box along a way). A column of numbers flying into a row and two
numbers trading places in a column touch in straight lines (planted: what the plan must undo);
on their planned ways no two touch, none leaves the stage, and the same moves get the same plan."""
import numpy as np
from manim import Transform, smooth

from scenes.kit.draw import paths
from scenes.kit.text import style
from scenes.kit.text.layout import box
from scenes.kit.text.numbers import NumberBook

ALPHAS = np.linspace(0, 1, 61)


def numbers(book, places):
    out = []
    for k, (x, y) in enumerate(places):
        out.append(book.num(f"w[{k}]", 0.1234 * (k + 1)).move_to([x, y, 0]))
    return out


def played(starts, ends, ways):
    """Each mover's measured box at ALPHAS of one play (every Transform at one alpha)."""
    anims = [Transform(a.copy(), b, path_func=paths.path_func(w, box(a), box(b)))
             for a, b, w in zip(starts, ends, ways)]
    for anim in anims:
        anim.begin()
    out = np.zeros((len(anims), len(ALPHAS), 4))
    for t, alpha in enumerate(ALPHAS):
        for i, anim in enumerate(anims):
            anim.interpolate(alpha)
            out[i, t] = box(anim.mobject)
    return out


def touching_pairs(boxes):
    """(i, j) of movers whose measured boxes overlap (by more than the contract's 0.01) at some moment."""
    eps = 0.01
    n = len(boxes)
    return [(i, j) for i in range(n) for j in range(i + 1, n)
            if any(a[0] + eps < b[2] and b[0] + eps < a[2] and a[1] + eps < b[3] and b[1] + eps < a[3]
                   for a, b in zip(boxes[i], boxes[j]))]


def case(starts, ends):
    moves = [(box(a), box(b)) for a, b in zip(starts, ends)]
    return moves, played(starts, ends, [paths.STRAIGHT] * len(moves))


def test_a_column_flying_into_a_row_touches_in_straight_lines_and_not_on_its_ways():
    book = NumberBook()
    starts = numbers(book, [(-4.0, 1.0 - 0.5 * k) for k in range(5)])
    ends = numbers(book, [(-1.0 + 1.1 * k, 1.5) for k in range(5)])
    moves, straight = case(starts, ends)
    assert touching_pairs(straight), "planted: the straight lines must close up"
    ways = paths.plan(moves, [("column",)] * 5, paths.stage())
    assert touching_pairs(played(starts, ends, ways)) == [], ways
    assert ways == paths.plan(moves, [("column",)] * 5, paths.stage())      # the same plan every build


def test_two_numbers_trading_places_in_a_column_step_aside():
    book = NumberBook()
    starts = numbers(book, [(0.0, 1.0), (0.0, -1.0)])
    ends = numbers(book, [(0.0, -1.0), (0.0, 1.0)])
    moves, straight = case(starts, ends)
    assert touching_pairs(straight) == [(0, 1)]
    ways = paths.plan(moves, None, paths.stage())
    assert touching_pairs(played(starts, ends, ways)) == [], ways


def test_no_way_leaves_the_stage():
    """Numbers at the stage's left edge trading places: the arc that would swing out is not taken."""
    book = NumberBook()
    x0, y0, x1, y1 = paths.stage()
    left = x0 + 0.7                 # a number half a unit wide, inside by a little
    starts = numbers(book, [(left, 0.6), (left, -0.6), (left + 1.2, 0.6)])
    ends = numbers(book, [(left, -0.6), (left, 0.6), (left + 1.2, -0.6)])
    moves, _ = case(starts, ends)
    measured = played(starts, ends, paths.plan(moves, None, paths.stage()))
    assert touching_pairs(measured) == []
    assert measured[..., 0].min() >= x0 - 1e-6 and measured[..., 2].max() <= x1 + 1e-6
    assert measured[..., 1].min() >= y0 - 1e-6 and measured[..., 3].max() <= y1 + 1e-6


def test_movers_that_meet_no_one_go_straight():
    book = NumberBook()
    starts = numbers(book, [(-3.0, 0.0), (-3.0, -1.0)])
    ends = numbers(book, [(2.0, 0.0), (2.0, -1.0)])
    assert paths.plan([(box(a), box(b)) for a, b in zip(starts, ends)]) == [paths.STRAIGHT] * 2
    assert style.CONTENT_TOP > style.CONTENT_BOTTOM


def test_a_crowd_shrinks_on_its_ways_as_planned():
    """A large tensor's elements (plan(small=True)): a row of twelve turning into a 3 x 4 block, each
    mover's measured box is the planner's own model of it (the size at the way's middle 1 - SHRINK
    of the ends'), and on those ways no two touch. Planted: the path function drawing full size while
    the plan counts on the shrink is caught by the same measure."""
    book = NumberBook()
    starts = numbers(book, [(-6.0 + 1.1 * k, 1.5) for k in range(12)])
    ends = numbers(book, [(-1.5 + 1.1 * (k % 4), -0.5 - 0.6 * (k // 4)) for k in range(12)])
    moves, straight = case(starts, ends)
    assert touching_pairs(straight), "planted: the straight lines must close up"
    ways = paths.plan(moves, [("row", k // 4) for k in range(12)], paths.stage(), small=True)
    assert all(w[0].endswith(paths.SMALL) for w in ways)
    measured = played(starts, ends, ways)
    model = np.stack([paths.boxes_along(w, *m, np.array([smooth(a) for a in ALPHAS])) for w, m in zip(ways, moves)])   # the play's rate
    assert np.abs(measured - model).max() < 0.02
    assert touching_pairs(measured) == [], ways
    full = [(w[0].removesuffix(paths.SMALL), w[1]) for w in ways]        # planted: drawn at full size
    assert np.abs(played(starts, ends, full) - model).max() > 0.1
