"""4.4–4.5: the causal-mask clip shows the lab's numbers, and PyTorch's for custom inputs.

The oracle is torch (float64): explicit triu masks, torch.softmax and
F.scaled_dot_product_attention; scenes/compute.py is never reused as the oracle.
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_refused, assert_video_with_captions, assert_shown, build, cli, inputs_for, manifest
from scenes import compute

CLIP = "causal-mask"
X = [[1, 0], [0, 1], [1, 1]]


def t64(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


def hidden_mask(n_q, n_k, diagonal=1, cached=0):
    """True where query i may not see key j: torch.triu(..., diagonal=diagonal + cached)."""
    return torch.ones(n_q, n_k, dtype=torch.bool).triu(diagonal + cached)


def attend(q, k, v, scale=True, causal=True, diagonal=1, cached=0):
    q, k, v = t64(q), t64(k), t64(v)
    scores = q @ k.T
    scaled = scores / math.sqrt(q.shape[-1]) if scale else scores
    hidden = (hidden_mask(len(q), len(k), diagonal, cached) if causal
              else torch.zeros_like(scores, dtype=torch.bool))
    mask = torch.zeros_like(scores).masked_fill(hidden, -torch.inf)
    masked = scaled.masked_fill(hidden, -torch.inf)
    weights = torch.softmax(masked, dim=-1)
    probs = torch.softmax(scaled, dim=-1)
    zeroed = probs.masked_fill(hidden, 0.0)
    return {"scores": scores, "scaled": scaled, "mask": mask, "masked": masked, "weights": weights,
            "row_sums": weights.sum(-1), "output": weights @ v, "hidden": hidden, "probs": probs,
            "zeroed": zeroed, "zeroed_sums": zeroed.sum(-1),
            "renorm": zeroed / zeroed.sum(-1, keepdim=True)}


def sdpa(q, k, v, scale=True, causal=True, diagonal=1, cached=0):
    q, k, v = t64(q), t64(k), t64(v)
    mask = (~hidden_mask(len(q), len(k), diagonal, cached)) if causal else None
    return F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask,
                                          scale=None if scale else 1.0)[0]


def shown_value(built, label):
    return built.value(label)["value"]


def check_against_torch(built, i):
    """Every family of numbers the clip draws, against the torch oracle."""
    q, k, v, t = i["q"], i["k"], i["v"], i["track"]
    opts = dict(scale=i["scale"], causal=i["causal"], diagonal=i["diagonal"], cached=i["cached"])
    o = attend(q, k, v, **opts)
    n_q, n_k = len(q), len(k)
    for c in range(q.shape[1]):
        assert_shown(built, f"q[{t}][{c}]", float(q[t, c]))
    for j in range(n_k):                                         # step 1: the lab's table
        for name in ("scores", "scaled", "masked", "weights"):
            assert_shown(built, f"{name}[{t}][{j}]", float(o[name][t, j]))
        if o["hidden"][t, j] and not torch.isnan(o["weights"][t]).any():
            assert built.value(f"weights[{t}][{j}]")["text"] == "0"
            assert built.value(f"masked[{t}][{j}]")["text"] == "\u2212\u221e"
    for c in range(v.shape[1]):
        assert_shown(built, f"output[{t}][{c}]", float(o["output"][t, c]))
    sd = sdpa(q, k, v, **opts)
    if not torch.isnan(o["output"][t]).any():
        assert torch.allclose(o["output"][t], sd[t], atol=1e-12)
    for r in range(n_q):                                         # steps 2 and 3
        assert_shown(built, f"row_sums[{r}]", float(o["row_sums"][r]))
        assert_shown(built, f"post_row_sums[{r}]", float(o["zeroed_sums"][r]))
        for j in range(n_k):
            assert_shown(built, f"mask[{r}][{j}]", float(o["mask"][r, j]), 0)
            assert_shown(built, f"weights[{r}][{j}]", float(o["weights"][r, j]))
            assert_shown(built, f"post_probs[{r}][{j}]", float(o["probs"][r, j]))
            assert_shown(built, f"post_zeroed[{r}][{j}]", float(o["zeroed"][r, j]))
            assert_shown(built, f"post_renormalised[{r}][{j}]", float(o["renorm"][r, j]))
            if o["hidden"][r, j] and not torch.isnan(o["weights"][r]).any():
                assert shown_value(built, f"weights[{r}][{j}]") == 0.0      # exactly 0
    d0 = attend(q, k, v, i["scale"], True, 0, i["cached"])      # step 4
    for r in range(n_q):
        assert_shown(built, f"row_sums_diagonal0[{r}]", float(d0["row_sums"][r]))
        for j in range(n_k):
            assert_shown(built, f"mask_diagonal0[{r}][{j}]", float(d0["mask"][r, j]), 0)
            assert_shown(built, f"weights_diagonal0[{r}][{j}]", float(d0["weights"][r, j]))
    check_causality(built, i, opts)
    check_cache_view(built, i)
    assert built.unexplained() == []


def check_causality(built, i, opts):
    """Step 5: only the last row of K and V changes, by delta; with and without the mask."""
    q, k, v, t, delta = i["q"], i["k"], i["v"], i["track"], i["delta"]
    k2, v2 = k.copy(), v.copy()
    k2[-1] += delta
    v2[-1] += delta
    for r in range(len(k)):
        for c in range(k.shape[1]):
            assert_shown(built, f"k_changed[{r}][{c}]", float(k2[r, c]), style_decimals(k2))
    for name, causal in (("causal", True), ("open", False)):
        o = {**opts, "causal": causal} if causal else {"scale": opts["scale"], "causal": False}
        before, after = attend(q, k, v, **o)["output"], attend(q, k2, v2, **o)["output"]
        shift = (after - before).abs().max(-1).values
        for r in range(len(q)):
            assert_shown(built, f"shift_{name}[{r}]", float(shift[r]))
            if shift[r] == 0:
                assert built.value(f"shift_{name}[{r}]")["text"] == "0"
        for c in range(v.shape[1]):
            assert_shown(built, f"{name}_before[{t}][{c}]", float(before[t, c]))
            assert_shown(built, f"{name}_after[{t}][{c}]", float(after[t, c]))


def style_decimals(a):
    from scenes.kit.style import decimals_for
    return decimals_for(a)


def check_cache_view(built, i):
    """Step 6: 1 = may attend; after C cached positions the first new row sees C + 1 keys."""
    n, d = len(i["q"]), i["diagonal"]
    c = i["cached"] or i["cache_view"]
    fresh = (~hidden_mask(n, n, d)).int()
    cached = (~hidden_mask(n, c + n, d, c)).int()
    assert built.value("cached")["value"] == c
    assert built.value("cache_visible[0]")["value"] == c + d
    for r in range(n):
        for j in range(n):
            assert built.value(f"fresh[{r}][{j}]")["value"] == fresh[r, j]
        for j in range(c + n):
            assert built.value(f"cache_allowed[{r}][{j}]")["value"] == cached[r, j]


# ---------------------------------------------------------------- the book's numbers
@pytest.fixture(scope="module")
def default_built():
    return build(CLIP)


def test_lab_default_five_step_table(default_built):
    built = default_built
    assert [built.value(f"q[1][{c}]")["text"] for c in range(2)] == ["0.0000", "1.0000"]
    assert [built.value(f"scores[1][{j}]")["text"] for j in range(3)] == ["0.0000", "1.0000", "1.0000"]
    assert built.value("weights[1][2]")["text"] == "0"           # the future key
    assert built.value("masked[1][2]")["text"] == "\u2212\u221e"
    assert built.scene.inputs["track"] == 1
    np.testing.assert_array_equal(built.scene.inputs["v"], X)    # V = X (the lead's choice)
    check_against_torch(built, built.scene.inputs)


def test_two_keys_preset_book_numbers():
    built = build(CLIP, inputs_for(CLIP, "two-keys"))
    texts = {r["text"] for r in built.numbers}
    assert {"0.6698", "0.3302", "13.3024"} <= texts
    assert built.value("weights[0][0]")["text"] == "0.6698"
    assert built.value("output[0][0]")["text"] == "13.3024"
    check_against_torch(built, built.scene.inputs)


def test_zero_scores_preset_rows():
    built = build(CLIP, inputs_for(CLIP, "zero-scores"))
    rows = [[built.value(f"weights[{r}][{j}]")["value"] for j in range(3)] for r in range(3)]
    np.testing.assert_allclose(rows, [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]], atol=1e-15)
    assert [built.value(f"weights[0][{j}]")["text"] for j in range(3)] == ["1.0000", "0", "0"]
    check_against_torch(built, built.scene.inputs)


def test_dry_run_two_keys_manifest(tmp_path):
    code, out = cli(CLIP, "--preset", "two-keys", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{CLIP}.numbers.json"]
    m = manifest(tmp_path / f"{CLIP}.numbers.json")
    assert {"0.6698", "0.3302", "13.3024"} <= {r["text"] for r in m["numbers"]}
    assert m["inputs"]["causal"] is False and m["inputs"]["delta"] == 10.0
    assert [s["caption"] for s in m["steps"]][0].startswith("让查询")
    assert len(m["steps"]) == 6


# ---------------------------------------------------------------- the two routes, NaN
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_post_softmax_route_equals_minus_inf_route(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    s = rng.uniform(-5, 5, (n, n))
    hidden = hidden_mask(n, n)
    ref = torch.softmax(t64(s).masked_fill(hidden, -torch.inf), -1)
    zeroed = torch.softmax(t64(s), -1).masked_fill(hidden, 0.0)
    assert (zeroed.sum(-1)[:-1] < 1).all()                          # the rows lose mass
    assert torch.allclose(zeroed / zeroed.sum(-1, keepdim=True), ref, rtol=0, atol=1e-12)
    post = compute.softmax_then_zero(s, compute.causal_mask(n, n))
    assert np.max(np.abs(post.renormalised - ref.numpy())) <= 1e-12
    assert np.max(np.abs(compute.masked_softmax(s, compute.causal_mask(n, n)) - ref.numpy())) <= 1e-12
    lesson = compute.causal_lesson(s[:, :2], s[:, :2], s[:, :2])
    assert lesson.route_gap <= 1e-12


@pytest.mark.parametrize("diagonal, cached", [(1, 0), (0, 0), (0, 2), (1, 2)])
def test_nan_row_exactly_when_the_diagonal_is_masked(diagonal, cached):
    rng = np.random.default_rng(7 + cached)
    q, k, v = (rng.uniform(-3, 3, (n, 2)) for n in (3, 3 + cached, 3 + cached))
    o = attend(q, k, v, diagonal=diagonal, cached=cached)
    expect_nan = diagonal == 0 and cached == 0                      # row 0 has no visible key
    assert bool(torch.isnan(o["weights"][0]).all()) == expect_nan
    assert not torch.isnan(o["weights"][1:]).any()
    if diagonal == 1:
        return                      # drawn by the default and random-input tests
    i = inputs_for(CLIP, q=q.tolist(), k=k.tolist(), v=v.tolist(), diagonal=diagonal, cached=cached, track=0)
    built = build(CLIP, i)
    nan_rows = {r for r in range(3) if built.value(f"weights[{r}][0]")["text"] == "NaN"}
    assert nan_rows == ({0} if expect_nan else set())
    if expect_nan:
        assert all(built.value(f"weights[0][{j}]")["text"] == "NaN" for j in range(3))
        assert built.value("output[0][0]")["text"] == "NaN"
        # SDPA agrees wherever a key is visible (this torch returns 0, not NaN, for an empty row)
        assert torch.allclose(sdpa(q, k, v, diagonal=0)[1:], o["output"][1:], atol=1e-12)
    step4 = {r for r in range(3) if built.value(f"weights_diagonal0[{r}][0]")["text"] == "NaN"}
    assert step4 == ({0} if cached == 0 else set())
    check_against_torch(built, i)


# ---------------------------------------------------------------- custom inputs
def random_inputs(seed, n_q, n_k, d, d_v, **opts):
    rng = np.random.default_rng(seed)
    q, k, v = (np.round(rng.uniform(-3, 3, shape), 2) for shape in ((n_q, d), (n_k, d), (n_k, d_v)))
    return inputs_for(CLIP, q=q.tolist(), k=k.tolist(), v=v.tolist(), **opts)


@pytest.mark.parametrize("seed, n_q, n_k, d, d_v, opts", [
    (0, 4, 4, 3, 2, {"track": 2}),
    (1, 2, 5, 2, 3, {"track": 1, "cached": 3}),
    (2, 3, 5, 4, 4, {"track": 0, "no_causal": True, "no_scale": True}),
    (3, 8, 8, 8, 8, {"track": 5, "delta": -7.5, "cache_view": 5,
                     "tokens": "Your journey starts with one step today now"}),
])
def test_random_inputs_match_torch(seed, n_q, n_k, d, d_v, opts):
    i = random_inputs(seed, n_q, n_k, d, d_v, **opts)
    built = build(CLIP, i)
    check_against_torch(built, i)
    if i["causal"] and i["cached"] == 0:                           # is_causal gives the same rows
        o = attend(i["q"], i["k"], i["v"], scale=i["scale"])
        ref = F.scaled_dot_product_attention(t64(i["q"])[None], t64(i["k"])[None], t64(i["v"])[None],
                                             is_causal=True, scale=None if i["scale"] else 1.0)[0]
        assert torch.allclose(ref, o["output"], atol=1e-12)
    if opts.get("tokens"):
        drawn = " ".join(s for _, s in built.texts)
        assert all(tok in drawn for tok in opts["tokens"].split())


def test_causality_tracked_output_unchanged_only_with_the_mask(default_built):
    built = default_built
    assert built.value("shift_causal[1]")["text"] == "0"          # exactly unchanged
    assert built.value("shift_open[1]")["value"] > 1               # moves without the mask
    captions = [c for _, _, c in built.scene.captions]
    assert "有掩码时不变，无掩码时改变" in captions[4]


def test_no_causal_mask_steps_still_read():
    built = build(CLIP, inputs_for(CLIP, no_causal=True))
    assert all(built.value(f"mask[{r}][{j}]")["text"] == "0" for r in range(3) for j in range(3))
    captions = [c for _, _, c in built.scene.captions]
    assert "掩码已关闭" in captions[1] and "两条路线相同" in captions[2]
    check_against_torch(built, built.scene.inputs)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("args, option", [
    (["--k", "1 0 0; 0 1 0; 1 1 0"], "--k"),                     # width differs from Q
    (["--v", "1 0; 0 1"], "--v"),                                 # rows differ from K
    (["--q", "1 0; 0 1"], "--k"),                                 # causal: Q rows + cached != K rows
    (["--cached", "1"], "--k"),
    (["--track", "3"], "--track"),
    (["--track", "-1"], "--track"),
    (["--diagonal", "2"], "--diagonal"),
    (["--cached", "-1"], "--cached"),
    (["--delta", "0"], "--delta"),
    (["--delta", "101"], "--delta"),
    (["--cache-view", "9"], "--cache-view"),
    (["--q", "1 0; 0 101; 1 1"], "--q"),
    (["--q", "; ".join(["1 0"] * 9)], "--q"),
    (["--v", "1 x; 0 1; 1 1"], "--v"),
    (["--tokens", "a b"], "--tokens"),
    (["--preset", "dropout"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, CLIP, args, option)


def test_no_causal_allows_q_and_k_of_different_lengths():
    i = inputs_for(CLIP, q="1 0", k="1 0; 0 1; 1 1", v="1; 2; 3", no_causal=True, track=0)
    assert (len(i["q"]), len(i["k"])) == (1, 3)


# ---------------------------------------------------------------- a real render
def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render(CLIP)
    captions = assert_video_with_captions(out, CLIP, 6)
    assert captions[5][2].startswith("缓存视角")
