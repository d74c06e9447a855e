"""4.2-4.3, the score-grid clip: captions chosen by the data, the largest inputs paged through
legible boards, the dry run's manifest, bad input refused (split from tests/clips/test_score_grid.py)."""
import dataclasses
import math
import random

import numpy as np
import pytest

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from scenes.compute import scores
from scenes.kit.scene.inputs import InputError
from support.score_grid_oracle import CJK, legal_inputs, t64


# ---------------------------------------------------------------- captions chosen by the data
def captions_of(**given):
    return [c[2] for c in build("score-grid", inputs_for("score-grid", **given)).scene.captions]


def test_saturated_rows_do_not_claim_sharper_weights():
    """Both rows show 1.0000 for the winning key: no 'more concentrated' claim."""
    caption = captions_of(q="100 100; 1 0", k="100 100; -100 -100")[3]
    assert "更集中" not in caption and "相同" in caption


def test_one_key_and_width_one_are_said_as_they_are():
    assert "只有一个键" in captions_of(q="1 2; 3 4", k="5 6")[3]
    one = captions_of(q="1; 2", k="3; -1")
    assert "dₖ = 1" in one[3] and "更集中" not in one[3]
    assert "[T_q, T_k]" in captions_of(q="1 2; 3 4", k="5 6")[1]


def test_equal_scores_give_uniform_weights():
    caption = captions_of(q="0 0; 0 0", k="1 2; 3 4")[3]
    assert "均匀" in caption and "更集中" not in caption


# ---------------------------------------------------------------- facts the clip reads from the result
def result_of(**given):
    i = inputs_for("score-grid", **given)
    return scores.score_grid(q=i["q"], k=i["k"], v=i["v"], x=i["x"], wq=i["wq"], wk=i["wk"], wv=i["wv"],
                             seed=i["seed"], samples=50)


def fact_problems(r):
    """Each flatness fact of `r` that plain Python on r's own scores does not give, named."""
    want = {"scores_flat": len(set(r.scores.ravel().tolist())) == 1,
            "query_flat": len(set(r.scores[r.query].tolist())) == 1}
    return [f"{field}: {getattr(r, field)!r}, plain Python gives {v!r}" for field, v in want.items()
            if getattr(r, field) is not v]


@pytest.mark.parametrize("given", [{"q": "0 0; 0 0", "k": "1 2; 3 4"},        # every score 0
                                   {"q": "1 0; 0 0", "k": "1 2; 3 4"},        # row 1 flat, not the one shown
                                   {"q": "1 1", "k": "1 0; 0 1; 2 -1"},       # the shown row flat, one row
                                   {}])
def test_flat_scores_and_rows_are_facts_of_the_result(given):
    assert fact_problems(result_of(**given)) == []


@pytest.mark.parametrize("seed", range(20))
def test_flat_facts_of_generated_inputs(seed):
    assert fact_problems(result_of(**legal_inputs(random.Random(seed)))) == []


@pytest.mark.parametrize("field", ["scores_flat", "query_flat"])
def test_a_wrong_flat_fact_is_named(field):
    """Planted: one fact flipped; the check names it."""
    r = result_of(q="1 0; 0 0", k="1 2; 3 4")
    problems = fact_problems(dataclasses.replace(r, **{field: not getattr(r, field)}))
    assert len(problems) == 1 and problems[0].startswith(field + ":")


def test_the_range_rule_checks_the_product_that_is_drawn(monkeypatch):
    """Planted: the compute module's projection made 1000 times larger; the rule refuses it."""
    given = {"x": "1 0; 0 1", "wq": "1 0; 0 1", "wk": "1 0; 0 1", "wv": "1; 1"}
    assert inputs_for("score-grid", **given)["q"].tolist() == [[1, 0], [0, 1]]
    real = scores.project
    monkeypatch.setattr(scores, "project", lambda x, w: 1000 * real(x, w))
    with pytest.raises(InputError, match="wq"):
        inputs_for("score-grid", **given)


# ---------------------------------------------------------------- the largest inputs
def test_largest_inputs_page_through_legible_boards():
    """8x8 X and W with +-100, 1/3 and 0.00001, twelve-character CJK tokens, the largest seed:
    boards too full for one frame become captioned steps of their own (X, each W, each product;
    the table, then the scaled grid), column labels are abbreviated, rows keep whole tokens."""
    from support.cases import proven
    rng = random.Random(7)
    pool_x = ["100", "-100", "1/3", "0.00001", "-99.99", "-1/3", "33.3333", "-0.00001"]
    pool_w = ["0.125", "-0.125", "1/24", "0.00001", "-1/24", "0.1249", "-0.0001"]
    tab = lambda pool: "; ".join(" ".join(rng.choice(pool) for _ in range(8)) for _ in range(8))
    names = ["".join(rng.choice(CJK) for _ in range(12)) for _ in range(8)]
    inputs = inputs_for("score-grid", x=tab(pool_x), wq=tab(pool_w), wk=tab(pool_w), wv=tab(pool_w),
                        tokens=" ".join(names), seed="2147483647")
    built, problems = proven("score-grid", inputs)
    assert problems == [], "\n".join(problems[:20])
    captions = [c[2] for c in built.scene.captions]
    assert len(captions) > 4
    assert "W_Q 把每行从 D_in = 8 维投影到 dₖ = 8 维。" in captions
    assert any(c.startswith("Q = X W_Q") for c in captions)
    assert any("本例 dₖ = 8" in c for c in captions)
    labels = [t for _, t in built.texts]
    assert all(labels.count(n) >= 2 for n in names)            # X rows and score rows, whole
    assert any(t.endswith("…") and names[0].startswith(t[:-1]) for t in labels)


# ---------------------------------------------------------------- files and bad input
def test_dry_run_manifest_holds_torchs_scores_for_given_q_k(tmp_path):
    q, k = "1 0 2; 0 1 -1; 1 1 0.5", "0.5 -1 1; 2 0 0; -1 1 1; 0 0 3"
    code, out = cli("score-grid", "--q", q, "--k", k, "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "score-grid.numbers.json" in names and not any(n.endswith((".mp4", ".png")) for n in names)
    m = manifest(tmp_path / "score-grid.numbers.json")
    shown = {r["label"]: r["value"] for r in m["numbers"]}
    expected = t64([[1, 0, 2], [0, 1, -1], [1, 1, 0.5]]) @ t64([[0.5, -1, 1], [2, 0, 0], [-1, 1, 1],
                                                                  [0, 0, 3]]).T
    for (i, j), val in np.ndenumerate(expected.numpy()):
        assert math.isclose(shown[f"scores[{i}][{j}]"], val, abs_tol=1e-12)
    assert len(m["steps"]) == 4 and m["inputs"]["tokens"] is None


NINE = "; ".join(["1 0"] * 9)


@pytest.mark.parametrize("args, option", [
    (["--q", "1 0; 0 1", "--k", "1 0 0; 0 1 0"], "--k"),          # Q, K widths differ
    (["--q", "1 0; 0 1", "--k", "1 0; 0 1", "--v", "1; 2; 3"], "--v"),   # K, V rows differ
    (["--q", "1 0; 0 101", "--k", "1 0; 0 1"], "--q"),            # out of [-100, 100]
    (["--q", "1 0; 0 1", "--k", "1 0; -100.5 1"], "--k"),
    (["--q", NINE, "--k", "1 0; 0 1"], "--q"),                   # more than 8 positions
    (["--q", "1 2 3 4 5 6 7 8 9", "--k", "1 2 3 4 5 6 7 8 9"], "--q"),   # more than 8 columns
    (["--q", "1 0; 0 1"], "--k"),                                # Q without K
    (["--q", "1 nan", "--k", "1 0"], "--q"),
    (["--x", NINE.replace("1 0", "1 0 0")], "--x"),
    (["--x", "1 0; 0 1"], "--wq"),                               # W_Q rows != D_in
    (["--wk", "1 0 0; 0 1 0; 0 0 1"], "--wk"),                   # d_k of W_K != W_Q's
    (["--x", "100 100 100", "--wq", "1 0; 1 0; 1 0"], "--wq"),    # X W_Q leaves [-100, 100]
    (["--tokens", "a b c"], "--tokens"),                         # wrong count
    (["--q", "1 0", "--k", "1 0; 0 1", "--tokens", "a"], "--tokens"),   # T_q != T_k: no axis labels
    (["--seed", "-1"], "--seed"),
    (["--seed", "2147483648"], "--seed"),
    (["--preset", "dropout"], "--preset"),
    (["--step", "5", "--dry-run"], "--step"),                     # past the last of 4 steps
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "score-grid", args, option)


def test_the_largest_seed_is_accepted():
    assert inputs_for("score-grid", seed="2147483647")["seed"] == 2**31 - 1


def test_tiny_real_render_reads_back(tiny_render):
    inputs = inputs_for("score-grid", q="1 0; 0 1; 1 1", k="1 0; 0 1; 1 1", v="1; 2; 3")
    out = tiny_render("score-grid", inputs)
    captions = assert_video_with_captions(out, "score-grid", 4)
    assert "softmax" in captions[3][2]


@pytest.mark.parametrize("seed", [60, 69, 188, 200])
def test_the_sweeps_cases_keep_the_contract(seed):
    """Cases tests/support/sweep.py found. 60, 69, 188: step 4's rows of QKᵀ and QKᵀ/√dₖ are grids of
    their own; drawn at the decimals the whole grid takes (one where it reaches 10⁴), a row whose
    values fit in 7 characters with more broke display rule 3. 200: a score that cancels to 0 was
    drawn 2.887e−15 (now the products are summed exactly)."""
    from support.cases import generated, proven
    _, inputs = generated("score-grid", seed)
    _, problems = proven("score-grid", inputs, lang="en" if seed % 2 else "zh")
    assert problems == [], problems[:5]
