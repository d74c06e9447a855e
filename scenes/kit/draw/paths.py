"""The ways of things that move at once: no two moving texts touch on the way.

Moved in straight lines at one pace, a column of numbers flying into a row closes up mid-way
(each pair's gap shrinks to about 0.7 of itself), labels flying up cut across copies flying
left, a tensor's elements pass through each other on their way to a new layout. `plan` gives
each group of movers (a grid's numbers, an axis's labels: what moves together) one way:

    shape    straight; across first, then up or down (an L); up or down first, then across;
             rising (or sliding) first while it goes; an arc to one side or the other
    timing   the whole play; its first 60% (it lands early); its last 60% (it leaves late);
             one after another in reading order (a cascade), at the play's pace or the reverse

the straight line at the whole play first: a group keeps it where it meets no other. Ways are
judged from the boxes alone: a box at each point of its way is where it starts moved by the
way's offset, its size going from the start's to the landing's. `path_func(way, start, end)` is
the Manim path function that moves the points so (Transform(..., path_func=...)): the shape is
drawn as the straight interpolation of the points, its centre moved along the way.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Hashable, Sequence

import numpy as np

from scenes.kit.text import style
from scenes.kit.text.layout import content_width

SHAPES = ("straight", "across", "upright", "rise", "slide", "arc", "arc back")
TIMINGS = ("whole", "early", "late", "cascade", "cascade back")
CHOICES = [(s, t) for t in TIMINGS for s in SHAPES]      # the straight line at the whole play first
HALVES = [(s, t) for t in ("first", "second") for s in SHAPES]   # a crowd's members also go in one half
SPAN = 0.6                 # an early or late group's share of the play
CASCADE = 0.35             # a cascade member's
SAMPLES = np.linspace(0.0, 1.0, 41)                      # the moments a plan looks at, in the play's progress
CROWDED = np.linspace(0.0, 1.0, 121)     # a crowd's (`small`): its members, going in a half, move fast
PAD = 0.0                  # two texts closer than this touch (the contract lets boxes touch by 0.01)
ARC = 0.3                  # how far an arc bends aside, a share of its length, at least
SIDESTEP = 1.1             # its mover's breadth across the way, at least
CORNER = 0.55              # an L's first leg ends at this share (the second starts at 1 - it)
DETOUR = 0.01              # what a way other than the straight line at the whole play costs
SEARCH = 60                # the search's steps, a group
CROWD_SEARCH = 4           # a crowd's search, so many times as long (its groups are many and close)
OUTSIDE = 100              # what a moment out of the stage costs (against one of touching)
CHUNK = 64                 # member pairs judged at once
WANDER = 0.1               # a step that tries a way at random (out of a dead end)
SMALL = " small"           # a way's shape ending so: the mover shrinks on its way (a crowd's members)
SHRINK = 0.85              # by this share of its size at the way's middle

Box = Sequence[float]      # x0, y0, x1, y1
Way = tuple[str, tuple[float, float]]      # shape, (start, end) of the move in the play's progress
STRAIGHT: Way = ("straight", (0.0, 1.0))


def ramp(v: np.ndarray | float) -> np.ndarray:
    """0 to 1 with an easy start and end."""
    v = np.clip(v, 0.0, 1.0)
    return v * v * (3 - 2 * v)


def window(timing: str, k: int, m: int) -> tuple[float, float]:
    """When member k of a group of m moves, in the play's progress."""
    if timing == "early":
        return 0.0, SPAN
    if timing == "late":
        return 1 - SPAN, 1.0
    if timing in ("first", "second"):
        return (0.0, 0.5) if timing == "first" else (0.5, 1.0)
    if timing.startswith("cascade") and m > 1:
        rank = m - 1 - k if timing.endswith("back") else k
        start = (1 - CASCADE) * rank / (m - 1)
        return start, start + CASCADE
    return 0.0, 1.0


def progress(alpha: np.ndarray | float, span: tuple[float, float]) -> np.ndarray:
    start, end = span
    return np.clip((np.asarray(alpha, dtype=float) - start) / (end - start), 0.0, 1.0)


def aside(d: np.ndarray, size: np.ndarray) -> np.ndarray:
    """How far an arc bends to its left: ARC of its length, at least SIDESTEP of the mover's own
    breadth across its way (two trading places in a column step clear of each other)."""
    length = float(np.hypot(d[0], d[1]))
    if length < 1e-9:
        return np.zeros(2)
    normal = np.array([-d[1], d[0]]) / length
    breadth = abs(normal[0]) * size[0] + abs(normal[1]) * size[1]
    return normal * max(ARC * length, SIDESTEP * breadth)


def scale(shape: str, v: np.ndarray | float) -> np.ndarray:
    """The mover's size at progress v, a share of the straight interpolation's: 1 at both ends, for
    a shape ending SMALL down to 1 - SHRINK at the middle (else 1 all the way)."""
    v = np.asarray(v, dtype=float)
    return 1 - SHRINK * np.sin(np.pi * v) if shape.endswith(SMALL) else np.ones_like(v)


def offset(shape: str, d: np.ndarray, v: np.ndarray, size: np.ndarray = np.zeros(2)) -> np.ndarray:
    """How far the centre has gone (x, y) at progress v (an array) along a way of this shape
    (`size`: the mover's width and height, for an arc's bend)."""
    shape = shape.removesuffix(SMALL)
    v = np.asarray(v, dtype=float)[..., None]
    first, second = ramp(v / CORNER), ramp((v - (1 - CORNER)) / CORNER)
    if shape.startswith("arc"):             # the straight line bent to one side
        side = aside(d, size) * (-1 if shape.endswith("back") else 1)
        return d[:2] * v + side * np.sin(np.pi * v)
    xy = {"across": (first, second), "upright": (second, first), "rise": (ramp(v), first),
          "slide": (first, ramp(v))}.get(shape, (v, v))
    return np.concatenate([d[0] * xy[0], d[1] * xy[1]], axis=-1)


def boxes_along(way: Way, start: Box, end: Box, alphas: np.ndarray = SAMPLES) -> np.ndarray:
    """The mover's box (x0, y0, x1, y1) at each of `alphas`."""
    shape, span = way
    a, b = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    centre_a, centre_b = (a[:2] + a[2:]) / 2, (b[:2] + b[2:]) / 2
    half_a, half_b = (a[2:] - a[:2]) / 2, (b[2:] - b[:2]) / 2
    v = progress(alphas, span)
    centre = centre_a + offset(shape, centre_b - centre_a, v, 2 * half_a)
    half = (half_a + (half_b - half_a) * v[:, None]) * scale(shape, v)[:, None]
    return np.concatenate([centre - half, centre + half], axis=1)


def touching(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per moment, whether box rows of `a` and `b` (broadcast) touch."""
    return ((a[..., 0] - PAD < b[..., 2]) & (b[..., 0] - PAD < a[..., 2])
            & (a[..., 1] - PAD < b[..., 3]) & (b[..., 1] - PAD < a[..., 3]))


def stage() -> tuple[float, float, float, float]:
    """Where a moving text may go: inside the frame's margins, between the title and a two-line caption."""
    half = content_width() / 2
    return -half, style.CONTENT_BOTTOM, half, style.CONTENT_TOP


def outside(boxes: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Per moment, whether a box leaves `bounds` (x0, y0, x1, y1 in the last axis, broadcast)."""
    return ((boxes[..., 0] < bounds[..., 0]) | (boxes[..., 1] < bounds[..., 1])
            | (boxes[..., 2] > bounds[..., 2]) | (boxes[..., 3] > bounds[..., 3]))


def reading(moves: Sequence[tuple[Box, Box]], members: list[int]) -> list[int]:
    """A group's members top to bottom, left to right, where they start."""
    return sorted(members, key=lambda i: (-round((moves[i][0][1] + moves[i][0][3]) / 2, 2), moves[i][0][0]))


def plan(moves: Sequence[tuple[Box, Box]], groups: Sequence[Hashable] | None = None,
         bounds: Sequence[float] | None = None, still: Sequence[Box] = (), small: bool = False) -> list[Way]:
    """A way for each (start box, end box), one a group (`groups`: each move's; by default each
    its own), such that no two movers touch on their ways, nor a mover a text that stays, and
    none leaves `bounds` (where it starts and lands inside), where such ways are found; else the
    ways that touch the fewest moments (`small`: every way shrinks its mover mid-way, for a crowd
    such as a large tensor's elements all moving at once). A search from the straight
    lines, over the groups whose ways can meet at all, by a fixed seed (the same plan every build)."""
    choices = CHOICES + HALVES if small else CHOICES
    n, count = len(moves), len(choices)
    if n == 0:
        return []
    keys = list(range(n)) if groups is None else list(groups)
    members: dict[Hashable, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        members[key].append(i)
    order = [reading(moves, m) for m in members.values()]
    suffix = SMALL if small else ""
    ways: list[list[list[Way]]] = [[[(s + suffix, window(t, k, len(m))) for k in range(len(m))] for s, t in choices]
                                   for m in order]                    # group, choice, member
    alphas = CROWDED if small else SAMPLES
    boxes = [np.stack([np.stack([boxes_along(w, *moves[i], alphas) for w, i in zip(c, m)]) for c in g])
             for g, m in zip(ways, order)]                            # group: C, members, S, 4
    reach = [np.concatenate([b[..., :2].min(axis=(0, 2)), b[..., 2:].max(axis=(0, 2))], axis=1) for b in boxes]
    hulls = np.array([[r[:, 0].min(), r[:, 1].min(), r[:, 2].max(), r[:, 3].max()] for r in reach])
    g_count = len(order)
    detour = (np.arange(count) > 0) * DETOUR
    own = np.zeros((g_count, count), dtype=int)           # a group's members touching each other, a text that stays
    fixed = np.asarray(still, dtype=float).reshape(-1, 4)
    for g, b in enumerate(boxes):
        own[g] = np.triu(touching(b[:, :, None], b[:, None]).sum(axis=-1), 1).sum(axis=(1, 2))   # C, m, m, S
        if len(fixed):
            own[g] += touching(b[..., None, :], fixed).sum(axis=(1, 2, 3))
        if bounds is not None:             # a mover starting or landing out of them: as far out as it is there
            ends = b[0][:, [0, -1]]                                                  # m, 2, 4
            room = np.concatenate([np.minimum(np.asarray(bounds[:2]), ends[..., :2].min(axis=1)),
                                   np.maximum(np.asarray(bounds[2:]), ends[..., 2:].max(axis=1))], axis=1)
            own[g] += OUTSIDE * outside(b, room[None, :, None]).sum(axis=(1, 2))
    near: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(g_count)]
    meets = touching(hulls[:, None], hulls[None])
    for g, h in zip(*np.nonzero(np.triu(meets, 1))):
        a, b = np.nonzero(touching(reach[g][:, None], reach[h][None]))     # the member pairs whose ways can meet
        hits = np.zeros((count, count), dtype=int)
        for k in range(0, len(a), CHUNK):                                    # C, C, pairs, S at a time
            hits += touching(boxes[g][:, None, a[k:k + CHUNK]], boxes[h][None, :, b[k:k + CHUNK]]).sum(axis=(2, 3))
        if hits.any():
            near[g].append((h, hits))
            near[h].append((g, hits.T))
    chosen = np.zeros(g_count, dtype=int)
    clash = np.array([own[g][0] + sum(hits[0, 0] for _, hits in near[g]) for g in range(g_count)])
    rng = np.random.default_rng(0)
    best, least = chosen.copy(), clash.sum()
    for _ in range(SEARCH * g_count * (CROWD_SEARCH if small else 1)):
        clashing = np.nonzero(clash)[0]       # the groups touching something on their ways
        if not len(clashing):
            break
        g = int(clashing[rng.integers(len(clashing))])
        total = own[g].copy()
        for h, hits in near[g]:
            total += hits[:, chosen[h]]
        new = int(rng.integers(count)) if rng.random() < WANDER else int(np.argmin(total + detour))
        for h, hits in near[g]:
            clash[h] += hits[new, chosen[h]] - hits[chosen[g], chosen[h]]
        chosen[g], clash[g] = new, total[new]
        if clash.sum() < least:
            best, least = chosen.copy(), clash.sum()
    out: list[Way] = [(STRAIGHT[0] + suffix, STRAIGHT[1])] * n
    for g, m in enumerate(order):
        for way, i in zip(ways[g][best[g]], m):
            out[i] = way
    return out


def path_func(way: Way, start: Box, end: Box) -> Callable | None:
    """The path function moving a mobject's points along its way (None: Manim's straight line)."""
    if way == STRAIGHT:
        return None
    shape, span = way
    a, b = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    d, size = (b[:2] + b[2:]) / 2 - (a[:2] + a[2:]) / 2, a[2:] - a[:2]

    last: list = [None, None, 1.0, None]   # called for each part of the mobject at one alpha: the shift once
    centre_a = np.array([*(a[:2] + a[2:]) / 2, 0.0])

    def along(start_points: np.ndarray, end_points: np.ndarray, alpha: float) -> np.ndarray:
        v = float(progress(alpha, span))
        if last[0] != v:
            shift = offset(shape, d, np.array(v), size) - d * v
            last[:] = [v, np.array([shift[0], shift[1], 0.0]), float(scale(shape, v)),
                       centre_a + np.array([d[0] * v, d[1] * v, 0.0])]
        points = start_points + (end_points - start_points) * v
        if last[2] != 1.0:                # shrunk about the straight interpolation's centre
            points = last[3] + (points - last[3]) * last[2]
        return points + last[1]
    return along
