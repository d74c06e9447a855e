"""The compute module against the book's printed numbers (4.1-4.9) and against PyTorch."""
import math
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from numpy.testing import assert_allclose

from types import SimpleNamespace

from scenes.compute import average, dropout, heads, masking, scores

# The four section modules this file checks, as one namespace (newer modules reuse some names).
C = SimpleNamespace(**{k: v for m in (scores, masking, dropout, heads) for k, v in vars(m).items()
                       if not k.startswith("_")})

X = [[1, 0], [0, 1], [1, 1]]


def t(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


# ---------------------------------------------------------------- 4.1
def test_41_scores_weights_and_mix():
    r = average.lesson(X, 1)
    assert_allclose(r.scores, [0, 1, 1])
    e = math.e
    assert_allclose(r.weights, np.array([1, e, e]) / (1 + 2 * e))
    assert_allclose(np.round(r.weights, 4), [0.1554, 0.4223, 0.4223])
    assert_allclose(np.round(r.output, 4), [0.5777, 0.8446])
    assert r.shifted_sum == pytest.approx(0, abs=1e-12)   # dividing by the sum breaks


def test_41_matrix_form_rows_sum_to_one_columns_do_not():
    r = average.lesson(X, 1)
    assert_allclose(r.gram, t(X) @ t(X).T)
    assert_allclose(r.rows, F.softmax(t(X) @ t(X).T, dim=-1))
    assert_allclose(r.cols, F.softmax(t(X) @ t(X).T, dim=-2))
    assert_allclose(r.rows_sums, 1)
    assert not np.allclose(r.cols_sums, 1)
    assert_allclose(C.softmax(r.rows, axis=0).sum(0), 1)


@pytest.mark.parametrize("seed", range(5))
def test_softmax_matches_torch(seed):
    s = np.random.default_rng(seed).uniform(-100, 100, (4, 7))
    for axis in (-1, -2):
        assert_allclose(C.softmax(s, axis), F.softmax(t(s), dim=axis), rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- 4.2 - 4.3
def test_42_projection_shapes():
    x = np.ones((6, 3))
    q, k, v = C.project(x, np.ones((3, 2))), C.project(x, np.ones((3, 2))), C.project(x, np.ones((3, 5)))
    assert q.shape == (6, 2) and C.dot_scores(q, k).shape == (6, 6)
    assert C.weighted_sum(C.softmax(C.dot_scores(q, k)), v).shape == (6, 5)


def test_43_variance_grows_with_dk_and_scaling_brings_it_back():
    r = C.score_variance((1, 4, 16, 64), samples=20000, seed=0)
    assert_allclose(r.var, r.d_ks, rtol=0.1)
    assert_allclose(r.var_scaled, 1, rtol=0.1)
    assert C.score_variance(seed=3).var.tolist() == C.score_variance(seed=3).var.tolist()


def test_43_scaled_scores_match_sdpa_scale():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    assert_allclose(C.scaled_scores(q, k), t(q) @ t(k).T / 2)


# ---------------------------------------------------------------- 4.4 and its lab
def test_44_mask_is_triu_diagonal_1():
    m = C.causal_mask(4, 4)
    assert_allclose(np.isinf(m), torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1))
    assert (m[np.isfinite(m)] == 0).all() and (m[np.isinf(m)] < 0).all()


@pytest.mark.parametrize("seed", range(6))
def test_44_attention_matches_sdpa(seed):
    rng = np.random.default_rng(seed)
    n, d, dv = rng.integers(1, 9), rng.integers(1, 9), rng.integers(1, 9)
    q, k, v = (rng.uniform(-100, 100, s) / 10 for s in ((n, d), (n, d), (n, dv)))
    for causal in (True, False):
        r = C.attention_steps(q, k, v, causal=causal)
        ref = F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=causal)
        assert_allclose(r.output, ref, rtol=1e-10, atol=1e-12)
        assert_allclose(r.row_sums, 1)
        if causal:
            assert (r.weights[np.triu_indices(n, 1)] == 0).all()   # exactly 0, not tiny


def test_44_softmax_then_zero_then_renormalise_equals_minus_inf_route():
    rng = np.random.default_rng(7)
    s = rng.standard_normal((5, 5)) * 3
    m = C.causal_mask(5, 5)
    post = C.softmax_then_zero(s, m)
    assert (post.row_sums[:-1] < 1).all() and post.row_sums[-1] == pytest.approx(1)
    assert_allclose(post.renormalised, C.masked_softmax(s, m), atol=1e-12)


def test_44_masking_the_diagonal_gives_nan_in_row_0_like_torch():
    s = np.zeros((3, 3))
    ours = C.masked_softmax(s, C.causal_mask(3, 3, diagonal=0))
    ref = F.softmax(t(s).masked_fill(torch.triu(torch.ones(3, 3, dtype=torch.bool), 0), -torch.inf), -1)
    assert np.isnan(ours[0]).all() and torch.isnan(ref[0]).all()
    assert_allclose(ours[1:], ref[1:])


def test_44_cache_view_first_new_row_sees_cached_plus_one():
    m = C.causal_mask(2, 5, cached=3)
    assert (m[0] == 0).sum() == 4 and (m[1] == 0).sum() == 5


def test_lab_two_keys():
    r = C.attention_steps([[1, 0]], [[1, 0], [0, 1]], [[10], [20]], causal=False)
    assert_allclose(np.round(r.weights[0], 4), [0.6698, 0.3302])
    assert round(float(r.output[0, 0]), 4) == 13.3024


def test_lab_zero_scores_rows():
    r = C.attention_steps(np.zeros((3, 2)), np.zeros((3, 2)), np.eye(3, 2))
    assert_allclose(r.weights, [[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]])


def test_lab_causality_only_last_row_changed():
    c = C.causality_check(X, X, X)
    assert (c.shift[:-1] == 0).all() and c.shift[-1] > 0
    off = C.causality_check(X, X, X, causal=False)
    assert (off.shift > 0).all()


# ---------------------------------------------------------------- 4.5
def test_45_future_perturbation_prefix_difference_is_zero():
    assert C.future_perturbation((2, 6, 12), heads=3, keep=4) == 0.0


def test_45_multihead_matches_torch():
    rng = np.random.default_rng(2)
    x, w_qkv, w_o, b_o = (rng.standard_normal(s) for s in ((2, 6, 12), (12, 36), (12, 12), (12,)))
    q, k, v = (a.view(2, 6, 3, 4).transpose(1, 2) for a in (t(x) @ t(w_qkv)).chunk(3, -1))
    z = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(2, 6, 12)
    assert_allclose(C.multihead_attention(x, w_qkv, w_o, b_o, 3), z @ t(w_o) + t(b_o), atol=1e-12)


# ---------------------------------------------------------------- 4.6 and its lab
@pytest.mark.parametrize("bits, total", [("101", 1.4), ("010", 0.6), ("001", 1.0), ("000", 0.0)])
def test_46_one_mask_at_a_time(bits, total):
    w, keep = [0.2, 0.3, 0.5], [b == "1" for b in bits]
    row = C.dropout_row(w, keep, 0.5)
    assert_allclose(row, t(w) * torch.tensor(keep) / (1 - 0.5))
    assert row.sum() == pytest.approx(total)


def test_46_expectation_equals_the_row_exactly():
    w = [Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)]
    for p in (Fraction(1, 2), Fraction(1, 5)):
        r = C.dropout_table([float(a) for a in w], float(p))
        assert_allclose(r.mean_row, [float(a) for a in w], atol=1e-12)
        assert r.expected_sum == pytest.approx(1, abs=1e-12)
        assert r.probs.sum() == pytest.approx(1)


def test_46_sampling_follows_nn_dropout_semantics():
    w = np.array([0.2, 0.3, 0.5])
    s = C.sample_dropout(w, 0.5, 4000, seed=0)
    assert set(np.unique(s.rows / w)) <= {0.0, 2.0}
    assert abs(s.masks.mean() - 0.5) < 0.03
    assert_allclose(s.running_mean[-1], w, atol=0.03)
    assert (C.sample_dropout(w, 0.5, 10, seed=4).masks == C.sample_dropout(w, 0.5, 10, seed=4).masks).all()
    torch.manual_seed(0)
    ref = F.dropout(t(np.tile(w, (4000, 1))), 0.5, training=True)
    assert set(torch.unique(ref / t(w)).tolist()) <= {0.0, 2.0}


def test_46_eval_mode_and_zero_weights():
    w = [0.0, 0.4, 0.6]
    assert_allclose(C.dropout_row(w, [0, 0, 0], 0.5, mode="eval"), w)
    assert_allclose(F.dropout(t(w), 0.5, training=False), w)
    assert C.dropout_row(w, [1, 1, 1], 0.5)[0] == 0


# ---------------------------------------------------------------- 4.7
def test_47_lab_path_of_e2_and_the_wrong_merge():
    e2 = C.track_element((1, 3, 4), 2, 2)
    assert (e2.start, e2.split, e2.transposed, e2.back, e2.merged) == (
        (0, 0, 2), (0, 0, 1, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 2))
    assert e2.wrong == (0, 1, 2) and e2.head_dim == 2 and e2.score_shape == (1, 2, 3, 3)
    e6 = C.track_element((1, 3, 4), 2, 6)
    assert e6.start == (0, 1, 2) and e6.wrong == (0, 2, 0)


def test_47_layouts_match_torch_reshape_transpose():
    ids = torch.arange(2 * 4 * 12).reshape(2, 4, 12)
    lay = C.head_layouts((2, 4, 12), 4)
    split = ids.reshape(2, 4, 4, 3)
    assert (lay["transposed"] == split.transpose(1, 2).numpy()).all()
    assert (lay["merged"] == ids.numpy()).all()
    assert (lay["wrong"] == split.transpose(1, 2).reshape(2, 4, 12).numpy()).all()


# ---------------------------------------------------------------- 4.8 - 4.9
def test_48_hand_written_attention_matches_sdpa_on_2_3_5_4():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    ours = np.stack([[C.attention_steps(q[b, h], k[b, h], v[b, h]).output for h in range(3)]
                     for b in range(2)])
    diff = np.abs(ours - F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()).max()
    assert diff < 1e-14          # the book records about 2.78e-16


def test_49_gpt2_attention_parameter_count():
    assert C.attention_param_count(768) == 4 * 768 ** 2 + 768 == 2_360_064
    qkv, out = torch.nn.Linear(768, 3 * 768, bias=False), torch.nn.Linear(768, 768)
    assert sum(p.numel() for p in [*qkv.parameters(), *out.parameters()]) == 2_360_064


def test_49_exercise_shapes():
    x = torch.zeros(2, 5, 12)
    q = x.view(2, 5, 3, 4).transpose(1, 2)
    assert tuple(q.shape) == (2, 3, 5, 4)
    assert C.track_element((2, 5, 12), 3, 0).score_shape == (2, 3, 5, 5)
    assert tuple(q.transpose(1, 2).reshape(2, 5, 12).shape) == (2, 5, 12)
