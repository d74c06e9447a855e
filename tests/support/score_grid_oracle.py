"""4.2-4.3's oracle: every label the score-grid clip can draw, from torch (and numpy for the
documented sampling rule), never scenes.compute; axis_names(inputs) names rows and columns as the
clip must; legal_inputs(rng) draws raw options at the limits of the clip's rules."""
import math
import random
from fractions import Fraction
import numpy as np
import torch
import torch.nn.functional as F
from conftest import exact_sums

JOURNEY = ("0.43 0.15 0.89; 0.55 0.87 0.66; 0.57 0.85 0.64; 0.22 0.58 0.33; "
           "0.77 0.25 0.10; 0.05 0.80 0.55")


TOKENS = "Your journey starts with one step"


# The sampling step's documented rule (SPEC.md, score-grid step 3): widths {1, 4, 16, 64} and the
# clip's own d_k, in increasing order; numpy's default_rng(seed) draws, for each width d in turn,
# standard normals of shape (2, 20000, d): q, k; Var is the population variance (ddof 0).
WIDTHS, SAMPLES = (1, 4, 16, 64), 20000


def t64(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


def sampled_variance(d_k, seed):
    widths = sorted(set(WIDTHS) | {d_k})
    rng = np.random.default_rng(seed)
    var, var_scaled = [], []
    for d in widths:
        q, k = (torch.from_numpy(a) for a in rng.standard_normal((2, SAMPLES, d)))
        dots = (q * k).sum(-1)
        var.append(dots.var(unbiased=False).item())
        var_scaled.append((dots / math.sqrt(d)).var(unbiased=False).item())
    return widths, var, var_scaled


def matrix_labels(out, name, values):
    values = np.asarray(values, float)
    for (i, j), v in np.ndenumerate(values):
        out[f"{name}[{i}][{j}]"] = float(v)
    for n, size in enumerate(values.shape):
        out[f"{name}.shape[{n}]"] = size


def oracle(inputs):
    """Every label the clip can draw, from torch (and the documented sampling rule)."""
    out = {"section": "4.2", "section.scaling": "4.3", "const": 1, "seed": inputs["seed"]}
    if inputs["x"] is not None:
        x = t64(inputs["x"])
        ws = {n: t64(inputs[n]) for n in ("wq", "wk", "wv")}
        q, k, v = (exact_sums(x[:, None, :] * ws[n].T[None, :, :]) for n in ("wq", "wk", "wv"))
        matrix_labels(out, "x", x)
        for n, w in ws.items():
            matrix_labels(out, n, w)
        for name, a in (("x", x), ("wq", ws["wq"]), ("q", q)):
            for n, size in enumerate(a.shape):
                out[f"rule.{name}[{n}]"] = size
    else:
        q, k = t64(inputs["q"]), t64(inputs["k"])
        v = None if inputs["v"] is None else t64(inputs["v"])
    for name, a in (("x", inputs["x"]), ("q", q), ("k", k), ("v", v)):
        if a is not None:
            matrix_labels(out, name, a)
            for j in range(len(a)):     # row labels q0, k1, ... when no tokens are given
                out[f"{name}.index[{j}]"] = j
    scores = exact_sums(q[:, None, :] * k[None, :, :])     # torch's products, summed exactly
    d_k = q.shape[-1]
    scaled = scores / math.sqrt(d_k)
    matrix_labels(out, "scores", scores)
    matrix_labels(out, "scaled", scaled)
    for name, a in (("scores", scores), ("scaled", scaled)):
        out[f"{name}_legend.low"], out[f"{name}_legend.high"] = a.min().item(), a.max().item()
    out["d_k"], out["scale"] = d_k, math.sqrt(d_k)
    widths, var, var_scaled = sampled_variance(d_k, inputs["seed"])
    out["variance.samples"] = SAMPLES
    for n, d in enumerate(widths):
        out[f"variance.d_k[{n}][0]"] = d
        out[f"variance.var[{n}][0]"] = var[n]
        out[f"variance.var_scaled[{n}][0]"] = var_scaled[n]
    # The row shown: the query whose scores spread most (max - min), the first on ties.
    spread = np.asarray(inputs_scores(inputs))
    row = int(np.argmax(spread.max(-1) - spread.min(-1)))
    raw, soft = F.softmax(scores[row], -1), F.softmax(scaled[row], -1)
    for j in range(scores.shape[1]):
        out[f"row.scores[0][{j}]"] = scores[row, j].item()
        out[f"row.scaled[0][{j}]"] = scaled[row, j].item()
        out[f"weights_raw[0][{j}]"] = raw[j].item()
        out[f"weights_scaled[0][{j}]"] = soft[j].item()
    out["peak_raw"], out["peak_scaled"] = raw.max().item(), soft.max().item()
    if v is not None:   # SDPA's default scale is 1/sqrt(d_k): the weights the clip shows
        sdpa = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        assert torch.allclose(sdpa, F.softmax(scaled, -1) @ v, rtol=1e-9, atol=1e-9)
    return out


def inputs_scores(inputs):
    """QK^T in plain numpy float64, the products summed exactly (the row choice must see the same
    float ties as the clip)."""
    if inputs["x"] is not None:
        x = np.asarray(inputs["x"], float)
        q, k = ([[math.fsum(x[i] * np.asarray(inputs[w], float)[:, j]) for j in range(len(inputs[w][0]))]
                 for i in range(len(x))] for w in ("wq", "wk"))
    else:
        q, k = inputs["q"], inputs["k"]
    products = np.asarray(q, float)[:, None, :] * np.asarray(k, float)[None, :, :]
    return np.array([[math.fsum(p) for p in row] for row in products])


def axis_names(inputs):
    """Rows and columns as the oracle names them: Q's rows and QKᵀ's (and its scaled form's) by
    the queries, its columns by the keys (the tokens, else q0…, k0…); X's rows, or Q's, K's and
    V's given directly; the one-row table's and the variance table's own heads."""
    tokens = inputs.get("tokens") or []
    given = {n: inputs[n] for n in ("x", "q", "k", "v") if inputs[n] is not None}
    rows = {n: len(a) for n, a in given.items()}
    rows_q, rows_k = (rows.get(n, rows.get("x")) for n in ("q", "k"))

    def named(prefix, count):
        return {j: tokens[j] if tokens else f"{prefix}{j}" for j in range(count)}
    grid = {"row": named("q", rows_q), "col": named("k", rows_k)}
    names = {"scores": grid, "scaled": grid, **{n: {"row": named(n, count)} for n, count in rows.items()}}
    heads = {"row.scores": "q·k", "row.scaled": "q·k/√dₖ", "weights_raw": "softmax(q·k)",
             "weights_scaled": "softmax(q·k/√dₖ)"}
    names.update({n: {"row": {0: text}} for n, text in heads.items()})
    names.update({f"variance.{n}": {"col": {0: text}}
                  for n, text in (("d_k", "dₖ"), ("var", "Var(q·k)"), ("var_scaled", "Var(q·k/√dₖ)"))})
    return names


# ---------------------------------------------------------------- generated legal inputs
SPECIAL = ["100", "-100", "1/3", "-1/3", "0.00001", "-0.00001", "0", "99.99", "-2/3"]


ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


CJK = "注意力查询键值缩放因子点积方差权重矩阵"


def entry(rng, limit=100.0):
    """One entry as typed: a limit, a fraction, a tiny number or a random one (|v| <= limit)."""
    pick = rng.random()
    if pick < 0.45:
        v = rng.choice(SPECIAL)
        return v if abs(float(Fraction(v))) <= limit else repr(limit * rng.choice([-1, 1]))
    return repr(round(rng.uniform(-limit, limit), rng.choice([0, 2, 4, 6])))


def table(rng, rows, cols, limit=100.0):
    return "; ".join(" ".join(entry(rng, limit) for _ in range(cols)) for _ in range(rows))


def side(rng):
    return 8 if rng.random() < 0.5 else rng.randint(1, 8)


def token(rng):
    kind = rng.random()
    if kind < 0.4:
        return "".join(rng.choice(ASCII) for _ in range(12))
    if kind < 0.8:
        return "".join(rng.choice(CJK) for _ in range(12))
    return "".join(rng.choice(ASCII + CJK) for _ in range(rng.randint(1, 12)))


def legal_inputs(rng: random.Random) -> dict:
    """Raw options at the limits: 8x8 X and W (X W inside [-100, 100]) or Q, K (and V) given
    directly with their own row counts, entries at +-100 and tiny fractions, long tokens, any seed."""
    raw = {"seed": str(rng.choice([0, 2**31 - 1, rng.randint(0, 2**31 - 1)]))}
    if rng.random() < 0.5:
        t, d_in, d_k, d_v = side(rng), side(rng), side(rng), side(rng)
        x_limit = rng.choice([100.0, 10.0, 1.0])
        w_limit = 100.0 / (d_in * x_limit)          # every |X W| entry stays within 100
        raw.update(x=table(rng, t, d_in, x_limit), wq=table(rng, d_in, d_k, w_limit),
                   wk=table(rng, d_in, d_k, w_limit), wv=table(rng, d_in, d_v, w_limit))
        t_q = t_k = t
    else:
        t_q, t_k, d_k = side(rng), side(rng), side(rng)
        raw.update(q=table(rng, t_q, d_k), k=table(rng, t_k, d_k))
        if rng.random() < 0.6:
            raw["v"] = table(rng, t_k, side(rng))
    if t_q == t_k and rng.random() < 0.6:
        raw["tokens"] = " ".join(token(rng) for _ in range(t_q))
    return raw


def roles(inputs):
    """The colours the oracle gives (tests/support/contract.py colour_problems): in 4.3's variance
    table the row of the clip's own dₖ in the tracked colour; the grids of scores have the queries'
    names on their rows and the keys' on their columns, each in its colour."""
    d_k = len(inputs["wq"][0]) if inputs["x"] is not None else len(inputs["q"][0])
    widths, _, _ = sampled_variance(d_k, inputs["seed"])
    own = list(widths).index(d_k)
    entries = {f"variance.{name}[{own}][0]": "track" for name in ("d_k", "var", "var_scaled")}
    axes = {(grid, "row"): "query" for grid in ("scores", "scaled")}
    axes.update({(grid, "col"): "key" for grid in ("scores", "scaled", "row.scores")})
    return {"entries": entries, "axes": axes}
