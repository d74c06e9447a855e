"""4.1 made in front of the viewer: where each number of the weighted-average clip
comes from (scenes/compute/average.py's provenance against the non-zero pattern of torch's
Jacobian, a planted wrong dependency caught), and the numbers it makes on screen: a score from the
query and the first key, e^s and a weight from it, z's first component from the weights and X
(tests/support/derivations.py with this module's own dependency rules; planted: the wrong source, the
wrong value, an expression where no room was laid out)."""
import math
import random
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import inputs_for
from support.derivations import SEEDS, made, swept
from support.derivations import derived as check_derived
from support.weighted_average_oracle import CLIP, oracle


# -- where each number comes from: compute's provenance against torch's Jacobian
def chain(x, q):
    """Every label the clip draws, as torch computes it from X (the test's own formulas)."""
    s = x @ x[q]
    m, w, gram = s.amax(), F.softmax(s, -1), x @ x.T
    rows, cols = F.softmax(gram, -1), F.softmax(gram, -2)
    col, one = (lambda v: v[:, None]), (lambda v: v.reshape(1, 1))
    e, es = s.exp(), (s - m).exp()
    return {"products": x * x[q], "scores": col(s), "scores_sum": one(s.sum()), "ratios": col(s / s.sum()),
            "ratios_sum": one((s / s.sum()).sum()), "shifted": col(s - s.mean()), "shift": m,
            "shifted_sum": one((s - s.mean()).sum()), "scores_shifted": col(s - m), "exps": col(e),
            "exps_sum": one(e.sum()), "exps_shifted": col(es), "exps_shifted_sum": one(es.sum()),
            "weights": col(w), "weights_sum": one(w.sum()), "parts": w[:, None] * x, "output": (w @ x)[None],
            "gram": gram, "softmax_rows": rows, "softmax_cols": cols, "softmax_rows_sums": col(rows.sum(-1)),
            "softmax_cols_sums": col(cols.sum(-1))}


def jacobian_deps(x, q, tol=1e-11):
    """label -> the entries of X its torch Jacobian is non-zero for."""
    steps = chain(x, q)
    jac = torch.autograd.functional.jacobian(lambda a: tuple(chain(a, q).values()), x)
    out = {}
    for (name, value), d in zip(steps.items(), jac):
        for idx in np.ndindex(*value.shape):
            out[name + "".join(f"[{i}]" for i in idx)] = {f"x[{a}][{b}]" for a, b in zip(*np.nonzero(
                d[idx].abs().numpy() > tol))}
    return out


def identities(n, m):
    """Labels equal to a constant whatever X is (a softmax's sum, Σ s/Σs, Σ (s − mean), s_m − m and
    e^(s_m − m) for the largest score m): their Jacobian vanishes, so they are checked one step back,
    by the terms they are made of."""
    out = {f"{name}_sum[0][0]": {f"{name}[{j}][0]" for j in range(n)}
           for name in ("ratios", "shifted", "weights")}
    out.update({f"softmax_rows_sums[{i}][0]": {f"softmax_rows[{i}][{k}]" for k in range(n)}
                for i in range(n)})
    out[f"scores_shifted[{m}][0]"] = {f"scores[{m}][0]", "shift"}
    out[f"exps_shifted[{m}][0]"] = {f"scores_shifted[{m}][0]"}
    return out


def provenance_problems(x, q, sources):
    from scenes.compute.provenance import inputs_of
    want, same = jacobian_deps(x, q), identities(len(x), int((x @ x[q]).argmax()))
    out = [f"{lab}: the Jacobian vanishes: not an identity" for lab, d in want.items()
           if not d and lab not in same]
    for label, deps in want.items():
        if label in same:
            if deps or set(sources[label].sources) != same[label]:
                out.append(f"{label}: an identity made of {sorted(sources[label].sources)}, "
                           f"want {sorted(same[label])}")
        elif inputs_of(label, sources) != deps:
            out.append(f"{label}: provenance {sorted(inputs_of(label, sources))}, jacobian {sorted(deps)}")
    return out


def random_x(seed, large=False):
    """Generated inputs: 2-8 rows, 1-8 columns, any query; `large`: rows of one length and nearly one
    direction whose scores pass 10 (the clip then draws e^(s − m)), no softmax near underflow."""
    rng, gen = random.Random(seed), torch.Generator().manual_seed(seed)
    n, d = rng.randint(2, 8), rng.randint(1, 8)
    x = torch.randn(n, d, generator=gen, dtype=torch.float64)
    if large:
        x = torch.randn(d, generator=gen, dtype=torch.float64) + 0.4 * x
        x = x / x.norm(dim=1, keepdim=True) * math.sqrt(11)
    return (x if large else x * 0.5), rng.randrange(n)


@pytest.mark.parametrize("seed, large", [(s, s % 4 == 3) for s in range(12)])
def test_provenance_is_torchs_jacobian_pattern(seed, large):
    from scenes.compute import average
    x, q = random_x(seed, large)
    r = average.lesson(x.numpy(), q)
    assert r.stable == large
    assert provenance_problems(x, q, average.provenance(r)) == []


def test_a_wrong_dependency_is_caught():
    from scenes.compute import average
    from scenes.compute.provenance import Source
    x, q = random_x(5)
    sources = dict(average.provenance(average.lesson(x.numpy(), q)))
    sources["scores[0][0]"] = Source("dot", tuple(f"x[0][{c}]" for c in range(x.shape[1])))  # no query
    sources["weights_sum[0][0]"] = Source("sum", ("weights[0][0]",))
    problems = provenance_problems(x, q, sources)
    assert any(p.startswith("scores[0][0]: provenance") for p in problems), problems
    assert any(p.startswith("weights_sum[0][0]: an identity") for p in problems), problems


# -- numbers made in front of the viewer: a score, e^s and a weight, a component of z
def deps_of(inputs):
    """The test's own rules: a score from the query's row and its key's, e^s from its score (s − m
    where the scores pass 10), a weight from its e^s and their sum, z[c] from every weight and the
    column c of X."""
    x, q = inputs["x"], inputs["query"]
    n, width = len(x), len(x[0])
    scores = [sum(a * b for a, b in zip(x[q], row)) for row in x]
    e = "exps_shifted" if abs(max(scores)) > 10 else "exps"
    row = lambda i: {f"x[{i}][{c}]" for c in range(width)}
    rules = {"scores": lambda j: row(q) | row(j),
             "exps": lambda j: {f"scores[{j}][0]"}, "exps_shifted": lambda j: {f"scores_shifted[{j}][0]"},
             "weights": lambda j: {f"{e}[{j}][0]", f"{e}_sum[0][0]"},
             "output": lambda c: {f"weights[{j}][0]" for j in range(n)} | {f"x[{j}][{c}]" for j in range(n)}}

    def deps(label):
        name, (a, b) = label.split("[")[0], (int(v) for v in re.findall(r"\[(\d+)\]", label))
        return rules[name](b if name == "output" else a)
    return deps


def derived(inputs, lang="zh", shared=False):
    """shared: the session's build of these inputs (tests/support/shared_builds.py)."""
    return check_derived(CLIP, inputs, oracle(inputs), deps_of(inputs), lang, shared)


def test_the_book_example_makes_a_score_a_weight_and_z():
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == []
    shown = made(built)
    assert {k: d["expression"] for k, d in shown.items()} == {
        "scores[0][0]": "0 · 1 + 1 · 0 = 0", "exps[0][0]": "exp(0) = 1.0000",
        "weights[0][0]": "1.0000 / 6.4366 = 0.1554",
        "output[0][0]": "0.1554 · 1 + 0.4223 · 0 + 0.4223 · 1 = 0.5777"}
    assert all(d["where"] == "page" for d in shown.values())
    assert [m["label"] for m in moments] == list(shown)
    assert "以 x0 为例" in built.scene.narration[2] and "权重是 0.1554" in built.scene.narration[4]
    assert "第一个分量 0.5777" in built.scene.narration[5]


@pytest.mark.sampled(2)
@pytest.mark.parametrize("case", ["journey-weighted-average", *SEEDS])
def test_derivations_show_their_sources_and_keep_the_contract_mid_motion(case):
    from support.cases import generated
    inputs = inputs_for(CLIP, case) if isinstance(case, str) else generated(CLIP, 100 + case)[1]
    built, moments, problems = derived(inputs, "en" if case in (1, 3, 5) else "zh", shared=True)
    assert problems == [], "\n".join(problems[:20])
    shown = [r for r in built.manifest()["numbers"] if "where" in r.get("derivation", {})]
    assert len(moments) == len(shown)


def test_a_shortened_mix_keeps_the_heaviest_weights():
    """Eight rows, nearly all the weight on x5: the sum left shorter still shows the term that makes z."""
    built, _, problems = derived(inputs_for(CLIP, x="1 0; 0 1; 1 1; 0.5 0.5; -1 0; 100 100; 0 -1; 2 2", query=5))
    d = built.value("output[0][0]")["derivation"]
    assert problems == [] and d["shorter"] and d["expression"].startswith("1.0000 · 100 + ")


def test_planted_wrong_source_and_value_are_caught(monkeypatch):
    """z's first component takes X's second column; then the right labels with the next weight's number."""
    from scenes.clips.weighted_average import scene as clip
    first = clip.first_mix

    def second_column(book, r, parts, total, width):
        d = first(book, r, parts, total, width)
        for t in d.terms():
            if t.label.startswith("x["):
                t.label, t.value = t.label[:-3] + "[1]", float(r.x[int(t.label[2]), 1])
        return d
    monkeypatch.setattr(clip, "first_mix", second_column)
    _, _, problems = derived(inputs_for(CLIP))
    assert any("which it is not made from" in p and "x[0][1]" in p for p in problems), problems

    def next_weight(book, r, parts, total, width):
        d = first(book, r, parts, total, width)
        d.terms()[0].value = float(r.weights[1])
        return d
    monkeypatch.setattr(clip, "first_mix", next_weight)
    _, _, problems = derived(inputs_for(CLIP))
    assert any(p.startswith("weights[0][0] shows") for p in problems), problems


def test_planted_expression_without_room_is_caught(monkeypatch):
    """A band the page never laid out: the expression lands on the page's numbers mid-motion."""
    from scenes.kit.compose import boards
    monkeypatch.setattr(boards, "reserve", lambda book, group, band, width=None, buff=0.4: band)
    _, _, problems = derived(inputs_for(CLIP))
    assert any(p.startswith("mid-motion") and "overlap" in p for p in problems), problems


def test_without_a_band_the_caption_line_is_used_else_the_derivation_is_left_out(monkeypatch):
    """Forced (no legal input was found whose page cannot take the band): the strip by the caption
    line holds the expressions; without it they are left out, as their records and the narration say."""
    from scenes.kit.compose import boards
    monkeypatch.setattr(boards, "reserve", lambda book, group, band, width=None, buff=0.4: None)
    built, moments, problems = derived(inputs_for(CLIP))
    ds = list(made(built).values())
    assert problems == [] and len(moments) == 4 and {d["where"] for d in ds} == {"caption line"}
    monkeypatch.setattr(boards.derive, "strip", lambda scene, page, made: None)
    built, moments, problems = derived(inputs_for(CLIP))
    ds = [r["derivation"] for r in swept(built.manifest()).values() if "skipped" in r["derivation"]]
    assert problems == [] and moments == [] and {d["skipped"] for d in ds} == {"no room"} and len(ds) == 4
    assert "以 x0 为例" not in built.scene.narration[2]
