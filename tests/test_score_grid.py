"""4.2-4.3: the score-grid clip shows PyTorch's numbers: projections, QK^T, the scaled grid,
the sampled variances and one row's softmax with and without scaling."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_refused, assert_video_with_captions, assert_shown, build, cli, inputs_for, manifest
from scenes import compute

JOURNEY = ("0.43 0.15 0.89; 0.55 0.87 0.66; 0.57 0.85 0.64; 0.22 0.58 0.33; "
           "0.77 0.25 0.10; 0.05 0.80 0.55")
TOKENS = "Your journey starts with one step"


def mat(a):
    return "; ".join(" ".join(repr(float(v)) for v in row) for row in np.asarray(a))


def upstream_weights():
    """ch03: torch.manual_seed(123); W_query, W_key, W_value = torch.rand(3, 2) three times."""
    torch.manual_seed(123)
    return [torch.rand(3, 2) for _ in range(3)]


def oracle(q, k, v=None):
    q, k = torch.tensor(q, dtype=torch.float64), torch.tensor(k, dtype=torch.float64)
    scores = q @ k.T
    d_k = q.shape[-1]
    scaled = scores / math.sqrt(d_k)
    spread = scores.max(-1).values - scores.min(-1).values
    row = int(torch.argmax(spread))
    out = {"scores": scores, "scaled": scaled, "d_k": d_k, "row": row,
           "raw": F.softmax(scores[row], -1), "soft": F.softmax(scaled[row], -1)}
    if v is not None:   # SDPA's default scale is 1/sqrt(d_k): the same weights
        v = torch.tensor(v, dtype=torch.float64)
        sdpa = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        assert torch.allclose(sdpa, F.softmax(scaled, -1) @ v)
    return out


def check_against_torch(built, inputs):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    o = oracle(q, k, v)
    d = built.value("scores[0][0]")["text"].split(".")
    score_decimals = len(d[1]) if len(d) > 1 else 0
    for name, a in (("q", q), ("k", k)) + ((("v", v),) if v is not None else ()):
        for (i, j), val in np.ndenumerate(a):
            text = built.value(f"{name}[{i}][{j}]")["text"]
            assert_shown(built, f"{name}[{i}][{j}]", float(val), len(text.partition(".")[2]))
    for (i, j), val in np.ndenumerate(o["scores"].numpy()):
        assert_shown(built, f"scores[{i}][{j}]", float(val), score_decimals)
        assert_shown(built, f"scaled[{i}][{j}]", float(o["scaled"][i, j]))
    row = o["row"]
    for j in range(len(k)):
        assert_shown(built, f"row.scores[0][{j}]", float(o["scores"][row, j]), score_decimals)
        assert_shown(built, f"row.scaled[0][{j}]", float(o["scaled"][row, j]))
        assert_shown(built, f"weights_raw[0][{j}]", float(o["raw"][j]))
        assert_shown(built, f"weights_scaled[0][{j}]", float(o["soft"][j]))
    assert_shown(built, "peak_raw", float(o["raw"].max()))
    assert_shown(built, "peak_scaled", float(o["soft"].max()))
    assert_shown(built, "scale", math.sqrt(o["d_k"]))
    assert built.value("d_k")["value"] == o["d_k"]
    assert built.value("scores.shape[0]")["value"] == len(q)
    assert built.value("scores.shape[1]")["value"] == len(k)
    assert built.unexplained() == []
    return o


@pytest.fixture(scope="module")
def default():
    return build("score-grid")


# ---------------------------------------------------------------- compute vs torch and the book
def test_compute_reproduces_upstream_ch03_numbers():
    wq, wk, wv = upstream_weights()
    x32 = torch.tensor(np.array([[float(c) for c in r.split()] for r in JOURNEY.split(";")]),
                       dtype=torch.float32)
    q32, k32 = x32 @ wq, x32 @ wk
    r = compute.score_grid(x=x32.double().numpy(), wq=wq.double().numpy(), wk=wk.double().numpy(),
                           wv=wv.double().numpy())
    np.testing.assert_allclose(r.q, q32.numpy(), atol=1e-6)
    np.testing.assert_allclose(r.scores, (q32 @ k32.T).numpy(), atol=1e-5)
    # The upstream notebook's printed query_2, attn_scores_2 and attn_weights_2.
    np.testing.assert_allclose(r.q[1], [0.4306, 1.4551], atol=5e-5)
    np.testing.assert_allclose(r.scores[1], [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440], atol=5e-5)
    assert r.query == 1 and r.d_k == 2
    np.testing.assert_allclose(r.weights_scaled, [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820],
                               atol=5e-5)
    np.testing.assert_allclose(r.weights_scaled, F.softmax(q32[1] @ k32.T / 2 ** 0.5, -1), atol=1e-6)


def test_variance_grows_with_d_k_and_is_near_one_after_scaling():
    r = compute.score_grid(q=np.ones((2, 8)), k=np.ones((3, 8)), seed=5)
    v = r.variance
    assert 8 in v.d_ks and v.d_ks[r.own] == 8 and list(v.d_ks) == sorted(v.d_ks)
    rng = np.random.default_rng(5)     # the same draws, the arithmetic done by torch
    for n, d in enumerate(v.d_ks):
        q, k = (torch.tensor(a) for a in rng.standard_normal((2, v.samples, d)))
        dots = (q * k).sum(-1)
        assert math.isclose(v.var[n], dots.var(unbiased=False).item(), rel_tol=1e-12)
        assert math.isclose(v.var_scaled[n], (dots / math.sqrt(d)).var(unbiased=False).item(),
                            rel_tol=1e-12)
    np.testing.assert_allclose(v.var, v.d_ks, rtol=0.1)       # Var(q.k) ~ d_k
    np.testing.assert_allclose(v.var_scaled, 1, rtol=0.1)     # ~ 1 after dividing by sqrt(d_k)
    # An independent torch sample says the same.
    g = torch.Generator().manual_seed(0)
    for d in (4, 64):
        q, k = torch.randn(2, 20000, d, generator=g, dtype=torch.float64)
        assert abs((q * k).sum(-1).var().item() / d - 1) < 0.1


# ---------------------------------------------------------------- the clip's manifest
def test_default_shows_upstream_numbers(default):
    inputs = inputs_for("score-grid")
    o = check_against_torch(default, inputs)
    assert o["row"] == 1
    texts = lambda prefix: [r["text"] for r in default.numbers if r["label"].startswith(prefix)]
    assert texts("q[1]") == ["0.4306", "1.4551"]
    assert [default.value(f"scores[1][{j}]")["text"] for j in range(6)] == \
        ["1.2705", "1.8524", "1.8111", "1.0795", "0.5577", "1.5440"]
    assert [default.value(f"weights_scaled[0][{j}]")["text"] for j in range(6)] == \
        ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
    drawn = " ".join(s for _, s in default.texts)
    assert all(t in drawn for t in TOKENS.split())
    assert inputs["tokens"] == TOKENS.split()


def test_default_variance_step_uses_the_heads_width(default):
    r = default.scene.result
    assert r.d_k == 2 and r.variance.d_ks[r.own] == 2
    for n, d in enumerate(r.variance.d_ks):
        assert default.value(f"variance.d_k[{n}][0]")["value"] == d
        assert_shown(default, f"variance.var[{n}][0]", float(r.variance.var[n]))
        assert_shown(default, f"variance.var_scaled[{n}][0]", float(r.variance.var_scaled[n]))
    assert default.value("variance.samples")["value"] == r.variance.samples
    steps = default.scene.captions
    assert len(steps) == 4 and "√dₖ" in steps[2][2]


def test_six_token_direct_input_with_labels():
    rng = np.random.default_rng(11)
    q, k, v = (np.round(rng.uniform(-3, 3, (6, 3)), 2) for _ in range(3))
    labels = "the cat sat on the mat"
    inputs = inputs_for("score-grid", q=mat(q), k=mat(k), v=mat(v), tokens=labels)
    built = build("score-grid", inputs)
    check_against_torch(built, inputs)
    drawn = [s for _, s in built.texts]
    assert all(drawn.count(t) >= 3 for t in labels.split())   # rows, columns, and Q/K/V rows


def test_a_presets_tokens_stay_with_its_own_rows():
    assert inputs_for("score-grid")["tokens"] == TOKENS.split()
    assert inputs_for("score-grid", x="1 0 0; 0 1 0")["tokens"] is None
    assert inputs_for("score-grid", q="1 0; 0 1", k="1 0; 0 1")["tokens"] is None
    assert inputs_for("score-grid", q="1 0; 0 1", k="1 0; 0 1", tokens="a b")["tokens"] == ["a", "b"]


def test_random_projection_input_8x8_matches_torch():
    rng = np.random.default_rng(2024)
    x = np.round(rng.uniform(-2, 2, (8, 8)), 2)
    ws = [np.round(rng.uniform(-1, 1, (8, 8)), 4) for _ in range(3)]
    inputs = inputs_for("score-grid", x=mat(x), wq=mat(ws[0]), wk=mat(ws[1]), wv=mat(ws[2]))
    assert inputs["tokens"] is None      # the default's tokens label only the default's X
    tx = torch.tensor(x)
    for name, w in zip("qkv", ws):
        np.testing.assert_allclose(inputs[name], (tx @ torch.tensor(w)).numpy(), atol=1e-12)
    check_against_torch(build("score-grid", inputs), inputs)


def test_dry_run_manifest_has_torchs_scores_for_given_q_k(tmp_path):
    q, k = "1 0 2; 0 1 -1; 1 1 0.5", "0.5 -1 1; 2 0 0; -1 1 1; 0 0 3"
    code, out = cli("score-grid", "--q", q, "--k", k, "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["score-grid.numbers.json"]
    m = manifest(tmp_path / "score-grid.numbers.json")
    shown = {r["label"]: r for r in m["numbers"]}
    qi = inputs_for("score-grid", q=q, k=k)
    assert qi["tokens"] is None
    o = oracle(qi["q"], qi["k"])
    for (i, j), val in np.ndenumerate(o["scores"].numpy()):
        assert math.isclose(shown[f"scores[{i}][{j}]"]["value"], val, abs_tol=1e-12)
        assert math.isclose(shown[f"scaled[{i}][{j}]"]["value"], o["scaled"][i, j].item(), abs_tol=1e-12)
        assert abs(float(shown[f"scaled[{i}][{j}]"]["text"].replace("\u2212", "-"))
                   - o["scaled"][i, j].item()) <= 5e-5
    assert m["inputs"]["q"] == qi["q"].tolist() and len(m["steps"]) == 4


# ---------------------------------------------------------------- bad input
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
    (["--preset", "dropout"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "score-grid", args, option)


# ---------------------------------------------------------------- a real video
def test_tiny_real_render_reads_back(tiny_render):
    inputs = inputs_for("score-grid", q="1 0; 0 1; 1 1", k="1 0; 0 1; 1 1", v="1; 2; 3")
    out = tiny_render("score-grid", inputs)
    captions = assert_video_with_captions(out, "score-grid", 4)
    assert "softmax" in captions[3][2]
