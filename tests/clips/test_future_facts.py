"""4.5 future-check: the facts the scene reads instead of working them out, each against
an oracle written here, and the kit's sizing the clip leaves to the kit.

The outputs come from this project's torch attention (tests/clips/test_future_check.py); which position
and feature changed most, the colour scales, the counts are plain Python loops over them.
scenes.compute is never used as the oracle.
"""
import dataclasses
import random

import numpy as np
import pytest

from scenes.clips.future_check import scene as clip_module
from scenes.compute import future as compute
from scenes.kit.draw import bars, pictures
from scenes.kit.text import style
from scenes.kit.text.numbers import NumberBook
from support.future_check_oracle import attention, draws, facts, legal_inputs
from test_future_check_derivation import case, problems as provenance_problems

RUNS = {"on": {"causal": True}, "off": {"causal": False}, "bug": {"causal": True, "wrong_merge": True}}


def outputs(inputs):
    """name -> (y, y2) as numpy, from the torch attention on x and on the perturbed x."""
    x, weights, u, _ = draws(inputs)
    x2 = x.clone()
    x2[:, inputs["prefix"]:] += inputs["delta"] * u[:, inputs["prefix"]:]
    return {name: tuple(attention(a, weights, inputs["heads"], **o)[0].numpy() for a in (x, x2))
            for name, o in RUNS.items()}


def worked(y, y2, prefix):
    """The prefix (batch, position) whose largest |y2 - y| is largest, the latest position then
    the first batch on ties, and the first feature where that position's |y2 - y| is largest."""
    best = None
    for b in range(y.shape[0]):
        for t in range(prefix):
            change = max(abs(float(y2[b, t, c]) - float(y[b, t, c])) for c in range(y.shape[2]))
            if best is None or (change, t, -b) > best[0]:
                best = ((change, t, -b), b, t)
    _, b, t = best
    gaps = [abs(float(y2[b, t, c]) - float(y[b, t, c])) for c in range(y.shape[2])]
    return b, t, gaps.index(max(gaps))


def result(inputs):
    return compute.future_check(inputs["shape"], inputs["heads"], inputs["prefix"], inputs["delta"],
                                inputs["seed"], inputs["dropout"])


def problems(inputs, r):
    """Each fact of r that the oracle does not give, by its field's name."""
    b_n, t_n, _ = inputs["shape"]
    prefix = inputs["prefix"]
    out = []
    for name, (y, y2) in outputs(inputs).items():
        run = getattr(r, name)
        if run.worked != worked(y, y2, prefix):
            out.append(f"{name}.worked: {run.worked}, the oracle {worked(y, y2, prefix)}")
        first = [[int(np.argmax([abs(a - c) for a, c in zip(y[b, t], y2[b, t])])) for t in range(t_n)]
                 for b in range(b_n)]
        if run.feature.tolist() != first:
            out.append(f"{name}.feature: {run.feature.tolist()}, the oracle {first}")
        if run.limit != pytest.approx(max(abs(float(v)) for v in y.flat), rel=1e-12):
            out.append(f"{name}.limit: {run.limit}")
    f = facts(inputs)
    if r.x_limit != max(abs(float(v)) for v in f["x"].flatten()):
        out.append(f"x_limit: {r.x_limit}")
    if r.grad_max != pytest.approx(float(f["grad"].max()), rel=1e-9):
        out.append(f"grad_max: {r.grad_max}, torch {float(f['grad'].max())}")
    if r.future != t_n - prefix:
        out.append(f"future: {r.future}")
    if r.visible != t_n * (t_n + 1) // 2:
        out.append(f"visible: {r.visible}")
    return out


INPUTS = [clip_module.rules(legal_inputs(random.Random(seed))) for seed in range(6)]


@pytest.mark.parametrize("inputs", [clip_module.rules({})] + INPUTS,
                         ids=["book"] + [f"generated{k}" for k in range(6)])
def test_the_facts_are_the_oracles(inputs):
    assert problems(inputs, result(inputs)) == []


def test_the_book_default_works_the_last_prefix_position():
    """With the mask every prefix change is exactly 0: the tie goes to the latest position of the
    first batch and its first feature; without it, to the largest change."""
    r = result(clip_module.rules({}))
    assert r.on.worked == (0, 3, 0) and r.off.prefix_max == r.off.change[r.off.worked[:2]]
    assert (r.future, r.visible) == (2, 21)


def second_largest(a, b):
    """The planted bug: each position's second-largest |a - b|."""
    return np.argsort(np.abs(b - a), axis=-1, kind="stable")[..., -2]


def test_a_second_largest_feature_is_caught(monkeypatch):
    """Planted: the compute picks each position's second-largest change. This file's check names
    the fields, and the derivation test's provenance check (torch.max's feature) catches it too."""
    inputs = clip_module.rules({"shape": "2,5,6", "heads": "2", "seed": "3", "delta": "0.5"})
    monkeypatch.setattr(compute, "features", second_largest)
    found = problems(inputs, result(inputs))
    assert any(p.startswith("off.worked") for p in found) and any(p.startswith("off.feature") for p in found)
    provenance_inputs, sources = case(3)
    assert any(".change[" in p for p in provenance_problems(provenance_inputs, sources))


def test_a_wrong_count_or_scale_is_caught():
    inputs = clip_module.rules({})
    r = result(inputs)
    wrong = dataclasses.replace(r, visible=r.visible - 1, x_limit=float(np.max(r.x)),
                                on=dataclasses.replace(r.on, limit=float(np.max(np.abs(r.on.y2)))))
    found = " ".join(problems(inputs, wrong))
    assert "visible" in found and "x_limit" in found and "on.limit" in found


def test_the_scene_imports_no_numpy():
    assert not hasattr(clip_module, "np") and not hasattr(clip_module.parts, "np")


# ---------------------------------------------------------------- the kit's sizing
@pytest.mark.parametrize("t, room, most, cell", [(2, 2.8, 0.9, 0.9), (8, 2.8, 0.9, 0.35), (4, 2.6, 0.6, 0.6),
                                                 (5, 2.6, 0.6, 0.52)])
def test_a_picture_shares_its_room_up_to_its_most(t, room, most, cell):
    pic = pictures.picture([[style.VALUE] * t for _ in range(t)], room=room, most=most)
    assert len(pic) == t * t
    assert pic[0].width == pytest.approx(cell) and pic.width == pytest.approx(t * cell)


def test_the_tallest_bar_stands_in_the_room():
    values = np.array([[0.5, 2.0, 0.0], [1.0, 0.25, 0.0]])
    charts = bars.by_position(NumberBook(), "g", values, 2, 1.5, 2.0)
    heights = [[cell[0].height for cell in chart[1]] for chart in charts]
    assert heights[0][1] == pytest.approx(1.5) and heights[1][0] == pytest.approx(0.75)
    assert heights[0][2] == pytest.approx(0.02)           # a zero bar is drawn as a sliver
    flat = bars.by_position(NumberBook(), "g", np.zeros((1, 2)), 1, 1.5, 0.0)
    assert [cell[0].height for cell in flat[0][1]] == pytest.approx([0.02, 0.02])

