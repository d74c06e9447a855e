"""The kit's two grid precisions (scenes/kit/text/style.py) against the rules written again in
tests/support/formatting.py (exact decimal text, never with style): decimals_cut_to_width, the
weighted-average clip's grids, and decimals_cut_by_digits, the score-grid clip's; the book's
figures, every magnitude a clip can draw, values that show in the scientific form."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from support.formatting import cut_by_digits, cut_to_width
from scenes.kit.text import style

RULES = (("decimals_cut_to_width", cut_to_width), ("decimals_cut_by_digits", cut_by_digits))


def precision_problems(cases, rules=RULES):
    """Each case where a kit precision differs from its rule: the kit function and the values named."""
    out = []
    for values in cases:
        for name, rule in rules:
            got, want = getattr(style, name)(np.asarray(values, float)), rule(values)
            if got != want:
                out.append(f"{name}({values}): {got} decimals, the rule gives {want}")
    return out


# (values, cut to width, cut by digits), worked by hand
BOOK = [([0, 1, 1], 0, 0),
        ([0.43, 0.15, 0.89], 2, 2),
        ([1 / 3, -1 / 3], 4, 4),
        ([12.3456, 1], 4, 3),                 # two whole digits leave three decimals
        ([123.456], 2, 2),                    # 123.4560 would be 8 characters
        ([12345.678], 1, 0),                  # 12345.7 is the widest that fits 7 characters
        ([-123.456789], 2, 2),
        ([80000.25], 1, 0),                   # 80000.2 (half to even) in 7 characters
        ([1e-7, 0.5], 4, 4),                  # 1.000e−07 is 9 characters at every cut: the most decimals
        ([99.5, -100, 0.00001], 4, 2)]        # 1.000e−05 at every cut leaves room for −100.0000


def test_the_worked_examples():
    for values, width, digits in BOOK:
        assert (cut_to_width(values), cut_by_digits(values)) == (width, digits), values
    assert precision_problems([values for values, _, _ in BOOK]) == []


def test_several_grids_share_one_precision():
    parts, output = np.array([[0.5, 0.25], [0.125, 1.0]]), np.array([12345.678, 0.5])
    assert style.decimals_cut_to_width(parts, output) == cut_to_width([*parts.ravel(), *output]) == 1


def test_values_that_are_not_finite_are_left_out():
    assert style.decimals_cut_to_width([math.nan, math.inf, 0.25]) == cut_to_width([0.25]) == 2
    assert style.decimals_cut_to_width([math.nan]) == cut_to_width([]) == 0


TENTHS = st.builds(lambda n, d: n / 10 ** d, st.integers(-10 ** 7, 10 ** 7), st.integers(0, 6))
VALUES = st.one_of(TENTHS, st.floats(-1e6, 1e6), st.floats(1e-12, 1e-3),
                   st.sampled_from([1e-7, -3e-9, 5e-5, 0.0, -0.0, 1 / 3, 99999.99995]))


@settings(max_examples=400, deadline=None)
@given(values=st.lists(VALUES, min_size=1, max_size=10))
def test_the_kit_follows_the_rules(values):
    assert precision_problems([values]) == []


@pytest.mark.parametrize("name, wider", [("decimals_cut_to_width", {"widest": 8}),
                                         ("decimals_cut_by_digits", {"short": 8})])
def test_a_rule_one_character_off_is_named(monkeypatch, name, wider):
    """Planted: a kit precision that lets numbers take one character more; the check names it."""
    real = getattr(style, name)
    monkeypatch.setattr(style, name, lambda values: real(values, **wider))
    problems = precision_problems([values for values, _, _ in BOOK])
    assert problems and all(p.startswith(name + "(") for p in problems)
