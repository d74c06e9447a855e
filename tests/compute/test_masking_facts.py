"""4.4–4.5: the facts the causal-mask clip reads from its lesson (which keys are hidden, which rows
are NaN, what the tracked query sees, what the check finds, the cache view's blocked cells), each
against an oracle written here in torch (float64: torch.triu, masked_fill, F.softmax); planted:
each fact made wrong, and the check names it.
"""
import dataclasses
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from support.causal_mask_oracle import CLIP, legal_inputs
from conftest import inputs_for
from scenes.compute import masking as compute

PRESETS = [None, "cache-3", "diagonal-0", "no-mask", "two-keys", "zero-scores", "journey-causal-mask"]
# Scores of ±10000: row 0's future keys take all its probability (its visible ones underflow), or
# none of it (row 1 still loses a third to its future key: some rows shrink, not all).
TAKEN = {"q": "100 0; 0 0; 0 0", "k": "0 0; 100 0; 0 0", "v": "1; 2; 3", "no_scale": True}
KEPT = {"q": "100 0; 0 0; 0 0", "k": "100 0; -100 0; 0 0", "v": "1; 2; 3", "no_scale": True}


def t64(a):
    return torch.tensor(a, dtype=torch.float64)


def lesson(i):
    """The clip's lesson for parsed inputs, as the clip asks for it."""
    return compute.causal_lesson(i["q"], i["k"], i["v"], i["track"], i["scale"], i["causal"], i["diagonal"],
                                 i["cached"], i["delta"], i["cache_view"])


def rows(mask):
    return mask.nonzero().flatten().tolist()


def attend(q, k, v, scale, hidden):
    """softmax(q kᵀ (/ √d) masked_fill(hidden, −∞)) v, and the weights."""
    scores = q @ k.T / (q.shape[-1] ** 0.5 if scale else 1.0)
    weights = F.softmax(scores.masked_fill(hidden, -torch.inf), dim=-1)
    return weights @ v, weights, scores


def facts(i):
    """Every fact the clip reads, by torch."""
    q, k, v = t64(i["q"]), t64(i["k"]), t64(i["v"])
    n_q, n_k, t, d, c = len(q), len(k), i["track"], i["diagonal"], i["cached"]
    on = torch.ones(n_q, n_k, dtype=torch.bool).triu(d + c)
    hidden = on if i["causal"] else torch.zeros(n_q, n_k, dtype=torch.bool)
    _, weights, scores = attend(q, k, v, i["scale"], hidden)
    probs = F.softmax(scores, dim=-1)                  # softmax first, then the future zeroed
    kept = probs.masked_fill(hidden, 0.0)
    renorm = kept / kept.sum(-1, keepdim=True)
    lost = probs.masked_fill(~hidden, 0.0).sum(-1) > 0
    with_hidden = hidden.any(-1)
    shrunk = int((lost & with_hidden).sum())
    k2, v2 = k.clone(), v.clone()
    k2[-1] += i["delta"]
    v2[-1] += i["delta"]
    moved = []
    for mask in (on, torch.zeros_like(on)):
        before, after = attend(q, k, v, i["scale"], mask)[0], attend(q, k2, v2, i["scale"], mask)[0]
        moved.append((after - before).abs())
    cached = c or i["cache_view"]
    fresh = torch.ones(n_q, n_q, dtype=torch.bool).triu(d)
    block = torch.ones(n_q, cached + n_q, dtype=torch.bool).triu(d + cached)
    numbers = ~renorm.isnan().all(-1) & ~weights.isnan().all(-1)
    return {
        "steps.hidden": hidden.numpy(), "steps.hides_any": bool(hidden.any()),
        "steps.hidden_rows": rows(with_hidden), "compared": bool(numbers.any()),
        "shrink_case": "all" if shrunk == int(with_hidden.sum()) else "underflow" if not shrunk else "some",
        "track_nan": bool(weights[t].isnan().any()), "track_keys": rows(~hidden[t]),
        "track_hides": bool(hidden[t].any()), "nan_outputs": rows(moved[0].isnan().any(-1)),
        "unchanged": torch.stack([m.nan_to_num(1.0).amax(-1) == 0 for m in moved], -1).numpy(),
        "sees_changed": not bool(on[t, -1]), "cache.fresh_hidden": fresh.numpy(),
        "cache.hidden": block.numpy(), "cache.hides_any": bool(fresh.any() or block.any())}


def fact_problems(i):
    """The facts of the lesson that differ from torch's, by name."""
    r, want = lesson(i), facts(i)
    problems = []
    for name, value in want.items():
        got = r
        for part in name.split("."):
            got = getattr(got, part)
        got = got.tolist() if hasattr(got, "tolist") else got
        value = value.tolist() if hasattr(value, "tolist") else value
        if got != value or type(got) is not type(value):
            problems.append(f"{name}: {got!r}, torch {value!r}")
    return problems


def cases():
    found = [inputs_for(CLIP, p) for p in PRESETS] + [inputs_for(CLIP, **TAKEN), inputs_for(CLIP, **KEPT)]
    return found + [inputs_for(CLIP, **legal_inputs(random.Random(f"facts-{s}"))) for s in range(40)]


@pytest.fixture(scope="module")
def all_cases():
    return cases()


def test_every_fact_agrees_with_torch(all_cases):
    assert [(n, p) for n, i in enumerate(all_cases) for p in fact_problems(i)] == []


def test_the_cases_reach_every_value_of_each_fact(all_cases):
    """Not vacuous: each yes/no fact is both, the shrink case takes all three values."""
    seen = {}
    for i in all_cases:
        for name, value in facts(i).items():
            if isinstance(value, (bool, str)):
                seen.setdefault(name, set()).add(value)
    assert seen.pop("shrink_case") == {"all", "some", "underflow"}
    assert all(values == {True, False} for values in seen.values()), seen


def wrong(value):
    """A plausible wrong value: a yes/no flipped, an index list one off, a mask's first cell flipped."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return "some" if value != "some" else "all"
    value = value.copy()
    if value.dtype == bool:
        value.flat[0] = not value.flat[0]
        return value
    return value + 1 if len(value) else np.array([0])


PLANTED = ["steps.hidden", "steps.hides_any", "steps.hidden_rows", "compared", "shrink_case", "track_nan",
           "track_keys", "track_hides", "nan_outputs", "unchanged", "sees_changed", "cache.fresh_hidden",
           "cache.hidden", "cache.hides_any"]


@pytest.mark.parametrize("name", PLANTED)
def test_a_wrong_fact_is_named(monkeypatch, name):
    real = compute.causal_lesson

    def planted(*args, **kwargs):
        r = real(*args, **kwargs)
        *path, field = name.split(".")
        if not path:
            return dataclasses.replace(r, **{field: wrong(getattr(r, field))})
        part = getattr(r, path[0])
        bad = dataclasses.replace(part, **{field: wrong(getattr(part, field))})
        return dataclasses.replace(r, **{path[0]: bad})
    monkeypatch.setattr(compute, "causal_lesson", planted)
    named = {p.split(":")[0] for p in fact_problems(inputs_for(CLIP, "diagonal-0"))}
    assert name in named
