"""4.4-4.5, 4.8-4.9: the causal mask, both masking routes, attention steps, causality checks."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenes.compute import provenance as sources
from scenes.compute import padding
from scenes.compute.padding import PaddingLesson, padding_lesson
from scenes.compute.scores import dot_scores, softmax, weighted_sum


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
    row_sums: np.ndarray     # < 1 wherever a future key with probability > 0 was dropped
    renormalised: np.ndarray  # zeroed / row_sums: masked_softmax in exact arithmetic
    shrunk_rows: np.ndarray  # rows that lost probability (> 0) to the zeroed future
    underflow_rows: np.ndarray  # rows with a visible key whose visible probabilities all
                                # underflowed to 0: the division is 0/0 = NaN in float64


def softmax_then_zero(scores, mask):
    """The other route, computed as written (no log domain): softmax first, zero the
    future, renormalise each row. Where the future takes all the mass, float64 loses
    the visible probabilities and the division gives NaN; the -inf route does not."""
    probs = softmax(scores)
    zeroed = np.where(np.isinf(mask), 0.0, probs)
    sums = zeroed.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        renorm = zeroed / sums[:, None]
    seen = (mask == 0).any(-1)
    dropped = np.where(np.isinf(mask), probs, 0.0).sum(-1)
    return PostMask(probs, zeroed, sums, renorm, np.flatnonzero(dropped > 0),
                    np.flatnonzero(seen & (sums == 0)))


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
    hidden: np.ndarray       # [T_q, T_k] True where the mask hides the key (−∞)
    hides_any: bool          # some query has a hidden key
    hidden_rows: np.ndarray  # the queries that have a hidden key


def attention_steps(q, k, v, scale=True, causal=True, diagonal=1, cached=0):
    q, k, v = (np.asarray(a, float) for a in (q, k, v))
    scores = dot_scores(q, k)
    divisor = float(np.sqrt(q.shape[-1])) if scale else 1.0
    scaled = scores / divisor
    mask = causal_mask(len(q), len(k), diagonal, cached) if causal else np.zeros(scores.shape)
    masked = scaled + mask
    weights = masked_softmax(scaled, mask)
    hidden = mask != 0
    return AttentionSteps(q, k, v, divisor, scores, scaled, mask, masked, weights,
                          weights.sum(-1), weighted_sum(weights, v), np.sum(mask == 0, -1), hidden,
                          bool(hidden.any()), np.flatnonzero(hidden.any(-1)))


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
    fresh_hidden: np.ndarray  # fresh == 0: the keys a row of the fresh triangle may not see
    hidden: np.ndarray       # allowed == 0: the keys a row of the new block may not see
    hides_any: bool          # some cell of either grid is 0


def cache_view(n_new, cached, diagonal=1):
    """The book's figure: 1 where a query may attend, without and with a cache."""
    fresh = (causal_mask(n_new, n_new, diagonal) == 0).astype(int)
    allowed = (causal_mask(n_new, cached + n_new, diagonal, cached) == 0).astype(int)
    fresh_hidden, hidden = fresh == 0, allowed == 0
    return CacheView(int(cached), np.arange(n_new) + cached, fresh, allowed, fresh.sum(-1),
                     allowed.sum(-1), fresh_hidden, hidden, bool(hidden.any() or fresh_hidden.any()))


def verdicts(shift):
    """Per query: 'same' (exactly unchanged), 'moved', or 'nan'."""
    return np.array(["nan" if np.isnan(s) else "same" if s == 0 else "moved" for s in shift])


ROUNDING = 1e-12   # a gap this small between the two routes is float64 rounding


def route_agreement(gap):
    """How the renormalised route compares with the -inf route: equal, rounding or lost."""
    return "equal" if gap == 0 else "rounding" if gap <= ROUNDING else "lost"


def max_gap(a, b):
    """max |a - b| over the entries where both are numbers (0 when there are none)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    both = ~np.isnan(a) & ~np.isnan(b)
    return float(np.max(np.abs(a - b)[both], initial=0.0))


@dataclass(frozen=True)
class CausalLesson:
    """Everything the causal-mask clip shows (4.4, 4.5 and the lab), from one set of inputs."""
    steps: AttentionSteps    # the inputs' route: scores, scaled, mask, masked, weights, output
    track: int               # the query row followed
    positions: np.ndarray    # each query's position among the keys (cached + i)
    aligned: bool            # the queries are the last keys' positions (cached + T_q = T_k)
    post: PostMask           # softmax first, zero the future, renormalise
    route_gap: float         # max |post.renormalised - steps.weights| where both are numbers
    compared: bool           # some row is not all NaN on either route: route_gap compares numbers
    shrink_case: str         # of the rows with a hidden key: "all" lost probability to the future,
                             # "underflow" none did (all underflowed), else "some"
    nan_rows: np.ndarray     # rows of steps.weights that are NaN (no visible key)
    track_nan: bool          # the tracked row's weights are NaN
    track_keys: np.ndarray   # the keys the tracked query sees (mask 0), in order
    track_hides: bool        # the tracked query has a hidden key
    variant_diagonal: int    # the other choice of diagonal: 0 (mask it) or, when it is 0, 1
    variant: AttentionSteps  # the causal mask with variant_diagonal
    variant_nan_rows: np.ndarray  # rows of variant.weights that are NaN
    delta: float             # added to the last row of K and V
    changed_row: int
    check_on: CausalityCheck   # with the mask
    check_off: CausalityCheck  # without it
    verdict_on: np.ndarray     # per query: same / moved / nan
    verdict_off: np.ndarray
    nan_outputs: np.ndarray    # queries whose output is NaN with the mask (verdict_on "nan")
    unchanged: np.ndarray      # [T_q, 2] True where an output is exactly unchanged: on, off
    sees_changed: bool         # the tracked query sees the changed (last) key with the mask on
    cache: CacheView
    padding: PaddingLesson     # 4.4's last paragraph: the pads, with the causal mask (compute/padding.py)


def causal_lesson(q, k, v, track=0, scale=True, causal=True, diagonal=1, cached=0,
                  delta=10.0, cache_view_c=3, pad=0, pad_side="left"):
    """The clip's five-step table, both mask routes, the other diagonal (0, or 1 when the
    input masks it), `pad` pads on `pad_side` under the same causal mask (and on the other side),
    the causality check with and without the mask, and the cache view (C = cached, or
    cache_view_c when nothing is cached)."""
    steps = attention_steps(q, k, v, scale, causal, diagonal, cached)
    post = softmax_then_zero(steps.scaled, steps.mask)
    other = 1 if causal and diagonal == 0 else 0
    variant = attention_steps(q, k, v, scale, True, other, cached)
    on = causality_check(q, k, v, delta, scale=scale, causal=True, diagonal=diagonal, cached=cached)
    off = causality_check(q, k, v, delta, scale=scale, causal=False)
    n_q, track = len(steps.q), int(track)
    numbers = ~np.isnan(post.renormalised).all(-1) & ~np.isnan(steps.weights).all(-1)
    shrunk, rows = len(post.shrunk_rows), len(steps.hidden_rows)
    verdict_on, verdict_off = verdicts(on.shift), verdicts(off.shift)
    checked_mask = causal_mask(n_q, len(steps.k), diagonal, cached)   # the mask check_on runs with
    return CausalLesson(
        steps=steps, track=track, positions=np.arange(n_q) + cached,
        aligned=bool(cached + n_q == len(steps.k)), post=post,
        route_gap=max_gap(post.renormalised, steps.weights), compared=bool(numbers.any()),
        shrink_case="all" if shrunk == rows else "underflow" if not shrunk else "some",
        nan_rows=np.flatnonzero(np.isnan(steps.weights).any(-1)),
        track_nan=bool(np.isnan(steps.weights[track]).any()),
        track_keys=np.flatnonzero(steps.mask[track] == 0), track_hides=bool(steps.hidden[track].any()),
        variant_diagonal=other,
        variant=variant, variant_nan_rows=np.flatnonzero(np.isnan(variant.weights).any(-1)),
        delta=float(delta),
        changed_row=len(steps.k) - 1, check_on=on, check_off=off,
        verdict_on=verdict_on, verdict_off=verdict_off, nan_outputs=np.flatnonzero(verdict_on == "nan"),
        unchanged=np.stack([verdict_on == "same", verdict_off == "same"], -1),
        sees_changed=bool(checked_mask[track, -1] == 0),
        cache=cache_view(n_q, cached if cached else cache_view_c, diagonal),
        padding=padding_lesson(steps.scaled, steps.v, pad, pad_side, steps.mask, cached))


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


def provenance(r: CausalLesson, diagonal: int, cached: int, causal: bool) -> dict[str, sources.Source]:
    """Where each number of the lesson comes from: the five steps (provenance.attention), each row's
    sum, the other route (P over every key, the future zeroed, the rest over what is left: a row
    with one visible key is 1, a row left with 0 is 0 / 0), the other diagonal's weights, and the
    causality check's runs (the inputs' route is the drawn output) and their largest changes."""
    s, post = r.steps, r.post
    n_q, n_k, d_k, d_v = len(s.q), len(s.k), s.q.shape[1], s.v.shape[1]
    out = sources.attention(n_q, n_k, d_k, d_v, s.hidden)
    out.update(sources.row_sums("row_sums", "weights", n_q, n_k))
    out.update(sources.softmax_rows("post_probs", "scaled", np.zeros((n_q, n_k), bool)))
    out.update(sources.row_sums("post_row_sums", "post_zeroed", n_q, n_k))
    for i, j in np.ndindex(n_q, n_k):
        cell, empty, one = f"[{i}][{j}]", post.row_sums[i] == 0, int(np.sum(~s.hidden[i])) == 1
        out["post_zeroed" + cell] = sources.Source("zero", ()) if s.hidden[i, j] else \
            sources.Source("copy", ("post_probs" + cell,))
        out["post_renormalised" + cell] = (sources.Source("divide", ("post_zeroed" + cell, f"post_row_sums[{i}]"))
                                           if empty or not (s.hidden[i, j] or one) else
                                           sources.Source("zero" if s.hidden[i, j] else "softmax", ()))
    name = f"weights_diagonal{r.variant_diagonal}"
    out.update(sources.softmax_rows(name, "scaled", r.variant.hidden))
    out.update(sources.row_sums(f"row_sums_diagonal{r.variant_diagonal}", name, n_q, n_k))
    on = causal_mask(n_q, n_k, diagonal, cached) != 0
    for run, hidden, drawn in (("causal", on, causal), ("open", np.zeros_like(on), not causal)):
        check = r.check_on if run == "causal" else r.check_off
        out.update(sources.run(f"{run}_after", n_q, n_k, d_k, d_v, hidden, ("q", "k_changed", "v_changed")))
        out.update({f"{run}_before[{i}][{c}]": sources.Source("copy", (f"output[{i}][{c}]",))
                    for i, c in np.ndindex(n_q, d_v)} if drawn else
                   sources.run(f"{run}_before", n_q, n_k, d_k, d_v, hidden))
        with np.errstate(invalid="ignore"):
            at = np.argmax(np.abs(check.after - check.before), axis=-1)
        out.update({f"shift_{run}[{i}]": sources.Source(
            "max abs difference", (f"{run}_before[{i}][{c}]", f"{run}_after[{i}][{c}]")) for i, c in enumerate(at)})
    return out


def kinds(r: CausalLesson, cached: int) -> dict:
    """What each number with no source is (provenance.kind): the mask cells by triu's rule, the
    changed K and V (the last row plus delta), the cache view's rows and cells, counts of visible keys."""
    made, const = sources.Made, sources.Const
    return {"triu_diagonal": made("diagonal after the cache", ("cached",)) if cached else sources.Given("diagonal"), "cached": sources.Given("cached" if cached else "cache_view"),
            "keys": const(sources.SHAPE), "scale": made("sqrt of the width", ("q[*][*]",)),
            r"mask\[\d+\]\[\d+\]": made("triu", ("triu_diagonal",)),
            r"mask_diagonal\d+\[\d+\]\[\d+\]": made("triu", ("variant_diagonal",)),
            r"variant_diagonal|variant_triu": made("the other diagonal", ("triu_diagonal",)),
            r"variant_nan_row": made("first row with no visible key", ("mask_diagonal*[*][*]",)),
            r"nan_row": made("first row with no visible key", ("mask[*][*]",)),
            r"visible\[\d+\]": made("count visible", ("mask[{0}][*]",)),
            r"route_gap": made("max abs difference", ("weights[*][*]", "post_renormalised[*][*]")),
            r"changed_row": made("last row", ("keys",)),
            r"k_changed\[\d+\]\[\d+\]": made("add delta to the last row", ("k[{0}][{1}]", "delta")),
            r"v_changed\[\d+\]\[\d+\]": made("add delta to the last row", ("v[{0}][{1}]", "delta")),
            r"query\[\d+\]|cache_row\[\d+\]": made("position after the cache", ("cached",)),
            r"fresh\[\d+\]\[\d+\]": made("tril", ("fresh_row[{0}]", "fresh_key[{1}]")),
            r"cache_allowed\[\d+\]\[\d+\]": made("tril", ("cache_row[{0}]", "cache_key[{1}]")),
            r"cache_visible\[\d+\]": made("count visible", ("cache_allowed[{0}][*]",)),
            r"allowed_legend": const("the value the legend gives a visible cell"), **padding.kinds()}
