"""4.2-4.3: the score-grid clip shows PyTorch's numbers: projections, QK^T, the scaled grid,
the sampled variances and one row's softmax with and without scaling.

`oracle(inputs)` recomputes every label the clip can draw from the checked inputs with torch
(and numpy for the documented sampling rule); `legal_inputs(rng)` draws raw options at the
limits of the clip's rules. tests/clips/test_contract.py runs both over the default, the presets and
generated inputs. Also here: the book's numbers and captions; elsewhere: test_score_grid_cases.py
(captions chosen by the data, the largest inputs, files and bad input), test_score_grid_first.py
(the first score made) and test_score_grid_scaled.py (the first scaled score)."""
import math
import random
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import exact_sums, build, inputs_for
from support.contract import layout_problems, oracle_problems
from support.derivations import derivation_problems, moment_problems, watched
from support.score_grid_oracle import TOKENS, SAMPLES, sampled_variance, oracle, axis_names, entry, legal_inputs

@pytest.mark.parametrize("seed", range(40))
def test_generated_inputs_are_legal(seed):
    raw = legal_inputs(random.Random(seed))
    inputs_for("score-grid", **raw)     # raises InputError if not


# ---------------------------------------------------------------- the book's numbers
def upstream_weights():
    """ch03: torch.manual_seed(123); W_query, W_key, W_value = torch.rand(3, 2) three times."""
    torch.manual_seed(123)
    return [torch.rand(3, 2) for _ in range(3)]


@pytest.fixture(scope="module")
def default():
    return build("score-grid")


def test_default_inputs_are_upstreams_ch03_weights():
    wq, wk, wv = upstream_weights()
    inputs = inputs_for("score-grid")
    for name, w in (("wq", wq), ("wk", wk), ("wv", wv)):
        np.testing.assert_allclose(inputs[name], w.double().numpy(), atol=5e-9)
    assert inputs["tokens"] == TOKENS.split()


def test_default_shows_the_books_printed_numbers(default):
    """The upstream notebook's printed query_2, attn_scores_2 and attn_weights_2."""
    shown = lambda labels: [default.value(lab)["text"] for lab in labels]
    assert shown(["q[1][0]", "q[1][1]"]) == ["0.4306", "1.4551"]
    assert shown([f"scores[1][{j}]" for j in range(6)]) == \
        ["1.2705", "1.8524", "1.8111", "1.0795", "0.5577", "1.5440"]
    assert shown([f"weights_scaled[0][{j}]" for j in range(6)]) == \
        ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
    assert "journey" in default.scene.captions[3][2]      # the row shown is query_2
    drawn = " ".join(s for _, s in default.texts)
    assert all(t in drawn for t in TOKENS.split())


def test_the_books_claim_var_grows_with_d_k_and_is_one_after_scaling(default):
    """4.3: Var(q.k) is about d_k, and about 1 after dividing by sqrt(d_k), for the shown sample."""
    widths, var, var_scaled = sampled_variance(2, 0)
    assert widths == [1, 2, 4, 16, 64]
    np.testing.assert_allclose(var, widths, rtol=0.1)
    np.testing.assert_allclose(var_scaled, 1, rtol=0.1)
    texts = [default.value(f"variance.var[{n}][0]")["text"] for n in range(5)]
    assert [round(float(t)) for t in texts] == [1, 2, 4, 16, 63]
    g = torch.Generator().manual_seed(0)       # an independent torch sample says the same
    for d in (4, 64):
        q, k = torch.randn(2, SAMPLES, d, generator=g, dtype=torch.float64)
        assert abs((q * k).sum(-1).var().item() / d - 1) < 0.1


def test_default_captions_follow_the_book(default):
    captions = [c[2] for c in default.scene.captions]
    assert len(captions) == 4
    assert "[T, T]" in captions[1] and "√dₖ" in captions[2] and "dₖ = 2" in captions[2]
    assert "更集中" in captions[3]


def test_the_grids_name_queries_and_keys_as_the_oracle_does(monkeypatch):
    """QKᵀ's rows are the queries and its columns the keys, each on its own row or column
    (tests/support/contract.py structure_problems with axis_names); planted: the key names reversed."""
    from support.contract import structure_problems
    from scenes.clips.score_grid.scene import ScoreGrid
    inputs = inputs_for("score-grid", tokens="Your journey starts with one step")
    assert structure_problems(build("score-grid", inputs).manifest(), names=axis_names(inputs)) == []
    original = ScoreGrid.compute

    def reversed_keys(self):
        result = original(self)
        self.k_names = self.k_names[::-1]
        return result
    monkeypatch.setattr(ScoreGrid, "compute", reversed_keys)
    problems = structure_problems(build("score-grid", inputs).manifest(), names=axis_names(inputs))
    assert any("col 0 of scores" in p and "labelled 'step'" in p for p in problems), problems[:3]


def test_a_label_without_its_row_is_named_at_a_steps_end_only():
    """Mid-derivation QKᵀ has rows with no entry yet, so their labels cannot be placed
    (partial=True passes them over); at a step's end every label must have its row. Planted: the
    entries of QKᵀ's row 1 dropped from step 2's end."""
    from support.contract import structure_problems
    m = build("score-grid", inputs_for("score-grid")).manifest()
    grid = m["layout"][1]          # step 2: QKᵀ filled
    grid["items"] = [it for it in grid["items"] if not (it.get("grid", "").startswith("scores#")
                                                        and it.get("row") == 1 and it["kind"] == "number")]
    assert any("has no row 1" in p for p in structure_problems(m))
    assert not any("has no row" in p for p in structure_problems(m, partial=True))


# ---------------------------------------------------------------- the first cell, from a row of Q and of K
def deps_of(inputs):
    """Cell (i, j) of QKᵀ is made from row i of Q and row j of K (every entry of both); its scaled
    cell from it alone (√dₖ is a constant)."""
    width = (len(inputs["wq"][0]) if inputs["x"] is not None else len(inputs["q"][0]))

    def deps(label):
        i, j = (int(n) for n in re.findall(r"\[(\d+)\]", label))
        if label.startswith("scaled"):
            return {f"scores[{i}][{j}]"}
        return {f"q[{i}][{r}]" for r in range(width)} | {f"k[{j}][{r}]" for r in range(width)}
    return deps


def derived(inputs, lang="zh"):
    built, moments = watched("score-grid", inputs, lang)
    m, deps = built.manifest(), deps_of(inputs)
    problems = derivation_problems(m, deps) + moment_problems(m, moments, oracle(inputs), deps=deps)
    return built, moments, problems + layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("score-grid")
