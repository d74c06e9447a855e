"""4.9: the facts the exercises' answers read from their results (which cells the mask hides, the
row left with no key, counted from 1), against an oracle written here in torch (torch.triu,
masked_fill); planted: each fact made wrong, and the check names it.
"""
import dataclasses

import numpy as np
import pytest
import torch

from support.exercises_oracle import SCORE_X
from scenes.compute import exercises as compute


def results():
    """The grids of the three masked answers, by name: all-zero scores, the diagonal kept and hidden;
    and the wrong-axis answer, which has no mask."""
    keep, hide = compute.diagonal_rows()
    return {"zeros": compute.zero_scores(), "keep": keep, "hide": hide, "dim": compute.wrong_axis()}


def oracle():
    """name -> {fact: value}, by torch: hidden where torch.triu(ones, diagonal) is 1 (the masked
    score is −∞), the first row with nothing left, counted from 1 (0: none)."""
    x = torch.tensor(SCORE_X, dtype=torch.float64)
    out = {}
    for name, scores, diagonal in (("zeros", torch.zeros(3, 3, dtype=torch.float64), 1),
                                   ("keep", x @ x.T, 1), ("hide", x @ x.T, 0)):
        masked = scores.masked_fill(torch.ones(3, 3, dtype=torch.bool).triu(diagonal), -torch.inf)
        hidden = masked.isinf()
        empty = hidden.all(-1).nonzero().flatten().tolist()
        out[name] = {"hidden": hidden.numpy(), "empty_row_number": empty[0] + 1 if empty else 0}
    out["dim"] = {"hidden": torch.zeros(3, 3, dtype=torch.bool).numpy()}
    return out


def fact_problems():
    got, want = results(), oracle()
    problems = []
    for name, fields in want.items():
        for field, value in fields.items():
            mine = getattr(got[name], field)
            same = np.array_equal(mine, value) and np.asarray(mine).dtype == np.asarray(value).dtype
            if not same:
                problems.append(f"{name}.{field}: {mine!r}, torch {value!r}")
    return problems


def test_the_facts_agree_with_torch():
    assert fact_problems() == []


def test_the_cases_are_not_vacuous():
    want = oracle()
    assert want["hide"]["empty_row_number"] == 1 and want["keep"]["empty_row_number"] == 0
    assert want["zeros"]["hidden"].any() and not want["dim"]["hidden"].any()


PLANTED = [("zeros_hidden", "zero_scores", "hidden", lambda h: ~h, "zeros.hidden"),
           ("no_mask", "wrong_axis", "hidden", lambda h: np.ones_like(h), "dim.hidden"),
           ("zero_based", "diagonal_rows", "empty_row_number", lambda n: n - 1, "hide.empty_row_number"),
           ("diagonal_kept", "diagonal_rows", "hidden", lambda h: np.triu(np.ones_like(h), 1), "hide.hidden")]


@pytest.mark.parametrize("why, fn, field, bad, name", PLANTED, ids=[p[0] for p in PLANTED])
def test_a_wrong_fact_is_named(monkeypatch, why, fn, field, bad, name):
    real = getattr(compute, fn)

    def spoil(r):
        return dataclasses.replace(r, **{field: bad(getattr(r, field))})

    def planted(*args, **kwargs):
        r = real(*args, **kwargs)
        return tuple(spoil(x) for x in r) if isinstance(r, tuple) else spoil(r)
    monkeypatch.setattr(compute, fn, planted)
    assert name in {p.split(":")[0] for p in fact_problems()}
