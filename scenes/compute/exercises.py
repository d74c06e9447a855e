"""4.9 练习与答案: the answers to the book's exercises, computed (numpy float64, no Manim).

3.1 two layouts of the same weights (x @ W versus nn.Linear's x @ weight.T); 3.2 the
wrapper's width, heads x d_out; 3.3 the parameters of one attention module; then the
supplementary exercises: all-zero scores under the causal mask, the head shapes, the
softmax along the wrong axis, and a mask that hides the diagonal.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

# The example inputs: "Your journey starts" (the first three rows of the upstream inputs).
TOKENS = ("Your", "journey", "starts")
INPUTS = np.array([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64]])
ALIGN_SEED, ALIGN_OUT = 789, 2        # 3.1: one seeded nn.Linear-layout weight set, d_out = 2
WRAP_SEED, WRAP_HEADS, WRAP_WIDTH = 123, 2, 2   # 3.2: two heads, concatenated width 2
BOOK_WRAP_OUT = 2                     # 3.2: the wrapper's d_out before the exercise (width 4)
SHAPE_BATCH, SHAPE_TIME = 2, 5        # the shapes exercise: B = 2, T = 5
SCORE_X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])   # 4.1's three vectors: scores X Xᵀ
ZERO_T = 3                            # three all-zero scores


def linear_weights(seed: int, count: int, d_out: int, d_in: int) -> np.ndarray:
    """`count` weights in nn.Linear's layout [d_out, d_in], uniform in ±1/√d_in as
    nn.Linear draws them, rounded to two decimals so that every drawn entry is exact."""
    bound = 1 / np.sqrt(d_in)
    return np.round(np.random.default_rng(seed).uniform(-bound, bound, (count, d_out, d_in)), 2)


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax along `axis`; a row with no finite score gives NaN, as torch does."""
    scores = np.asarray(scores, float)
    with np.errstate(invalid="ignore"):
        shifted = scores - np.max(scores, axis=axis, keepdims=True)
        e = np.exp(shifted)
        return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(t: int, diagonal: int = 1) -> np.ndarray:
    """torch.triu(ones(t, t), diagonal): True where a key is hidden."""
    return np.triu(np.ones((t, t), bool), k=diagonal)


def attention(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray,
              causal: bool = False) -> np.ndarray:
    """softmax(x Wq (x Wk)ᵀ / √d_k) x Wv with W in [d_in, d_out] (SelfAttention_v1's layout)."""
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T
    if causal:
        scores = np.where(causal_mask(len(x)), -np.inf, scores)
    return softmax(scores / np.sqrt(k.shape[-1])) @ v


@dataclass(frozen=True)
class Alignment:
    x: np.ndarray
    linear: np.ndarray        # v2: three nn.Linear weights, each [d_out, d_in]
    v1: np.ndarray            # v1: the same weights transposed, each [d_in, d_out]
    out_v1: np.ndarray        # x @ W  (v1)
    out_v2: np.ndarray        # x @ weight.T  (nn.Linear in v2)
    max_diff: float


def align_versions(x: np.ndarray = INPUTS, seed: int = ALIGN_SEED, d_out: int = ALIGN_OUT) -> Alignment:
    """3.1: v2's weights, transposed, make v1 compute the same outputs."""
    linear = linear_weights(seed, 3, d_out, x.shape[1])
    v1 = np.ascontiguousarray(np.transpose(linear, (0, 2, 1)))
    out_v1 = attention(x, *v1)
    q, k, v = (x @ w.T for w in linear)                  # nn.Linear: x @ weight.T
    out_v2 = softmax(q @ k.T / np.sqrt(k.shape[-1])) @ v
    return Alignment(x, linear, v1, out_v1, out_v2, float(np.max(np.abs(out_v1 - out_v2))))


@dataclass(frozen=True)
class Wrapper:
    d_in: int
    heads: int
    d_out: int                # each head's width
    width: int                # heads x d_out
    book_d_out: int           # each head's width before the exercise
    book_width: int           # heads x book_d_out
    outputs: tuple            # one [T, d_out] per head (causal, no dropout)
    concat: np.ndarray        # [T, heads * d_out]


def wrapper_width(x: np.ndarray = INPUTS, heads: int = WRAP_HEADS, width: int = WRAP_WIDTH,
                  seed: int = WRAP_SEED) -> Wrapper:
    """3.2: independent causal heads concatenated along the last axis; each head d_out = width / heads."""
    d_out = width // heads
    weights = linear_weights(seed, 3 * heads, d_out, x.shape[1])
    outputs = tuple(attention(x, weights[3 * h].T, weights[3 * h + 1].T, weights[3 * h + 2].T, causal=True)
                    for h in range(heads))
    return Wrapper(x.shape[1], heads, d_out, heads * d_out, BOOK_WRAP_OUT, heads * BOOK_WRAP_OUT, outputs,
                   np.concatenate(outputs, axis=-1))


@dataclass(frozen=True)
class Params:
    d_model: int
    heads: int
    head_dim: int
    projections: int          # Q, K, V: bias-free D x D each
    weight: int               # D * D
    qkv: int                  # 3 D²
    out_weight: int           # D²
    out_bias: int             # D
    total: int                # 4 D² + D
    coefficient: int          # 4: the D x D weight matrices
    power: int = 2            # D² weights in each


def attention_params(d_model: int, heads: int) -> Params:
    """3.3: one multi-head attention module, QKV without bias, output projection with bias."""
    d = int(d_model)
    weight = d * d
    return Params(d, heads, d // heads, 3, weight, 3 * weight, weight, d, 4 * weight + d, 4)


@dataclass(frozen=True)
class CausalRows:
    scores: np.ndarray        # before the mask
    masked: np.ndarray        # −∞ where hidden
    weights: np.ndarray       # softmax of each row (NaN where no key is visible)
    visible: np.ndarray       # visible keys per row
    fractions: tuple          # (numerator, denominator) per cell, where the weight is finite
    diagonal: int
    sums: np.ndarray          # each row's sum (1, or NaN for a row with no visible key)
    first_empty: int          # the first row with no visible key (-1: none)
    empty_row_number: int     # that row counted from 1, as the answer says it (0: none)
    hidden: np.ndarray        # True where the mask hides the key (masked is −∞)


def causal_rows(scores: np.ndarray, diagonal: int = 1) -> CausalRows:
    """The mask triu(diagonal) applied before softmax, and the weights as fractions."""
    scores = np.asarray(scores, float)
    hidden = causal_mask(len(scores), diagonal)
    masked = np.where(hidden, -np.inf, scores)
    weights = softmax(masked)
    fractions = tuple(tuple(_fraction(w) for w in row) for row in weights)
    visible = (~hidden).sum(axis=1)
    empty = np.flatnonzero(visible == 0)
    first = int(empty[0]) if len(empty) else -1
    return CausalRows(scores, masked, weights, visible, fractions, diagonal, weights.sum(axis=1), first,
                      first + 1, hidden)


def _fraction(w: float) -> tuple | None:
    if not np.isfinite(w):
        return None
    f = Fraction(float(w)).limit_denominator(64)
    return (f.numerator, f.denominator) if abs(float(f) - w) < 1e-12 else None


def zero_scores(t: int = ZERO_T) -> CausalRows:
    """Three all-zero scores: rows (1, 0, 0), (½, ½, 0), (⅓, ⅓, ⅓)."""
    return causal_rows(np.zeros((t, t)))


@dataclass(frozen=True)
class HeadShapes:
    batch: int
    time: int
    d_model: int
    heads: int
    head_dim: int
    projected: tuple          # [B, T, D]
    split: tuple              # view  -> [B, T, H, d]
    per_head: tuple           # transpose(1, 2) -> [B, H, T, d]   (Q per head)
    scores: tuple             # Q @ Kᵀ -> [B, H, T, T]
    context: tuple            # A @ V -> [B, H, T, d]
    back: tuple               # transpose(1, 2) -> [B, T, H, d]
    merged: tuple             # reshape -> [B, T, D]
    swap: tuple = (1, 2)      # the axes that transpose swaps
    key_swap: tuple = (2, 3)  # Kᵀ: transpose(2, 3)


def head_shapes(d_model: int, heads: int, batch: int = SHAPE_BATCH, time: int = SHAPE_TIME) -> HeadShapes:
    """The shapes through split, scores and merge, from real (empty) arrays."""
    q = np.zeros((batch, time, d_model))
    split = q.reshape(batch, time, heads, d_model // heads)
    per_head = split.transpose(0, 2, 1, 3)
    scores = per_head @ per_head.transpose(0, 1, 3, 2)
    back = (scores @ per_head).transpose(0, 2, 1, 3)
    merged = back.reshape(batch, time, d_model)
    return HeadShapes(batch, time, d_model, heads, d_model // heads, q.shape, split.shape,
                      per_head.shape, scores.shape, per_head.shape, back.shape, merged.shape)


@dataclass(frozen=True)
class WrongAxis:
    scores: np.ndarray
    right: np.ndarray         # softmax(dim=-1)
    wrong: np.ndarray         # softmax(dim=-2)
    right_rows: np.ndarray    # row sums: 1
    wrong_rows: np.ndarray    # row sums: not 1 in general
    wrong_cols: np.ndarray    # column sums: 1
    rows_off: int             # rows of the wrong softmax whose sum is not 1
    row_is_off: tuple         # per row: its sum is not 1
    hidden: np.ndarray        # no mask: False everywhere (every key is seen)
    right_axis: int = -1
    wrong_axis: int = -2


def wrong_axis(x: np.ndarray = SCORE_X) -> WrongAxis:
    """softmax(scores, dim=-2) runs on any square grid, but normalises columns, not rows."""
    scores = x @ x.T
    right, wrong = softmax(scores, -1), softmax(scores, -2)
    rows = wrong.sum(axis=1)
    off = np.abs(rows - 1) > 1e-9
    return WrongAxis(scores, right, wrong, right.sum(axis=1), rows, wrong.sum(axis=0), int(off.sum()),
                     tuple(bool(b) for b in off), np.zeros(scores.shape, bool))


def diagonal_rows(x: np.ndarray = SCORE_X) -> tuple:
    """The mask with diagonal=1 (keeps the diagonal) and diagonal=0 (hides it: row 0 is NaN)."""
    scores = x @ x.T
    return causal_rows(scores, 1), causal_rows(scores, 0)
