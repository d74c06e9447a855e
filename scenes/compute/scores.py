"""4.1-4.3: dot-product scores, softmax, the weighted average, projections, variance."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenes.compute import provenance as sources
from scenes.compute.average import dots


def dot_scores(q, k):
    """scores[i, j] = q_i . k_j  (a [T_q, T_k] grid), the products summed exactly (average.dots):
    a score that cancels is the 0 it is, never a rounding's 3e−15 drawn in scientific form."""
    return dots(np.asarray(q, float), np.asarray(k, float))


def softmax(scores, axis=-1):
    """Stable softmax; a row that is all -inf gives NaN, as torch does."""
    s = np.asarray(scores, float)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - np.max(s, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)


def scaled_scores(q, k, scale=True):
    """q k^T / sqrt(d_k), d_k being the width of one query (one head)."""
    s = dot_scores(q, k)
    return s / np.sqrt(np.shape(q)[-1]) if scale else s


def weighted_sum(weights, values):
    """z_i = sum_j weights[i, j] v_j."""
    with np.errstate(invalid="ignore"):
        return np.asarray(weights, float) @ np.asarray(values, float)


def project(x, w):
    """X W: [T, D_in] . [D_in, d] -> [T, d], each entry's products summed exactly (dot_scores)."""
    return dot_scores(x, np.asarray(w, float).T)


def beyond(values, limit: float) -> bool:
    """Whether some entry lies outside [-limit, limit]."""
    return bool(np.abs(np.asarray(values, float)).max() > limit)


@dataclass(frozen=True)
class ScoreVariance:
    d_ks: tuple              # widths sampled
    samples: int
    seed: int
    var: np.ndarray          # Var(q.k) per d_k
    var_scaled: np.ndarray   # Var(q.k / sqrt(d_k)) per d_k


def score_variance(d_ks=(1, 4, 16, 64), samples=20000, seed=0):
    """Sample unit-variance q, k and measure the spread of their dot product.

    The rule (the tests recompute it): rng = np.random.default_rng(seed); for each width d in
    d_ks, in order, q, k = rng.standard_normal((2, samples, d)); Var is the population
    variance (ddof 0) of sum_r q_r k_r, and of that sum divided by sqrt(d)."""
    rng = np.random.default_rng(seed)
    var, var_scaled = [], []
    for d in d_ks:
        q, k = rng.standard_normal((2, samples, d))
        dots = np.sum(q * k, axis=-1)
        var.append(dots.var())
        var_scaled.append((dots / np.sqrt(d)).var())
    return ScoreVariance(tuple(d_ks), samples, seed, np.array(var), np.array(var_scaled))


@dataclass(frozen=True)
class ScoreGrid:
    """4.2 -- 4.3 for one input: projections, the QK^T grid, the variance argument, one row."""
    x: object                # [T, D_in] or None when Q, K were given directly
    wq: object               # [D_in, d_k] (or None), likewise wk, wv
    wk: object
    wv: object
    q: np.ndarray            # [T_q, d_k]
    k: np.ndarray            # [T_k, d_k]
    v: object                # [T_k, d_v] or None
    d_k: int                 # the width of Q: one head's width
    scale: float             # sqrt(d_k)
    scores: np.ndarray       # q k^T
    scaled: np.ndarray       # scores / sqrt(d_k)
    scores_range: tuple      # (min, max) of scores, for the heat legend
    scaled_range: tuple
    scores_flat: bool        # every score the same: the grid is one colour
    variance: ScoreVariance  # sampled with the clip's own d_k among the widths
    own: int                 # index of d_k in variance.d_ks
    query: int               # the row compared with and without scaling
    query_flat: bool         # every score of that row the same: both softmaxes are uniform
    weights_raw: np.ndarray  # softmax(scores[query])
    weights_scaled: np.ndarray  # softmax(scaled[query])
    peak_raw: float          # the largest weight of each
    peak_scaled: float


def score_grid(q=None, k=None, v=None, x=None, wq=None, wk=None, wv=None, seed=0,
               d_ks=(1, 4, 16, 64), samples=20000, query=None):
    """Q, K, V from X and the W's (or given), QK^T, its scaled form and one row's softmax.

    The row shown defaults to the query whose scores spread most (max - min), where
    scaling changes the weights most visibly.
    """
    if x is not None:
        x, wq, wk = np.asarray(x, float), np.asarray(wq, float), np.asarray(wk, float)
        wv = None if wv is None else np.asarray(wv, float)
        q, k = project(x, wq), project(x, wk)
        v = None if wv is None else project(x, wv)
    q, k = np.asarray(q, float), np.asarray(k, float)
    v = None if v is None else np.asarray(v, float)
    d_k = q.shape[-1]
    scores = dot_scores(q, k)
    scaled = scaled_scores(q, k)
    widths = tuple(sorted(set(d_ks) | {d_k}))
    variance = score_variance(widths, samples, seed)
    if query is None:
        query = int(np.argmax(scores.max(-1) - scores.min(-1)))
    raw, soft = softmax(scores[query]), softmax(scaled[query])
    return ScoreGrid(x, wq, wk, wv, q, k, v, int(d_k), float(np.sqrt(d_k)), scores, scaled,
                     (float(scores.min()), float(scores.max())),
                     (float(scaled.min()), float(scaled.max())), bool(np.ptp(scores) == 0),
                     variance, widths.index(d_k), int(query), bool(np.ptp(scores[query]) == 0),
                     raw, soft, float(raw.max()), float(soft.max()))


def provenance(r: ScoreGrid) -> dict[str, sources.Source]:
    """Where each label the clip draws comes from: the lab's steps with no key hidden; each heat
    legend's ends <- the grid's least and largest entry (the first in reading order); the sampled
    widths are constants, each Var(q·k) sampled at its width, Var(q·k/√dₖ) = Var(q·k) / dₖ; the
    compared row <- the grid's row of that query, its two softmaxes over it."""
    n_q, n_k = len(r.q), len(r.k)
    out = sources.attention(n_q, n_k, r.d_k, 0, np.zeros((n_q, n_k), bool))
    for name, grid in (("scores", r.scores), ("scaled", r.scaled)):
        for end, at in (("low", np.argmin(grid)), ("high", np.argmax(grid))):
            i, j = np.unravel_index(int(at), grid.shape)
            out[f"{name}_legend.{end}"] = sources.Source("min" if end == "low" else "max", (f"{name}[{i}][{j}]",))
    for n in range(len(r.variance.d_ks)):
        width, var = f"variance.d_k[{n}][0]", f"variance.var[{n}][0]"
        out[width] = sources.Source("sample widths", ())
        out[var] = sources.Source("sample variance", (width,))
        out[f"variance.var_scaled[{n}][0]"] = sources.Source("divide", (var, width))
    for key in range(n_k):
        for row, of in (("row.scores", "scores"), ("row.scaled", "scaled")):
            out[f"{row}[0][{key}]"] = sources.Source("copy", (f"{of}[{r.query}][{key}]",))
    out.update(sources.softmax_rows("weights_raw", "row.scores", np.zeros((1, n_k), bool)))
    out.update(sources.softmax_rows("weights_scaled", "row.scaled", np.zeros((1, n_k), bool)))
    return out


def kinds(r: ScoreGrid) -> dict:
    """What each number with no source is (provenance.kind): Q, K, V made from X and the weights
    where X is given (else they are the inputs), the shape rule's sizes, the scale, the compared
    row's peaks, the samples drawn."""
    out: dict = {r"rule\.\w+\[\d+\]|d_k": sources.Const(sources.SHAPE), "scale": sources.Made("sqrt", ("d_k",)),
                 r"variance\.samples": sources.Const("the samples the lesson draws at each width"),
                 "peak_raw": sources.Made("max", ("weights_raw[0][*]",)),
                 "peak_scaled": sources.Made("max", ("weights_scaled[0][*]",))}
    if r.x is not None:
        out.update({rf"{n}\[\d+\]\[\d+\]": sources.Made("dot", ("x[{0}][*]", f"w{n}[*][{{1}}]")) for n in "qkv"})
    return out
