"""4.5: check causality by changing the future. A seeded multi-head causal attention in
float64 numpy, run twice (the future perturbed), with and without the mask; the input
gradient of a loss on the early positions (analytic backprop); dropout masks shared or
not; and a wrong head merge whose weights still look triangular.

The draws, in this order, from numpy's default_rng(seed):
    x      = standard_normal((B, T, D))
    w_qkv  = standard_normal((D, 3D)) / sqrt(D)     # one Linear(D, 3D, bias=False): x @ w_qkv
    w_out  = standard_normal((D, D)) / sqrt(D)      # the output projection: m @ w_out + b_out
    b_out  = standard_normal(D) / sqrt(D)
    u      = standard_normal((B, T, D))             # the perturbation's direction, every position
    draws  = random((2, B, H, T, T))                # two dropout masks: keep where draw >= p
The perturbed input is x + delta * u on positions t >= prefix (x itself before them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from scenes.compute.provenance import Given, Made, Source


@dataclass(frozen=True)
class Weights:
    w_qkv: np.ndarray        # [D, 3D]
    w_out: np.ndarray        # [D, D]
    b_out: np.ndarray        # [D]


def draw(shape: tuple[int, int, int], heads: int,
         seed: int) -> tuple[np.ndarray, Weights, np.ndarray, np.ndarray]:
    """(x, weights, u, dropout draws) in the documented order."""
    b, t, d = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((b, t, d))
    scale = 1.0 / np.sqrt(d)
    w = Weights(rng.standard_normal((d, 3 * d)) * scale, rng.standard_normal((d, d)) * scale,
                rng.standard_normal(d) * scale)
    u = rng.standard_normal((b, t, d))
    draws = rng.random((2, b, heads, t, t))
    return x, w, u, draws


def split_heads(a: np.ndarray, heads: int) -> np.ndarray:
    """[B, T, D] -> [B, H, T, d]."""
    b, t, d = a.shape
    return a.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)


def merge_heads(z: np.ndarray) -> np.ndarray:
    """[B, H, T, d] -> transpose back to [B, T, H, d] -> [B, T, D]."""
    b, h, t, d = z.shape
    return z.transpose(0, 2, 1, 3).reshape(b, t, h * d)


def wrong_merge(z: np.ndarray) -> np.ndarray:
    """The bug of 4.7: reshape [B, H, T, d] to [B, T, D] without transposing back."""
    b, h, t, d = z.shape
    return z.reshape(b, t, h * d)


def causal_mask(t: int) -> np.ndarray:
    """0 where j <= i, -inf above the diagonal (triu(diagonal=1))."""
    return np.where(np.triu(np.ones((t, t), bool), 1), -np.inf, 0.0)


def softmax(s: np.ndarray) -> np.ndarray:
    """Stable softmax over the last axis; -inf entries get exactly 0."""
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


@dataclass(frozen=True)
class Forward:
    x: np.ndarray
    q: np.ndarray            # [B, H, T, d]
    k: np.ndarray
    v: np.ndarray
    weights: np.ndarray      # softmax(q k^T / sqrt(d) + mask), [B, H, T, T]
    scale: np.ndarray        # dropout's keep / (1 - p) (ones when off), [B, H, T, T]
    z: np.ndarray            # (weights * scale) @ v, [B, H, T, d]
    y: np.ndarray            # merged @ w_out + b_out, [B, T, D]


def forward(x: np.ndarray, w: Weights, heads: int, causal: bool = True, keep: np.ndarray | None = None,
            p: float = 0.0, merge: Callable[[np.ndarray], np.ndarray] = merge_heads) -> Forward:
    """The attention of 4.8: one projection, split heads, masked scaled scores, softmax,
    dropout on the weights (keep mask, kept entries x 1/(1-p)), @ V, merge, out projection."""
    x = np.asarray(x, float)
    t, d_model = x.shape[1], x.shape[2]
    q, k, v = (split_heads(a, heads) for a in np.split(x @ w.w_qkv, 3, axis=-1))
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_model // heads)
    if causal:
        s = s + causal_mask(t)
    a = softmax(s)
    scale = np.ones_like(a) if keep is None else np.where(keep, 1.0 / (1.0 - p), 0.0)
    z = (a * scale) @ v
    return Forward(x, q, k, v, a, scale, z, merge(z) @ w.w_out + w.b_out)


def input_gradient(fw: Forward, dy: np.ndarray, w: Weights) -> np.ndarray:
    """dL/dx by backprop through forward() (correct merge), given dL/dy."""
    heads, d = fw.q.shape[1], fw.q.shape[3]
    dz = split_heads(dy @ w.w_out.T, heads)
    dropped = fw.weights * fw.scale
    dv = dropped.transpose(0, 1, 3, 2) @ dz
    da = (dz @ fw.v.transpose(0, 1, 3, 2)) * fw.scale
    ds = fw.weights * (da - np.sum(da * fw.weights, axis=-1, keepdims=True))
    dq = ds @ fw.k / np.sqrt(d)
    dk = ds.transpose(0, 1, 3, 2) @ fw.q / np.sqrt(d)
    dqkv = np.concatenate([merge_heads(g) for g in (dq, dk, dv)], axis=-1)
    return dqkv @ w.w_qkv.T


def prefix_loss(y: np.ndarray, prefix: int) -> tuple[float, np.ndarray]:
    """L = sum of squares of the outputs at positions t < prefix; returns (L, dL/dy)."""
    early = np.zeros_like(y)
    early[:, :prefix] = y[:, :prefix]
    return float(np.sum(early ** 2)), 2 * early


def row_change(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per (batch, position): max over the features of |a - b|."""
    return np.max(np.abs(a - b), axis=-1)


def largest(change: np.ndarray, prefix: int) -> tuple[int, int]:
    """The prefix position (batch, t) whose output changed most; on a tie (every change exactly 0
    with the mask) the latest position, then the first batch: the one nearest the future."""
    return max(((b, t) for b in range(change.shape[0]) for t in range(prefix)),
               key=lambda bt: (change[bt], bt[1], -bt[0]))


def features(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per (batch, position): the feature where |a - b| is largest (the first on ties)."""
    return np.argmax(np.abs(b - a), axis=-1)


@dataclass(frozen=True)
class Run:
    """One pair of runs (x, then the perturbed x) and what changed."""
    y: np.ndarray            # [B, T, D] on x
    y2: np.ndarray           # [B, T, D] on the perturbed input
    change: np.ndarray       # [B, T] max |y2 - y| per position
    feature: np.ndarray      # [B, T] the feature that change is taken at (the first on ties)
    prefix_max: float        # the largest change over the prefix positions
    worked: tuple[int, int, int]   # (batch, position, feature) of that change: `largest`, then `feature`
    limit: float             # the colour scale of y's strips: max |y| (1 where y is all 0)


def paired(x: np.ndarray, x2: np.ndarray, w: Weights, heads: int, prefix: int, **options: Any) -> Run:
    first, second = forward(x, w, heads, **options), forward(x2, w, heads, **options)
    change = row_change(first.y, second.y)
    feature = features(first.y, second.y)
    b, t = largest(change, prefix)
    return Run(first.y, second.y, change, feature, float(change[:, :prefix].max()),
               (b, t, int(feature[b, t])), float(np.max(np.abs(first.y))) or 1.0)


@dataclass(frozen=True)
class FutureCheck:
    shape: tuple[int, int, int]
    heads: int
    head_dim: int
    prefix: int
    delta: float
    seed: int
    p: float
    x: np.ndarray            # [B, T, D]
    x2: np.ndarray           # x + delta * u on positions >= prefix
    x_limit: float           # the colour scale of x's strips: max |x|
    future: int              # the perturbed positions: T - prefix
    push: np.ndarray         # [B, T] ||x2 - x|| per position (0 on the prefix)
    on: Run                  # causal mask on (eval mode)
    off: Run                 # mask off
    loss: float              # sum of squares of the prefix outputs (mask on, at x)
    grad: np.ndarray         # [B, T] ||dL/dx_t|| (mask on): 0 for the future positions
    grad_max: float          # its largest value (the bars' scale)
    future_grad: float       # its largest value over the future positions
    grad_off: np.ndarray     # [B, T] the same with the mask off
    future_grad_off: float
    keep: np.ndarray         # [2, B, H, T, T] the two dropout masks (True = kept)
    drop_noise: float        # two masks, no perturbation: max prefix change
    drop_both: float         # two masks and the perturbation
    drop_shared: float       # one shared mask and the perturbation
    eval_check: float        # eval mode (dropout off) and the perturbation: on.prefix_max
    visible: int             # the weights a query may see, at or below the diagonal: T(T + 1)/2
    dropped: np.ndarray      # [2] visible weights each mask drops (lower triangle)
    weights: np.ndarray      # [T, T] batch 0, head 0 attention weights (mask on)
    future_weight: float     # the largest weight on a future key, any batch and head: 0
    bug_weights_gap: float   # max |weights of the wrong-merge model - weights| (the same forward)
    bug: Run                 # the wrong merge, mask on


def future_check(shape: tuple[int, int, int] = (2, 6, 12), heads: int = 3, prefix: int = 4,
                 delta: float = 100.0, seed: int = 0, p: float = 0.1) -> FutureCheck:
    """Everything the future-check clip shows, from its inputs."""
    b, t, d = shape
    x, w, u, draws = draw(shape, heads, seed)
    x2 = x.copy()
    x2[:, prefix:] += delta * u[:, prefix:]
    on = paired(x, x2, w, heads, prefix)
    off = paired(x, x2, w, heads, prefix, causal=False)
    grads = []
    for causal in (True, False):
        fw = forward(x, w, heads, causal=causal)
        loss, dy = prefix_loss(fw.y, prefix)
        grads.append((loss, np.linalg.norm(input_gradient(fw, dy, w), axis=-1)))
    (loss, grad), (_, grad_off) = grads
    keep = draws >= p
    one, two = keep

    def dropout_y(xx: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return forward(xx, w, heads, keep=mask, p=p).y

    def prefix_gap(a: np.ndarray, c: np.ndarray) -> float:
        return float(row_change(a, c)[:, :prefix].max())
    lower = ~np.triu(np.ones((t, t), bool), 1)
    bug_first = forward(x, w, heads, merge=wrong_merge)
    bug = paired(x, x2, w, heads, prefix, merge=wrong_merge)
    reference = forward(x, w, heads)
    return FutureCheck(
        shape=(b, t, d), heads=heads, head_dim=d // heads, prefix=prefix, delta=float(delta),
        seed=seed, p=float(p), x=x, x2=x2, x_limit=float(np.max(np.abs(x))), future=t - prefix,
        push=np.linalg.norm(x2 - x, axis=-1), on=on, off=off, loss=loss, grad=grad,
        grad_max=float(grad.max()), future_grad=float(grad[:, prefix:].max()), grad_off=grad_off,
        future_grad_off=float(grad_off[:, prefix:].max()), keep=keep,
        drop_noise=prefix_gap(dropout_y(x, one), dropout_y(x, two)),
        drop_both=prefix_gap(dropout_y(x, one), dropout_y(x2, two)),
        drop_shared=prefix_gap(dropout_y(x, one), dropout_y(x2, one)),
        eval_check=on.prefix_max, visible=int(np.sum(lower)),
        dropped=np.array([int(np.sum(~m[0, 0] & lower)) for m in keep]),
        weights=reference.weights[0, 0],
        future_weight=float(np.max(reference.weights[..., ~lower])),
        bug_weights_gap=float(np.max(np.abs(bug_first.weights - reference.weights))), bug=bug)


# ------------------------------------------------------------------ where each number comes from
RUNS = (("on", True, merge_heads), ("off", False, merge_heads), ("bug", True, wrong_merge))


def provenance(r: FutureCheck) -> dict[str, Source]:
    """For each run (mask on, off, the wrong merge) and each input (x, then x2 = the perturbed x):
    NAME.Y[b][t][c] <- NAME.merged[b][t][*] (the output projection mixes every merged feature)
    NAME.merged[b][t][c] <- the head output it takes: NAME.z[b][h][t'][r] (the merge's index map)
    NAME.z[b][h][t][r] <- NAME.context[b][t] <- x[b][s][*] for the positions s it may see
    NAME.change[b][t] <- NAME.y[b][t][c], NAME.y2[b][t][c] at the feature c where |y2 - y| is
    largest (NAME.feature, first on ties); NAME.prefix_max <- NAME.change at NAME.worked;
    push[b][t] <- x2[b][t][*], x[b][t][*] (0 on the prefix), the colour scale <- the largest |x|."""
    b_n, t_n, d_n = r.shape
    h_n, hd = r.heads, r.head_dim
    out: dict[str, Source] = {}
    ids = np.arange(d_n * t_n).reshape(1, h_n, t_n, hd)     # one batch's head outputs, numbered
    for name, causal, merge in RUNS:
        taken = merge(ids)[0]                                 # [T, D]: the head output each feature takes
        run = getattr(r, name)
        for x_name, y_name in (("x", "y"), ("x2", "y2")):
            z, ctx, mg = f"{name}.z{x_name[1:]}", f"{name}.context{x_name[1:]}", f"{name}.merged{x_name[1:]}"
            for b in range(b_n):
                for t in range(t_n):
                    seen = range(t + 1) if causal else range(t_n)
                    out[f"{ctx}[{b}][{t}]"] = Source("visible inputs", tuple(
                        f"{x_name}[{b}][{s}][{e}]" for s in seen for e in range(d_n)))
                    for h in range(h_n):
                        for q in range(hd):
                            out[f"{z}[{b}][{h}][{t}][{q}]"] = Source("attention", (f"{ctx}[{b}][{t}]",))
                    for c in range(d_n):
                        head = np.unravel_index(int(taken[t, c]), (h_n, t_n, hd))
                        at = "".join(f"[{int(k)}]" for k in head)
                        out[f"{mg}[{b}][{t}][{c}]"] = Source("move", (f"{z}[{b}]{at}",))
                        out[f"{name}.{y_name}[{b}][{t}][{c}]"] = Source("output projection", tuple(
                            f"{mg}[{b}][{t}][{e}]" for e in range(d_n)))
        for b in range(b_n):
            for t in range(t_n):
                c = int(run.feature[b, t])
                out[f"{name}.change[{b}][{t}]"] = Source(
                    "max abs difference", (f"{name}.y[{b}][{t}][{c}]", f"{name}.y2[{b}][{t}][{c}]"))
        b, t, _ = run.worked
        out[f"{name}.prefix_max"] = Source("max", (f"{name}.change[{b}][{t}]",))
    for b, t in np.ndindex(b_n, t_n):      # step 1's pushes (none on the prefix), step 4's gradients
        out[f"push[{b}][{t}]"] = Source("unchanged", ()) if t < r.prefix else Source(
            "norm of difference", tuple(f"{x}[{b}][{t}][{e}]" for x in ("x2", "x") for e in range(d_n)))
        out[f"grad[{b}][{t}]"] = Source("gradient norm", ("loss",))
    out["color.high"] = Source("max abs", ("x" + "".join(f"[{int(k)}]" for k in np.unravel_index(
        int(np.argmax(np.abs(r.x))), r.x.shape)),))
    out["color.low"] = Source("negate", ("color.high",))
    out.update({f"drop.{n}": Source(op, ("p", "seed", *more)) for n, op, more in (
        ("noise", "dropout runs", ()), ("both", "dropout runs", ("delta",)), ("shared", "shared dropout", ("delta",)))})
    return out


# what each number with no source is (provenance.kind)
KINDS = {"p": Given("dropout"), "future": Made("subtract", ("shape[1]", "prefix")),
         r"future_grad|future_grad_off": Made("max over the future", ("loss",)),
         "loss": Made("sum of squares of the prefix outputs", ("x[*][*][*]",)),
         "visible": Made("count at or below the diagonal", ("shape[1]",)),
         r"dropped\[\d+\]": Made("count dropped", ("p", "seed")),
         "future_weight": Made("max over future keys", ("x[*][*][*]",)),
         r"bug\.weights_gap": Made("max abs difference", ("x[*][*][*]",))}
