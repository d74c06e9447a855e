"""4.3 made in front of the viewer: the score-grid clip's scaled grid says where each
of its numbers comes from (the manifest's `from`, followed back to Q and K, is the non-zero pattern
of torch's Jacobian of QKᵀ / √dₖ; a planted wrong dependency fails), and its first cell is made
from the first score divided by the constant √dₖ (planted: the next score, a wrong number)."""
import math

import pytest
import torch

from conftest import build, inputs_for
from support.cases import generated
from test_score_grid import derived

CLIP = "score-grid"


def jacobian_deps(inputs):
    """scaled[i][j] -> the entries of Q and K with a non-zero derivative (torch; Q = X W_Q where X is given)."""
    t = lambda a: torch.tensor(a, dtype=torch.float64)
    q, k = ((t(inputs["x"]) @ t(inputs[w]) for w in ("wq", "wk")) if inputs["x"] is not None
            else (t(inputs["q"]), t(inputs["k"])))
    jac = torch.autograd.functional.jacobian(lambda a, b: a @ b.T / math.sqrt(a.shape[1]), (q, k))
    out = {}
    for i in range(len(q)):
        for j in range(len(k)):
            out[f"scaled[{i}][{j}]"] = {f"{n}[{a}][{b}]" for n, d in zip("qk", jac)
                                        for a, b in torch.nonzero(d[i, j]).tolist()}
    return out


def chain_problems(records, want):
    """The inputs each drawn scaled score depends on through its records' `from`, against `want`."""
    sources = {r["label"]: r.get("from") for r in records}

    def inputs(label):
        got = sources.get(label)
        return {label} if got is None else set().union(*(inputs(s) for s in got)) if got else set()
    drawn = [r["label"] for r in records if r["label"].startswith("scaled[")]
    return [f"{lab}: from {sorted(inputs(lab))}, jacobian {sorted(want[lab])}" for lab in drawn
            if inputs(lab) != want[lab]] + ([] if drawn else ["no scaled score drawn"])


def random_qk(seed):
    """Q and K of generated shapes with entries the Jacobian cannot miss (no zeros)."""
    g = torch.Generator().manual_seed(seed)
    n_q, n_k, d = (int(v) for v in torch.randint(1, 9, (3,), generator=g))
    text = lambda a: "; ".join(" ".join(f"{v:.3f}" for v in row) for row in a.tolist())
    q, k = (torch.rand(n, d, generator=g, dtype=torch.float64) + 0.5 for n in (n_q, n_k))
    return inputs_for(CLIP, q=text(q), k=text(k))


@pytest.mark.parametrize("seed", range(4))
def test_the_manifest_says_where_each_scaled_score_comes_from(seed):
    inputs = random_qk(seed) if seed % 2 else generated(CLIP, 200 + seed)[1]
    records = build(CLIP, inputs).manifest()["numbers"]
    scaled = [r for r in records if r["label"].startswith("scaled[")]
    assert all(r["op"] == "divide" and r["from"] == [r["label"].replace("scaled", "scores")] for r in scaled)
    if seed % 2:        # generated entries can be 0, where a derivative is 0: Q and K here have none
        assert chain_problems(records, jacobian_deps(inputs)) == []


def test_a_wrong_dependency_is_caught():
    inputs = random_qk(1)
    records = build(CLIP, inputs).manifest()["numbers"]
    for r in records:
        if r["label"] == "scaled[0][0]":
            r["from"] = ["scores[0][1]"] if len(inputs["k"]) > 1 else ["scores[0][0]", "q[0][0]"]
    assert any(p.startswith("scaled[0][0]: from") for p in chain_problems(records, jacobian_deps(inputs)))


def test_width_one_divides_by_one_and_says_so():
    built, _, problems = derived(inputs_for(CLIP, q="1; 2", k="3; -1"))
    assert problems == []
    assert built.value("scaled[0][0]")["derivation"]["expression"] == "3 / 1.0000 = 3"
    assert "除以 1.0000 仍是 3，缩放不改变它" in built.scene.narration[3]


def test_planted_wrong_source_and_value_are_caught(monkeypatch):
    """The scaled cell is made from the next key's score; then from the right label with that number."""
    from scenes.clips.score_grid import scene as clip
    first = clip.first_scaled

    def next_score(book, r, grid, root):
        d = first(book, r, grid, root)
        d.terms()[0].label, d.terms()[0].value = "scores[0][1]", float(r.scores[0, 1])
        return d
    monkeypatch.setattr(clip, "first_scaled", next_score)
    _, _, problems = derived(inputs_for(CLIP))
    assert any("which it is not made from" in p and "scores[0][1]" in p for p in problems), problems

    def wrong_value(book, r, grid, root):
        d = first(book, r, grid, root)
        d.terms()[0].value = float(r.scores[0, 1])
        return d
    monkeypatch.setattr(clip, "first_scaled", wrong_value)
    _, _, problems = derived(inputs_for(CLIP))
    assert any(p.startswith("scores[0][0] shows") for p in problems), problems
