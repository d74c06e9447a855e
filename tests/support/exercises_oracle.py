"""4.9's oracle, from PyTorch (never scenes.compute): every label the clip can draw, the cells it
marks, and legal inputs drawn at the limits; shared by tests/clips/test_exercises*.py and the contract."""
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

EXERCISES = ("3.1", "3.2", "3.3", "zeros", "shapes", "dim", "diagonal")
# The clip's example (its inputs): "Your journey starts", and weights drawn as nn.Linear draws
# them (uniform in ±1/√d_in) from numpy's generator with a fixed seed, rounded to two decimals.
X = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64]]
ALIGN_SEED, WRAP_SEED = 789, 123
SCORE_X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]       # 4.1's vectors
SHAPE_B, SHAPE_T = 2, 5


def drawn_weights(seed, count, d_out, d_in):
    bound = 1 / np.sqrt(d_in)
    return torch.tensor(np.round(np.random.default_rng(seed).uniform(-bound, bound, (count, d_out, d_in)), 2))


class SelfAttentionV1(nn.Module):
    """Upstream's v1: parameters in [d_in, d_out], x @ W."""
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query, self.W_key, self.W_value = (nn.Parameter(torch.rand(d_in, d_out, dtype=torch.float64))
                                                  for _ in range(3))

    def forward(self, x):
        q, k, v = x @ self.W_query, x @ self.W_key, x @ self.W_value
        return torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1) @ v


class SelfAttentionV2(nn.Module):
    """Upstream's v2: nn.Linear layers."""
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query, self.W_key, self.W_value = (nn.Linear(d_in, d_out, bias=False, dtype=torch.float64)
                                                  for _ in range(3))

    def forward(self, x):
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        return torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1) @ v


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, t):
        super().__init__()
        self.W_query, self.W_key, self.W_value = (nn.Linear(d_in, d_out, bias=False, dtype=torch.float64)
                                                  for _ in range(3))
        self.register_buffer("mask", torch.triu(torch.ones(t, t), diagonal=1).bool())

    def forward(self, x):
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        s = (q @ k.transpose(1, 2)).masked_fill(self.mask, -torch.inf)
        return torch.softmax(s / k.shape[-1] ** 0.5, dim=-1) @ v


def wrapper(d_out, heads=2, seed=WRAP_SEED):
    """MultiHeadAttentionWrapper: independent causal heads, concatenated on the last axis."""
    mods = [CausalAttention(3, d_out, 3) for _ in range(heads)]
    w = drawn_weights(seed, 3 * heads, d_out, 3)
    with torch.no_grad():
        for h, m in enumerate(mods):
            for n, lin in enumerate((m.W_query, m.W_key, m.W_value)):
                lin.weight.copy_(w[3 * h + n])
    x = torch.tensor([X], dtype=torch.float64)
    outs = [m(x)[0] for m in mods]
    return outs, torch.cat(outs, dim=-1)


def attention_module(d):
    """One upstream MultiHeadAttention's parameters (qkv_bias=False), on the meta device."""
    return nn.ModuleDict({"W_query": nn.Linear(d, d, bias=False, device="meta"),
                          "W_key": nn.Linear(d, d, bias=False, device="meta"),
                          "W_value": nn.Linear(d, d, bias=False, device="meta"),
                          "out_proj": nn.Linear(d, d, device="meta")})


def grid(out, name, tensor):
    for idx in np.ndindex(*tensor.shape):
        out[name + "".join(f"[{i}]" for i in idx)] = float(tensor[idx])


def shape(out, name, size):
    out.update({f"{name}[{k}]": int(v) for k, v in enumerate(size)})


def masked_softmax(scores, diagonal):
    mask = torch.triu(torch.ones_like(scores, dtype=torch.bool), diagonal=diagonal)
    masked = scores.masked_fill(mask, -torch.inf)
    return mask, masked, F.softmax(masked, dim=-1)


def oracle(inputs):
    """Every label the clip can draw, from torch (and counting written here)."""
    out = {"section": "4.9", "name.v1": "v1", "name.v2": "v2", "name.GPT-2": "GPT-2",
           "pause": inputs["pause"], **{f"row[{i}]": i for i in range(3)}}
    out.update({f"ex.{e}": e for e in EXERCISES[:3]})
    out.update({f"ex.{e}": n for n, e in enumerate(EXERCISES[3:], 1)})
    # 3.1: v2's weights transposed into v1
    x = torch.tensor(X, dtype=torch.float64)
    v2, v1 = SelfAttentionV2(3, 2), SelfAttentionV1(3, 2)
    w = drawn_weights(ALIGN_SEED, 3, 2, 3)
    with torch.no_grad():
        for n, name in enumerate(("W_query", "W_key", "W_value")):
            getattr(v2, name).weight.copy_(w[n])
            setattr(v1, name, nn.Parameter(getattr(v2, name).weight.T))
        o1, o2 = v1(x), v2(x)
    grid(out, "align.linear", v2.W_query.weight.detach())
    grid(out, "align.v1", v1.W_query.detach())
    shape(out, "align.linear.shape", v2.W_query.weight.shape)
    shape(out, "align.v1.shape", v1.W_query.shape)
    grid(out, "align.x", x)
    grid(out, "align.out_v1", o1)
    grid(out, "align.out_v2", o2)
    out["align.max_diff"] = lambda v, gap=float((o1 - o2).abs().max()): v == gap == 0 or 0 < v < 1e-12
    # 3.2: the d_out that makes two heads 2 wide
    d_out = next(d for d in range(1, 5) if wrapper(d)[1].shape[-1] == 2)
    outs, cat = wrapper(d_out)
    out.update({"wrap.heads": len(outs), "wrap.d_out": d_out, "wrap.width": cat.shape[-1], "wrap.d_in": 3,
                "wrap.book_d_out": 2, "wrap.book_width": wrapper(2)[1].shape[-1], "wrap.cat_dim": -1})
    for h, o in enumerate(outs):
        out[f"wrap.head_id[{h}]"] = h
        grid(out, f"wrap.head[{h}]", o.detach())
    grid(out, "wrap.concat", cat.detach())
    shape(out, "wrap.head_shape", outs[0].shape)
    shape(out, "wrap.concat_shape", cat.shape)
    # 3.3: count a real module's parameters
    d, h = inputs["params"]
    mod = attention_module(d)
    n = {k: v.numel() for k, v in mod.named_parameters()}
    grouped = {"w_query": n["W_query.weight"], "w_key": n["W_key.weight"], "w_value": n["W_value.weight"],
               "weight": n["W_query.weight"],
               "qkv": sum(n[f"W_{k}.weight"] for k in ("query", "key", "value")),
               "out_weight": n["out_proj.weight"], "out_bias": n["out_proj.bias"], "total": sum(n.values())}
    out.update({f"params.{k}": f"{v:,}" for k, v in grouped.items()})
    squares = [p for p in mod.parameters() if p.dim() == 2 and p.shape == (d, d)]
    out.update({"params.d": d, "params.heads": h,
                "params.projections": sum(m.bias is None for m in mod.values()),
                "params.coefficient": len(squares), "params.power": squares[0].dim(),
                "params.head_dim": torch.empty(1, 1, d, device="meta").view(1, 1, h, -1).shape[-1]})
    shape(out, "params.square", mod["W_query"].weight.shape)
    shape(out, "params.bias_shape", mod["out_proj"].bias.shape)
    # three zero scores
    mask, masked, weights = masked_softmax(torch.zeros(3, 3, dtype=torch.float64), 1)
    out.update({"zeros.t": 3, "zeros.score": 0.0, "zeros.diagonal": 1})
    grid(out, "zeros.masked", masked)
    grid(out, "zeros.weights", weights)
    grid(out, "zeros.sums", weights.sum(dim=-1))
    for (i, j), wv in np.ndenumerate(weights.numpy()):
        f = Fraction(float(wv)).limit_denominator(100)
        out[f"zeros.num[{i}][{j}]"], out[f"zeros.den[{i}][{j}]"] = f.numerator, f.denominator
    # shapes
    d, h = inputs["shapes"]
    q = torch.zeros(SHAPE_B, SHAPE_T, d)
    split = q.view(SHAPE_B, SHAPE_T, h, -1)
    per_head = split.transpose(1, 2)
    scores = per_head @ per_head.transpose(2, 3)
    back = (F.softmax(scores, dim=-1) @ per_head).transpose(1, 2)
    merged = back.contiguous().view(SHAPE_B, SHAPE_T, d)
    out.update({"shapes.d_model": d, "shapes.heads": h, "shapes.time": SHAPE_T, "shapes.batch": SHAPE_B,
                "shapes.head_dim": split.shape[-1], "shapes.swap[0]": 1, "shapes.swap[1]": 2,
                "shapes.key_swap[0]": 2, "shapes.key_swap[1]": 3})
    for name, t in (("projected", q), ("split", split), ("per_head", per_head), ("scores", scores),
                    ("back", back), ("merged", merged)):
        shape(out, f"shapes.{name}", t.shape)
    # softmax along the wrong axis
    sx = torch.tensor(SCORE_X, dtype=torch.float64)
    s = sx @ sx.T
    right, wrong = F.softmax(s, dim=-1), F.softmax(s, dim=-2)
    grid(out, "dim.scores", s)
    grid(out, "dim.right", right)
    grid(out, "dim.wrong", wrong)
    grid(out, "dim.right_rows", right.sum(dim=-1))
    grid(out, "dim.wrong_rows", wrong.sum(dim=-1))
    grid(out, "dim.wrong_cols", wrong.sum(dim=-2))
    out.update({"dim.right_axis": -1, "dim.wrong_axis": -2, "dim.one": 1,
                "dim.rows_off": int(((wrong.sum(dim=-1) - 1).abs() > 1e-9).sum())})
    # the diagonal masked too
    _, _, keep = masked_softmax(s, 1)
    mask, masked, hide = masked_softmax(s, 0)
    grid(out, "diag.masked", masked)
    grid(out, "diag.weights", hide)
    grid(out, "diag.visible", (~mask).sum(dim=-1))
    empty = int(torch.isnan(hide).all(dim=-1).nonzero()[0])
    out.update({"diag.keep": 1, "diag.hide": 0, "diag.first_empty": empty + 1,
                "diag.keep_visible": int((keep[0] > 0).sum()), "diag.keep_weight": float(keep[0, 0])})
    return out


def marks(inputs):
    """The cells the clip marks, from torch: −∞ scores masked, NaN weights, the masked zeros hidden."""
    out = {"masked": set(), "nan": set(), "hidden": set()}
    sx = torch.tensor(SCORE_X, dtype=torch.float64)
    for name, scores, diagonal in (("zeros", torch.zeros(3, 3, dtype=torch.float64), 1),
                                   ("diag", sx @ sx.T, 0)):
        _, masked, weights = masked_softmax(scores, diagonal)
        for i, j in np.ndindex(*masked.shape):
            if torch.isinf(masked[i, j]):
                out["masked"].add(f"{name}.masked[{i}][{j}]")
            if torch.isnan(weights[i, j]):
                out["nan"].add(f"{name}.weights[{i}][{j}]")
            elif torch.isinf(masked[i, j]):
                out["hidden"].add(f"{name}.weights[{i}][{j}]")
                if name == "zeros":                    # the fractions' grid marks them too
                    out["hidden"].add(f"zeros.frac[{i}][{j}]")
    return out


def legal_inputs(rng):
    """Raw options at the limits: the largest D and H, one head, D = 1, subsets, no pause, 30 s."""
    raw = {"pause": str(rng.choice([0, 1, 30, rng.randint(0, 30)]))}
    heads = rng.choice([1, 2, 3, 4, 8, 12, 16, 32, 64])
    d = rng.choice([heads, 4096 - 4096 % heads, heads * rng.randint(1, 4096 // heads)])
    mode = rng.random()
    if mode < 0.6:
        raw.update(d_model=str(d), heads=str(heads))
    elif mode < 0.8:
        raw["heads"] = str(rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]))   # divides 768
    elif mode < 0.9:
        raw["d_model"] = str(12 * rng.randint(1, 341))
    raw["only"] = ",".join(rng.sample(EXERCISES, rng.randint(1, len(EXERCISES))))
    return raw


def roles(inputs):
    """The colours the answers give their numbers (tests/support/contract.py colour_problems):
    3.1's first row of W_query.weight and the first column of W it becomes in the tracked colour;
    3.2's first head in the query's colour, the second in the key's, and in the concatenation each
    column in its head's; dim=-2's row sums that are not 1 in the mask colour, its column sums in
    the value colour."""
    out = oracle(inputs)
    entries = {}
    for label in out:
        if label.startswith("align.linear[0]["):
            entries[label] = "track"
        elif label.startswith("align.v1[") and label.endswith("][0]"):
            entries[label] = "track"
    colours = ("query", "key")
    d_out = out["wrap.d_out"]
    for label in out:
        if label.startswith("wrap.head[") and label.count("[") == 3:
            entries[label] = colours[int(label[len("wrap.head["):].split("]")[0]) % 2]
        elif label.startswith("wrap.concat["):
            entries[label] = colours[(int(label.rsplit("[", 1)[1][:-1]) // d_out) % 2]
        elif label.startswith("dim.wrong_rows["):
            entries[label] = "mask" if abs(out[label] - 1) > 1e-9 else "text"
        elif label.startswith("dim.wrong_cols["):
            entries[label] = "value"
    return {"entries": entries}
