"""4.1 for any legal input: scores, why s / sum(s) fails, the stable softmax, the mix.

Everything the weighted-average clip states about its input is decided here, from
the numbers: which way s / sum(s) breaks, whether e^s must be shifted by max(s) to
stay finite, whether the weights pick one input or mix them, and whether the rows
of softmax(dim=-2) happen to sum to one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from scenes.compute.provenance import SHAPE, Const, Source

PLAIN_EXP_LIMIT = 10.0     # e^s is drawn as it is while |max s| <= this (e^10 ~ 22026)
SHOWN_ONE = 5e-5           # a weight within this of 1 is drawn as 1.0000: one input is picked


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Stable softmax, as PyTorch computes it: e^(s - max) / sum."""
    s = np.asarray(scores, float)
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def divide_case(scores: np.ndarray, total: float) -> str:
    """How s / sum(s) fares on these scores.

    "zero": the sum is 0, nothing to divide by; "negative": some s_j / sum is below 0;
    "works": non-negative shares summing to 1 (the book's example). The query's own score
    |x_q|^2 is >= 0, so a negative sum always makes some share negative.
    """
    if total == 0:
        return "zero"
    return "negative" if np.any(scores / total < 0) else "works"


@dataclass(frozen=True)
class Lesson:
    x: np.ndarray            # [T, D] inputs
    query: int
    products: np.ndarray     # [T, D] x_query[r] * x_j[r]
    scores: np.ndarray       # [T] dot products with the query
    scores_sum: float        # exactly rounded sum (math.fsum)
    case: str                # divide_case(scores, scores_sum)
    ratios: np.ndarray | None  # s / sum(s), None when the sum is 0
    ratios_sum: float | None
    negative: tuple[int, ...]  # the j whose s_j / sum(s) is below 0 (none when the sum is 0)
    shifted: np.ndarray      # s - mean(s): the counter-example, with an exact zero sum
    shifted_sum: int         # 0, summed exactly (fractions)
    shifted_flat: bool       # every s_j - mean(s) the same (all zero): the scores are all equal
    stable: bool             # e^s would overflow or be unreadable: show e^(s - m), m = max s
    shift: float             # m (0 when not stable)
    scores_shifted: np.ndarray  # s - m
    exps: np.ndarray         # e^(s - shift)
    exps_sum: float
    weights: np.ndarray      # softmax(scores)
    weights_sum: float
    heaviest: int            # the index of the largest weight (the first, on ties)
    by_weight: tuple[int, ...]  # the indices, heaviest weight first (ties in index order)
    picked: int | None       # the input a weight drawn as 1.0000 picks, else None
    equal: bool              # every weight the same: z is the plain mean
    parts: np.ndarray        # [T, D] weights_j x_j
    output: np.ndarray       # [D] z = sum_j weights_j x_j
    plane_points: np.ndarray  # [T + 1, D] the rows of x, then z: what a plane must hold
    gram: np.ndarray         # X X^T
    rows: np.ndarray         # softmax(gram, dim=-1)
    cols: np.ndarray         # softmax(gram, dim=-2)
    rows_sums: np.ndarray    # each row of `rows` sums to 1
    cols_sums: np.ndarray    # the rows of `cols`: 1 only by coincidence
    cols_sums_one: bool      # every row of `cols` is drawn as summing to 1


def dots(a, b) -> np.ndarray:
    """a[i] · b[j] for every pair of rows: the products (each rounded, as drawn) summed exactly and
    rounded once, so that 1/3·2.25 + 2.25·(−1/3) is the 0 it is, not a fused rounding's −4e−17."""
    return np.array([[math.fsum(p) for p in row * b] for row in a[:, None, :]])


def lesson(x, query: int) -> Lesson:
    x = np.asarray(x, float)
    scores = dots(x[query][None, :], x)[0]
    total = math.fsum(scores)
    case = divide_case(scores, total)
    ratios = None if total == 0 else scores / total
    exact = [Fraction(float(s)) for s in scores]
    mean = sum(exact) / len(exact)
    shifted_exact = [s - mean for s in exact]
    stable = abs(float(scores.max())) > PLAIN_EXP_LIMIT
    shift = float(scores.max()) if stable else 0.0
    exps = np.exp(scores - shift)
    weights = softmax(scores)
    top = int(np.argmax(weights))
    shifted = np.array([float(s) for s in shifted_exact])
    output = weights @ x
    gram = dots(x, x)
    rows, cols = softmax(gram, -1), softmax(gram, -2)
    cols_sums = cols.sum(-1)
    return Lesson(
        x=x, query=int(query), products=x * x[query], scores=scores, scores_sum=total, case=case,
        ratios=ratios, ratios_sum=None if ratios is None else math.fsum(ratios),
        negative=() if ratios is None else tuple(int(j) for j in np.flatnonzero(ratios < 0)),
        shifted=shifted, shifted_sum=int(sum(shifted_exact)), shifted_flat=bool(np.ptp(shifted) == 0),
        stable=stable, shift=shift, scores_shifted=scores - shift, exps=exps, exps_sum=math.fsum(exps),
        weights=weights, weights_sum=math.fsum(weights),
        heaviest=top, by_weight=tuple(sorted(range(len(weights)), key=lambda j: -weights[j])),
        picked=top if weights[top] > 1 - SHOWN_ONE else None,
        equal=bool(np.ptp(weights) == 0),
        parts=weights[:, None] * x, output=output, plane_points=np.vstack([x, output[None, :]]),
        gram=gram, rows=rows, cols=cols,
        rows_sums=rows.sum(-1), cols_sums=cols_sums,
        cols_sums_one=bool(np.all(np.abs(cols_sums - 1) < SHOWN_ONE)))


def provenance(r: Lesson) -> dict[str, Source]:
    """Where each label the clip draws comes from: label -> provenance.Source.

    products[j][r] <- x[q][r]·x[j][r]; scores[j][0] and gram[i][j] <- dot products of rows of x;
    the sums (Σ rows) <- their terms; ratios <- score / Σ; shifted <- s − mean(s); shift <- the
    largest scores; scores_shifted <- s − m; exps <- e^s; weights <- e^s / Σ e^s (the shifted ones
    where the clip draws them); parts[j][c] <- weights[j]·x[j][c]; output[0][c] <- Σ_j weights[j]·x[j][c];
    softmax_rows / softmax_cols <- their row / column of gram."""
    n, width, q = r.x.shape[0], r.x.shape[1], r.query
    x = lambda i, c: f"x[{i}][{c}]"
    col = lambda name, j: f"{name}[{j}][0]"
    every = lambda name: tuple(col(name, j) for j in range(n))
    row_of = lambda i: [x(i, c) for c in range(width)]
    out: dict[str, Source] = {}
    top = tuple(col("scores", j) for j in np.flatnonzero(r.scores == r.scores.max()))
    exp_name = "exps_shifted" if r.stable else "exps"
    for j in range(n):
        for c in range(width):
            out[f"products[{j}][{c}]"] = Source("product", tuple(dict.fromkeys([x(q, c), x(j, c)])))
            out[f"parts[{j}][{c}]"] = Source("product", (col("weights", j), x(j, c)))
        out[col("scores", j)] = Source("dot", tuple(dict.fromkeys(row_of(q) + row_of(j))))
        out[col("ratios", j)] = Source("divide", (col("scores", j), "scores_sum[0][0]"))
        out[col("shifted", j)] = Source("subtract mean", every("scores"))
        out[col("scores_shifted", j)] = Source("subtract", (col("scores", j), "shift"))
        out[col("exps", j)] = Source("exp", (col("scores", j),))
        out[col("exps_shifted", j)] = Source("exp", (col("scores_shifted", j),))
        out[col("weights", j)] = Source("divide", (col(exp_name, j), f"{exp_name}_sum[0][0]"))
        for i in range(n):
            out[f"gram[{i}][{j}]"] = Source("dot", tuple(dict.fromkeys(row_of(i) + row_of(j))))
            out[f"softmax_rows[{i}][{j}]"] = Source("softmax", tuple(f"gram[{i}][{k}]" for k in range(n)))
            out[f"softmax_cols[{i}][{j}]"] = Source("softmax", tuple(f"gram[{k}][{j}]" for k in range(n)))
        for name in ("softmax_rows", "softmax_cols"):
            out[col(f"{name}_sums", j)] = Source("sum", tuple(f"{name}[{j}][{k}]" for k in range(n)))
    for c in range(width):
        out[f"output[0][{c}]"] = Source("weighted sum", every("weights") + tuple(x(j, c) for j in range(n)))
    for name in ("scores", "ratios", "shifted", "exps", "exps_shifted", "weights"):
        out[f"{name}_sum[0][0]"] = Source("sum", every(name))
    out["shift"] = Source("max", top)
    return out


# what each number with no source is (provenance.kind): X's sizes, the two softmax dims compared
KINDS = {r"rows|columns": Const(SHAPE), r"dim_last|dim_rows": Const("the softmax dim each line names")}
