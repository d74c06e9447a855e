"""4.4's last paragraph: pads under the causal mask (scenes/compute/padding.py), against torch
(float64): the key-padding mask as a boolean key mask, the causal mask from torch.triu, F.softmax of
the scores with −∞ filled in, and F.scaled_dot_product_attention with the boolean mask. The book's
three statements as assertions: left padding empties exactly the pad rows; right padding empties
none; keeping the diagonal does not save a pad row. Planted: a mask one key off, a union that drops
the causal part, a visible count of the hidden keys; each caught.
"""
import dataclasses
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from scenes.compute import masking, padding


def t64(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


def torch_padded(q, k, v, pads, side, diagonal=1, cached=0, causal=True):
    """(hidden, weights, sdpa output) by torch: keys hidden by padding or by the future."""
    q, k, v = t64(q), t64(k), t64(v)
    n_q, n_k = len(q), len(k)
    keys = torch.arange(n_k)
    pad = keys < pads if side == "left" else keys >= n_k - pads
    future = torch.ones(n_q, n_k, dtype=torch.bool).triu(diagonal + cached) if causal else \
        torch.zeros(n_q, n_k, dtype=torch.bool)
    hidden = pad[None, :] | future
    scores = q @ k.T / q.shape[-1] ** 0.5
    weights = F.softmax(scores.masked_fill(hidden, -torch.inf), dim=-1)
    sdpa = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=~hidden)[0]
    return hidden, weights, sdpa


def lesson(q, k, v, pads, side, diagonal=1, cached=0, causal=True):
    return masking.causal_lesson(q, k, v, 0, True, causal, diagonal, cached, pad=pads, pad_side=side).padding


def generated(seed):
    """T ≤ 8 keys, P < T pads, entries ±100 or small, both sides, some cached, some diagonal 0."""
    rng = random.Random(f"padding-{seed}")
    n_k = rng.randint(1, 8)
    cached = rng.choice([0, 0, 0, rng.randint(0, n_k - 1)])
    n_q, d, d_v = n_k - cached, rng.randint(1, 8), rng.randint(1, 8)
    pick = rng.choice([[100, -100], [1, -1, 0.5, 0], [1e-5, -1e-5, 3]])
    mat = lambda r, c: [[rng.choice(pick) for _ in range(c)] for _ in range(r)]   # noqa: E731
    return dict(q=mat(n_q, d), k=mat(n_k, d), v=mat(n_k, d_v), pads=rng.randrange(n_k),
                side=rng.choice(padding.SIDES), diagonal=rng.choice([1, 1, 0]), cached=cached,
                causal=rng.random() < 0.85)


CASES = [generated(s) for s in range(60)]


def problems(case, p=None):
    """What the lesson's side says that torch does not."""
    p = p or lesson(**case)
    hidden, weights, sdpa = torch_padded(**case)
    r, out = p.shown, []
    if not np.array_equal(r.hidden, hidden.numpy()):
        out.append("hidden")
    if not np.array_equal(np.isinf(r.union), hidden.numpy()) or not np.all(r.union[~r.hidden] == 0):
        out.append("union")
    if r.visible.tolist() != (~hidden).sum(-1).tolist():
        out.append("visible")
    empty = hidden.all(-1)
    if r.empty_rows.tolist() != empty.nonzero().flatten().tolist():
        out.append("empty_rows")
    if not np.allclose(r.weights, weights.numpy(), rtol=1e-12, atol=1e-15, equal_nan=True):
        out.append("weights")
    # torch 2.13.0's SDPA returns 0 (not NaN) for a row whose boolean mask is all False; the
    # maths (and softmax of a row of −∞) is 0 / 0: NaN, which is what the lesson keeps
    if empty.any() and not torch.all(sdpa[empty] == 0):
        out.append("sdpa of an empty row is no longer 0 in this torch")
    want = torch.where(empty[:, None], torch.nan, sdpa).numpy()
    scale = np.abs(np.nan_to_num(weights.numpy())) @ np.abs(np.asarray(case["v"], float)) + 1.0
    if not (np.array_equal(np.isnan(r.output), np.isnan(want))
            and np.all(np.abs(np.nan_to_num(r.output - want)) <= 1e-12 * scale)):
        out.append("output")
    return out


@pytest.mark.parametrize("n", range(len(CASES)))
def test_generated_padding_agrees_with_torch(n):
    assert problems(CASES[n]) == []


def test_the_cases_reach_empty_rows_and_none():
    empties = [len(lesson(**c).shown.empty_rows) > 0 for c in CASES]
    assert any(empties) and not all(empties)
    assert {c["side"] for c in CASES} == {"left", "right"}
    assert any(c["pads"] == len(c["k"]) - 1 > 0 for c in CASES)        # P = T − 1: the most pads


def test_sdpa_returns_zero_for_an_all_masked_row_in_the_pinned_torch():
    """torch 2.13.0: F.scaled_dot_product_attention with a boolean mask whose row is all False gives
    that row 0 (F.softmax of the same −∞ row gives NaN). The lesson follows the maths: NaN."""
    assert torch.__version__.startswith("2.13.0")
    q = [[1, 0], [0, 1], [1, 1]]
    hidden, weights, sdpa = torch_padded(q, q, q, 2, "left")
    assert torch.isnan(weights[:2]).all() and torch.equal(sdpa[:2], torch.zeros(2, 2, dtype=torch.float64))
    assert np.isnan(lesson(q, q, q, 2, "left").shown.output[:2]).all()


BOOK = [[1, 0], [0, 1], [1, 1]]


def test_book_three_positions_two_left_pads():
    """N = 2 on the book's three positions: rows 0 and 1 empty (NaN), row 2 sees only itself."""
    p = lesson(BOOK, BOOK, BOOK, 2, "left").shown
    assert p.empty_rows.tolist() == [0, 1] and p.visible.tolist() == [0, 0, 1]
    assert p.weights[2].tolist() == [0.0, 0.0, 1.0] and np.isnan(p.weights[:2]).all()
    assert p.by_padding[:, :2].all() and p.by_future.tolist() == [[False, False, True]] * 2 + [[False] * 3]


@pytest.mark.parametrize("n_k", range(1, 9))
def test_book_left_padding_empties_exactly_the_pad_rows(n_k):
    q = np.eye(n_k)[:, :max(1, min(n_k, 3))] + 1
    for pads in range(n_k):
        p = lesson(q, q, q[:, :1], pads, "left")
        assert p.shown.empty_rows.tolist() == list(range(pads)) == p.pad_rows.tolist()


@pytest.mark.parametrize("n_k", range(1, 9))
def test_book_right_padding_empties_no_row(n_k):
    q = np.ones((n_k, 2))
    for pads in range(n_k):
        p = lesson(q, q, q, pads, "right")
        assert len(p.shown.empty_rows) == 0 and (p.shown.visible >= 1).all()
        assert p.other.side == "left" and len(p.other.empty_rows) == pads


@pytest.mark.parametrize("n_k", range(2, 9))
def test_book_keeping_the_diagonal_does_not_save_a_pad_row(n_k):
    """diagonal=1 keeps each query's own key; a left pad row's own key is a pad: still empty. Masking
    the diagonal too (diagonal=0) empties one row more."""
    q = np.ones((n_k, 2))
    for pads in range(1, n_k):
        kept, masked = lesson(q, q, q, pads, "left", 1), lesson(q, q, q, pads, "left", 0)
        assert all(not kept.shown.hidden[i, i] or kept.shown.by_padding[i, i] for i in range(n_k))
        assert set(kept.pad_rows) <= set(kept.shown.empty_rows)
        assert masked.shown.empty_rows.tolist() == list(range(pads + 1))


@pytest.mark.parametrize("bad", [(-1, "left"), (3, "left"), (1, "top")])
def test_illegal_pads_are_refused(bad):
    with pytest.raises(ValueError):
        padding.pad_keys(3, *bad)


# ---------------------------------------------------------------- planted
def off_by_one(n_k, pads, side="left"):
    j = np.arange(n_k)
    return (j >= 1) & (j <= pads) if side == "left" else j >= n_k - pads - 1


def union_without_future(p):
    return dataclasses.replace(p, hidden=p.by_padding, union=p.padding, visible=np.sum(~p.by_padding, -1))


def visible_counts_hidden(p):
    return dataclasses.replace(p, visible=np.sum(p.hidden, -1))


@pytest.mark.parametrize("plant, caught", [("keys", "hidden"), ("union", "union"), ("count", "visible")])
def test_planted_padding_bugs_are_caught(monkeypatch, plant, caught):
    case = dict(q=BOOK, k=BOOK, v=BOOK, pads=1, side="left")
    if plant == "keys":
        monkeypatch.setattr(padding, "pad_keys", off_by_one)
        p = lesson(**case)
    else:
        p = lesson(**case)
        bad = (union_without_future if plant == "union" else visible_counts_hidden)(p.shown)
        p = dataclasses.replace(p, shown=bad)
    assert caught in problems(case, p)
