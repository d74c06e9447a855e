"""The chapter's maths, in float64 numpy. No Manim here: scenes ask, this answers.

Layout follows PyTorch and the book: rows are queries, columns are keys,
softmax runs along the last axis unless told otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np


# ---------------------------------------------------------------- 4.1 -- 4.3
def dot_scores(q, k):
    """scores[i, j] = q_i . k_j  (a [T_q, T_k] grid)."""
    return np.asarray(q, float) @ np.asarray(k, float).T


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
    """X W: [T, D_in] . [D_in, d] -> [T, d]."""
    return np.asarray(x, float) @ np.asarray(w, float)


@dataclass(frozen=True)
class WeightedAverage:
    x: np.ndarray            # [T, D] inputs
    query: int               # index of the query row
    products: np.ndarray     # [T, D] component products x_query[r] * x_j[r]
    scores: np.ndarray       # [T] dot products with the query
    shifted: np.ndarray      # scores minus their mean: sum 0, so s / sum(s) breaks
    shifted_sum: float
    exps: np.ndarray         # e^scores
    exp_sum: float
    weights: np.ndarray      # softmax(scores)
    output: np.ndarray       # z = sum_j weights_j x_j
    parts: np.ndarray        # [T, D] weights_j x_j, the arrows added tip to tail
    gram: np.ndarray         # X X^T, [T, T]
    rows: np.ndarray         # softmax(gram, dim=-1)
    cols: np.ndarray         # softmax(gram, dim=-2)
    rows_sums: np.ndarray
    cols_row_sums: np.ndarray


def weighted_average(x, query):
    x = np.asarray(x, float)
    scores = x @ x[query]
    exps = np.exp(scores)
    weights = softmax(scores)
    gram = dot_scores(x, x)
    rows, cols = softmax(gram, -1), softmax(gram, -2)
    shifted = scores - scores.mean()
    return WeightedAverage(
        x=x, query=query, products=x * x[query], scores=scores,
        shifted=shifted, shifted_sum=float(shifted.sum()),
        exps=exps, exp_sum=float(exps.sum()), weights=weights,
        output=weights @ x, parts=weights[:, None] * x, gram=gram,
        rows=rows, cols=cols, rows_sums=rows.sum(-1), cols_row_sums=cols.sum(-1))


@dataclass(frozen=True)
class ScoreVariance:
    d_ks: tuple              # widths sampled
    samples: int
    seed: int
    var: np.ndarray          # Var(q.k) per d_k
    var_scaled: np.ndarray   # Var(q.k / sqrt(d_k)) per d_k


def score_variance(d_ks=(1, 4, 16, 64), samples=20000, seed=0):
    """Sample unit-variance q, k and measure the spread of their dot product."""
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
    variance: ScoreVariance  # sampled with the clip's own d_k among the widths
    own: int                 # index of d_k in variance.d_ks
    query: int               # the row compared with and without scaling
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
                     (float(scaled.min()), float(scaled.max())), variance, widths.index(d_k),
                     int(query), raw, soft, float(raw.max()), float(soft.max()))


# ---------------------------------------------------------------- 4.4 -- 4.5
def causal_mask(n_q, n_k, diagonal=1, cached=0):
    """Additive mask: 0 where query i may see key j, -inf above triu(diagonal).

    With `cached` positions already in the cache, query i of the new block sits
    at absolute position cached + i, so the triangle is shifted right.
    """
    hidden = np.triu(np.ones((n_q, n_k), bool), k=diagonal + cached)
    return np.where(hidden, -np.inf, 0.0)


def masked_softmax(scores, mask):
    """The book's route: add -inf before softmax."""
    return softmax(np.asarray(scores, float) + mask)


@dataclass(frozen=True)
class PostMask:
    probs: np.ndarray        # softmax over all keys, future included
    zeroed: np.ndarray       # future probabilities set to 0
    row_sums: np.ndarray     # < 1 wherever a future key was dropped
    renormalised: np.ndarray  # zeroed / row_sums: equals masked_softmax


def softmax_then_zero(scores, mask):
    """The other route: softmax first, zero the future, renormalise each row."""
    probs = softmax(scores)
    zeroed = np.where(np.isinf(mask), 0.0, probs)
    sums = zeroed.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        renorm = zeroed / sums[:, None]
    return PostMask(probs, zeroed, sums, renorm)


@dataclass(frozen=True)
class AttentionSteps:
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scale: float             # the divisor, sqrt(d_k), or 1 when not scaling
    scores: np.ndarray       # q k^T
    scaled: np.ndarray       # scores / scale
    mask: np.ndarray         # 0 / -inf (all 0 when not causal)
    masked: np.ndarray       # scaled + mask
    weights: np.ndarray      # softmax(masked)
    row_sums: np.ndarray
    output: np.ndarray       # weights v
    visible: np.ndarray      # number of keys each query sees


def attention_steps(q, k, v, scale=True, causal=True, diagonal=1, cached=0):
    q, k, v = (np.asarray(a, float) for a in (q, k, v))
    scores = dot_scores(q, k)
    divisor = float(np.sqrt(q.shape[-1])) if scale else 1.0
    scaled = scores / divisor
    mask = causal_mask(len(q), len(k), diagonal, cached) if causal else np.zeros(scores.shape)
    masked = scaled + mask
    weights = masked_softmax(scaled, mask)
    return AttentionSteps(q, k, v, divisor, scores, scaled, mask, masked, weights,
                          weights.sum(-1), weighted_sum(weights, v), np.sum(mask == 0, -1))


@dataclass(frozen=True)
class CausalityCheck:
    k_changed: np.ndarray
    v_changed: np.ndarray
    before: np.ndarray       # outputs with the original K, V
    after: np.ndarray        # outputs with the last row of K and V changed
    shift: np.ndarray        # per query: max |after - before|


def causality_check(q, k, v, delta=10.0, **attention):
    """Change only the last row of K and V; earlier outputs must not move."""
    k2, v2 = np.array(k, float), np.array(v, float)
    k2[-1] += delta
    v2[-1] += delta
    before = attention_steps(q, k, v, **attention).output
    after = attention_steps(q, k2, v2, **attention).output
    with np.errstate(invalid="ignore"):
        shift = np.max(np.abs(after - before), axis=-1)
    return CausalityCheck(k2, v2, before, after, shift)


@dataclass(frozen=True)
class CacheView:
    cached: int              # positions already in the cache (C)
    positions: np.ndarray    # the new rows' positions: C, C + 1, ...
    fresh: np.ndarray        # [n, n] 1 = may attend: a fresh triangle
    allowed: np.ndarray      # [n, C + n]: the new block after C cached positions
    fresh_visible: np.ndarray
    visible: np.ndarray      # keys each new row sees: the first row sees C + 1


def cache_view(n_new, cached, diagonal=1):
    """The book's figure: 1 where a query may attend, without and with a cache."""
    fresh = (causal_mask(n_new, n_new, diagonal) == 0).astype(int)
    allowed = (causal_mask(n_new, cached + n_new, diagonal, cached) == 0).astype(int)
    return CacheView(int(cached), np.arange(n_new) + cached, fresh, allowed, fresh.sum(-1),
                     allowed.sum(-1))


def verdicts(shift):
    """Per query: 'same' (exactly unchanged), 'moved', or 'nan'."""
    return np.array(["nan" if np.isnan(s) else "same" if s == 0 else "moved" for s in shift])


def max_gap(a, b):
    """max |a - b|, where both being NaN counts as agreement."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    both = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        return float(np.max(np.where(both, 0.0, np.abs(a - b))))


@dataclass(frozen=True)
class CausalLesson:
    """Everything the causal-mask clip shows (4.4, 4.5 and the lab), from one set of inputs."""
    steps: AttentionSteps    # the inputs' route: scores, scaled, mask, masked, weights, output
    track: int               # the query row followed
    positions: np.ndarray    # each query's position among the keys (cached + i)
    aligned: bool            # the queries are the last keys' positions (cached + T_q = T_k)
    post: PostMask           # softmax first, zero the future, renormalise
    route_gap: float         # max |post.renormalised - steps.weights| (0 in exact arithmetic)
    nan_rows: np.ndarray     # rows of steps.weights that are NaN (no visible key)
    diagonal_masked: AttentionSteps  # mask on with diagonal=0
    diagonal_nan_rows: np.ndarray    # rows of diagonal_masked.weights that are NaN
    delta: float             # added to the last row of K and V
    changed_row: int
    check_on: CausalityCheck   # with the mask
    check_off: CausalityCheck  # without it
    verdict_on: np.ndarray     # per query: same / moved / nan
    verdict_off: np.ndarray
    cache: CacheView


def causal_lesson(q, k, v, track=0, scale=True, causal=True, diagonal=1, cached=0,
                  delta=10.0, cache_view_c=3):
    """The clip's five-step table, both mask routes, the diagonal case, the causality
    check with and without the mask, and the cache view (C = cached, or cache_view_c
    when nothing is cached)."""
    steps = attention_steps(q, k, v, scale, causal, diagonal, cached)
    post = softmax_then_zero(steps.scaled, steps.mask)
    diag0 = attention_steps(q, k, v, scale, True, 0, cached)
    on = causality_check(q, k, v, delta, scale=scale, causal=True, diagonal=diagonal, cached=cached)
    off = causality_check(q, k, v, delta, scale=scale, causal=False)
    n_q = len(steps.q)
    return CausalLesson(
        steps=steps, track=int(track), positions=np.arange(n_q) + cached,
        aligned=bool(cached + n_q == len(steps.k)), post=post,
        route_gap=max_gap(post.renormalised, steps.weights),
        nan_rows=np.flatnonzero(np.isnan(steps.weights).any(-1)), diagonal_masked=diag0,
        diagonal_nan_rows=np.flatnonzero(np.isnan(diag0.weights).any(-1)), delta=float(delta),
        changed_row=len(steps.k) - 1, check_on=on, check_off=off,
        verdict_on=verdicts(on.shift), verdict_off=verdicts(off.shift),
        cache=cache_view(n_q, cached if cached else cache_view_c, diagonal))


def split_heads_tensor(x, heads):
    """[B, T, D] -> [B, H, T, d]."""
    b, t, d_model = x.shape
    return x.reshape(b, t, heads, d_model // heads).transpose(0, 2, 1, 3)


def multihead_attention(x, w_qkv, w_out, b_out, heads, causal=True):
    """core.py's Attention in numpy: one Linear(D, 3D), split heads, SDPA, merge, out proj."""
    b, t, d_model = x.shape
    q, k, v = np.split(x @ w_qkv, 3, axis=-1)
    q, k, v = (split_heads_tensor(a, heads) for a in (q, k, v))
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_model // heads)
    if causal:
        s = s + causal_mask(t, t)
    z = softmax(s) @ v
    return z.transpose(0, 2, 1, 3).reshape(b, t, d_model) @ w_out + b_out


def future_perturbation(shape=(2, 6, 12), heads=3, keep=4, size=1e3, seed=0):
    """4.5: perturb positions >= keep; return the max change of the prefix outputs."""
    rng = np.random.default_rng(seed)
    b, t, d = shape
    x = rng.standard_normal(shape)
    w_qkv, w_out = rng.standard_normal((d, 3 * d)), rng.standard_normal((d, d))
    b_out = rng.standard_normal(d)
    x2 = x.copy()
    x2[:, keep:] += size * rng.standard_normal((b, t - keep, d))
    y, y2 = (multihead_attention(a, w_qkv, w_out, b_out, heads) for a in (x, x2))
    return float(np.max(np.abs(y[:, :keep] - y2[:, :keep])))


def attention_param_count(d_model, qkv_bias=False):
    """Q, K, V projections plus the output projection (with bias): 4D^2 + D."""
    qkv = 3 * d_model * d_model + (3 * d_model if qkv_bias else 0)
    return qkv + d_model * d_model + d_model


# ---------------------------------------------------------------- 4.6
def dropout_row(weights, keep, p, mode="train"):
    """One mask: kept entries x 1/(1-p), dropped -> 0. Eval mode: p = 0, row unchanged."""
    w = np.asarray(weights, float)
    if mode == "eval":
        return w.copy()
    return np.where(np.asarray(keep, bool), w / (1.0 - p), 0.0)


def mask_probability(keep, p, mode="train"):
    keep = np.asarray(keep, bool)
    if mode == "eval":
        return float(keep.all())
    return float((1 - p) ** keep.sum() * p ** (~keep).sum())


def all_masks(n):
    """Every keep-mask of length n, bit i keeps entry i: 111 ... 000."""
    return [np.array(bits, bool) for bits in product((1, 0), repeat=n)]


@dataclass(frozen=True)
class DropoutTable:
    weights: np.ndarray
    p: float                 # effective p (0 in eval mode)
    masks: list
    probs: np.ndarray        # probability of each mask
    rows: np.ndarray         # [2^n, n] the row after each mask
    sums: np.ndarray         # each row's sum
    mean_row: np.ndarray     # probability-weighted mean: equals weights
    expected_sum: float


def dropout_table(weights, p, mode="train"):
    w = np.asarray(weights, float)
    p = 0.0 if mode == "eval" else float(p)
    masks = all_masks(len(w))
    probs = np.array([mask_probability(m, p) for m in masks])
    rows = np.array([dropout_row(w, m, p) for m in masks])
    mean = probs @ rows
    return DropoutTable(w, p, masks, probs, rows, rows.sum(-1), mean, float(probs @ rows.sum(-1)))


@dataclass(frozen=True)
class DropoutSamples:
    masks: np.ndarray        # [N, n] bool, drawn i.i.d. keep ~ Bernoulli(1 - p)
    rows: np.ndarray         # [N, n]
    running_mean: np.ndarray  # [N, n]: mean of the first i+1 rows


def sample_dropout(weights, p, samples, seed=0, mode="train"):
    """nn.Dropout semantics: zero each entry with probability p, scale the rest by 1/(1-p)."""
    w = np.asarray(weights, float)
    p = 0.0 if mode == "eval" else float(p)
    rng = np.random.default_rng(seed)
    masks = rng.random((samples, len(w))) >= p
    rows = np.where(masks, w / (1.0 - p), 0.0)
    running = np.cumsum(rows, 0) / np.arange(1, samples + 1)[:, None]
    return DropoutSamples(masks, rows, running)


@dataclass(frozen=True)
class DropoutLesson:
    """Everything the dropout clip shows (4.6 and its lab), for one set of inputs."""
    weights: np.ndarray
    weight_sum: float        # 1 before dropout
    mode: str
    p: float                 # as configured (ignored in eval mode)
    p_eff: float             # 0 in eval mode
    scale: float             # 1 / (1 - p_eff)
    masks: list              # the chosen masks, one at a time
    rows: np.ndarray         # [k, n] each chosen mask's row
    sums: np.ndarray         # [k]
    probs: np.ndarray        # [k] each chosen mask's probability
    table: DropoutTable      # every mask
    prob_total: float        # the table's probabilities add up to 1
    sampled: DropoutSamples
    sample_sums: np.ndarray  # [N] each sampled row's sum
    checkpoints: tuple       # sample counts at which the running mean is shown
    checkpoint_means: np.ndarray  # [len(checkpoints), n] the running mean after that many samples
    train_row: object        # first chosen mask in train mode at the configured p (None if p = 1)
    train_sum: object
    eval_p: float            # eval mode's effective p: 0
    eval_row: np.ndarray     # eval mode: the row unchanged
    eval_sum: float
    zeros: tuple             # positions whose weight is 0: they stay 0


def dropout_lesson(weights, p, mode, masks, samples, seed=0):
    w = np.asarray(weights, float)
    p_eff = 0.0 if mode == "eval" else float(p)
    rows = np.array([dropout_row(w, m, p, mode) for m in masks]).reshape(len(masks), len(w))
    table = dropout_table(w, p, mode)
    sampled = sample_dropout(w, p, samples, seed, mode)
    checkpoints = tuple(sorted({c for c in (1, 2, 5, 10, 20, 50, 100, 200) if c < samples} | {samples}))
    train = dropout_row(w, masks[0], p) if masks and p < 1 else None
    eval_row = dropout_row(w, None, p, "eval")
    return DropoutLesson(
        weights=w, weight_sum=float(w.sum()), mode=mode, p=float(p), p_eff=p_eff,
        scale=1.0 / (1.0 - p_eff), masks=list(masks), rows=rows, sums=rows.sum(-1),
        probs=np.array([mask_probability(m, p, mode) for m in masks]), table=table,
        prob_total=float(table.probs.sum()), sampled=sampled, sample_sums=sampled.rows.sum(-1),
        checkpoints=checkpoints,
        checkpoint_means=sampled.running_mean[[c - 1 for c in checkpoints]], train_row=train,
        train_sum=None if train is None else float(train.sum()),
        eval_p=0.0, eval_row=eval_row, eval_sum=float(eval_row.sum()),
        zeros=tuple(int(i) for i in np.flatnonzero(w == 0)))


# ---------------------------------------------------------------- 4.7
@dataclass(frozen=True)
class HeadTrack:
    shape: tuple             # (B, T, D)
    heads: int
    head_dim: int
    element: int
    start: tuple             # [b, t, c] in [B, T, D]
    split: tuple             # [b, t, h, r] in [B, T, H, d]
    transposed: tuple        # [b, h, t, r] in [B, H, T, d]
    back: tuple              # [b, t, h, r] after transpose(1, 2) again
    merged: tuple            # [b, t, c] after reshape
    wrong: tuple             # [b, t, c] if merged by reshape without transposing back
    score_shape: tuple       # [B, H, T, T]
    layouts: dict            # step name -> id tensor in that step's layout


def head_layouts(shape, heads):
    b, t, d_model = shape
    d = d_model // heads
    ids = np.arange(b * t * d_model).reshape(b, t, d_model)
    split = ids.reshape(b, t, heads, d)
    transposed = split.transpose(0, 2, 1, 3)
    back = transposed.transpose(0, 2, 1, 3)
    return {"start": ids, "split": split, "transposed": transposed, "back": back,
            "merged": back.reshape(b, t, d_model),
            "wrong": np.ascontiguousarray(transposed).reshape(b, t, d_model)}


def track_element(shape, heads, element):
    """Where element e_n sits at each step of split, transpose and merge."""
    b_, t_, d_model = shape
    d = d_model // heads
    b, rest = divmod(element, t_ * d_model)
    t, c = divmod(rest, d_model)
    h, r = divmod(c, d)
    flat = ((b * heads + h) * t_ + t) * d + r     # its place in the [B, H, T, d] order
    wb, rest = divmod(flat, t_ * d_model)
    return HeadTrack(tuple(shape), heads, d, element, (b, t, c), (b, t, h, r), (b, h, t, r),
                     (b, t, h, r), (b, t, c), (wb, *divmod(rest, d_model)),
                     (b_, heads, t_, t_), head_layouts(shape, heads))


HEAD_SWAP = (1, 2)   # transpose(1, 2): the axes T and H of [B, T, H, d]


def misplaced_by_wrong_merge(shape, heads):
    """Ids that the wrong merge (reshape without transposing back) puts somewhere else."""
    layouts = head_layouts(shape, heads)
    return np.sort(layouts["wrong"][layouts["wrong"] != layouts["merged"]])


def head_split(d_model, heads):
    """(d, remainder) of D / H: the heads split evenly only when the remainder is 0."""
    return divmod(int(d_model), int(heads))
