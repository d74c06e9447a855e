"""The facts the weighted-average clip reads from scenes/compute/average.py's Lesson (which weight
the narration names, whether the shifted scores are flat, which shares are negative, the order of
the weights, what the plane must hold, s − m) against plain Python on the result's own arrays,
over the book's example, the cases that exercise each fact, and generated inputs."""
import dataclasses
import random

import numpy as np
import pytest

from conftest import inputs_for
from scenes.compute import average
from support.weighted_average_oracle import CLIP, legal_inputs


def fact_problems(r):
    """Each fact of `r` that plain Python on r's own arrays does not give: its field named."""
    w = r.weights.tolist()
    n = len(w)
    heaviest = max(range(n), key=lambda j: (w[j], -j))           # the first of the largest
    ratios = [] if r.ratios is None else r.ratios.tolist()
    points = [list(row) for row in r.x.tolist()] + [r.output.tolist()]
    want = {
        "heaviest": heaviest,
        "by_weight": tuple(sorted(range(n), key=lambda j: (-w[j], j))),
        "shifted_flat": len(set(r.shifted.tolist())) == 1,
        "negative": tuple(j for j, v in enumerate(ratios) if v < 0),
        "plane_points": points,
        "scores_shifted": [s - r.shift for s in r.scores.tolist()],
    }
    out = []
    for field, expected in want.items():
        got = getattr(r, field)
        got = got.tolist() if isinstance(got, np.ndarray) else got
        if got != expected or type(got) is not type(expected):
            out.append(f"{field}: {got!r}, plain Python gives {expected!r}")
    return out


def lesson_of(**raw):
    inputs = inputs_for(CLIP, **raw)
    return average.lesson(inputs["x"], inputs["query"])


CASES = {
    "book": {},
    "flat": {"x": "1 0; 1 0; 1 0", "query": 0},                 # every score 1: s − mean(s) all zero
    "negative": {"x": "1 0; -3 0; 0 1", "query": 0},            # s = 1, −3, 0: shares −0.5, 1.5, −0
    "zero": {"x": "1 0; -1 0", "query": 0},                     # s = 1, −1: the sum is zero
    "ties": {"x": "1 1; 1 1; 0 1; 1 1", "query": 1},            # three largest weights tie
    "stable": {"x": "10 0; 0 10; 10 10", "query": 2},           # s − m drawn
    "wide": {"x": "1 2 3; 0 1 0; 3 2 1", "query": 0},           # no plane, still the points
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_facts_of_each_case(case):
    r = lesson_of(**CASES[case])
    assert fact_problems(r) == []
    if case == "flat":
        assert r.shifted_flat and r.case == "works"
    if case == "negative":
        assert r.negative == (0,)
    if case == "ties":
        assert r.heaviest == 0 and r.by_weight[:3] == (0, 1, 3)


@pytest.mark.parametrize("seed", range(30))
def test_the_facts_of_generated_inputs(seed):
    assert fact_problems(lesson_of(**legal_inputs(random.Random(seed)))) == []


def test_the_book_names_its_largest_weight():
    r = lesson_of()
    assert (r.heaviest, r.by_weight, r.shifted_flat, r.negative) == (1, (1, 2, 0), False, ())
    assert r.plane_points.tolist() == [[1, 0], [0, 1], [1, 1], r.output.tolist()]


PLANTED = {"heaviest": 2, "by_weight": (0, 1, 2), "shifted_flat": True, "negative": (0,),
           "plane_points": np.zeros((4, 2)), "scores_shifted": np.zeros(3)}


@pytest.mark.parametrize("field", sorted(PLANTED))
def test_a_wrong_fact_is_named(field):
    """Planted: each fact replaced by a wrong value; the check names that field and no other."""
    wrong = dataclasses.replace(lesson_of(), **{field: PLANTED[field]})
    problems = fact_problems(wrong)
    assert len(problems) == 1 and problems[0].startswith(field + ":")
