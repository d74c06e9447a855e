"""4.5's oracle: every number the future-check clip draws, recomputed with PyTorch (float64).

The oracle re-draws the clip's documented inputs with numpy's default_rng(seed), in the
documented order (scenes/compute/future.py): x, w_qkv, w_out, b_out, u, the dropout draws;
then runs its own causal multi-head attention in torch (explicit triu mask, torch.softmax,
nn.Dropout's rule a * keep / (1 - p)) and takes gradients by autograd. scenes.compute is
never used as the oracle."""
import math
import random
import numpy as np
import torch

CLIP = "future-check"


def draws(inputs):
    """The documented draws, as torch float64 tensors (the dropout draws as numpy)."""
    b, t, d = inputs["shape"]
    rng = np.random.default_rng(inputs["seed"])
    x = rng.standard_normal((b, t, d))
    w_qkv = rng.standard_normal((d, 3 * d)) / math.sqrt(d)
    w_out = rng.standard_normal((d, d)) / math.sqrt(d)
    b_out = rng.standard_normal(d) / math.sqrt(d)
    u = rng.standard_normal((b, t, d))
    uniform = rng.random((2, b, inputs["heads"], t, t))
    as_t = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
    return as_t(x), (as_t(w_qkv), as_t(w_out), as_t(b_out)), as_t(u), uniform


def attention(x, weights, heads, causal=True, keep=None, p=0.0, wrong_merge=False):
    """Linear(D, 3D) -> chunk -> heads -> masked softmax -> dropout -> @ V -> merge -> out proj."""
    w_qkv, w_out, b_out = weights
    b, t, d = x.shape
    q, k, v = (a.reshape(b, t, heads, d // heads).transpose(1, 2) for a in (x @ w_qkv).chunk(3, dim=-1))
    s = q @ k.transpose(-2, -1) / math.sqrt(d // heads)
    if causal:
        s = s.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), -torch.inf)
    a = torch.softmax(s, dim=-1)
    dropped = a if keep is None else a * torch.tensor(keep, dtype=torch.float64) / (1 - p)
    z = dropped @ v
    merged = z.reshape(b, t, d) if wrong_merge else z.transpose(1, 2).reshape(b, t, d)
    return merged @ w_out + b_out, a


def rule(value):
    """An exact zero must be drawn as exactly 0; anything else is compared at display precision."""
    value = float(value)
    return (lambda shown: shown == 0) if value == 0 else value


def facts(inputs):
    """The torch tensors behind every label."""
    b, t, d = inputs["shape"]
    heads, prefix, p = inputs["heads"], inputs["prefix"], inputs["dropout"]
    x, weights, u, uniform = draws(inputs)
    x2 = x.clone()
    x2[:, prefix:] += inputs["delta"] * u[:, prefix:]
    out = {"x": x, "x2": x2}
    for name, causal in (("on", True), ("off", False)):
        y, _ = attention(x, weights, heads, causal)
        y2, _ = attention(x2, weights, heads, causal)
        out[name] = (y, y2, (y2 - y).abs().amax(-1))
    for name, causal in (("grad", True), ("grad_off", False)):
        leaf = x.clone().requires_grad_(True)
        y, _ = attention(leaf, weights, heads, causal)
        loss = (y[:, :prefix] ** 2).sum()
        loss.backward()
        out[name] = leaf.grad.norm(dim=-1)
        out[name + ".loss"] = loss.detach()
    keep = uniform >= p
    drop = lambda xx, k: attention(xx, weights, heads, keep=keep[k], p=p)[0]  # noqa: E731
    gap = lambda a, c: (a - c)[:, :prefix].abs().max()  # noqa: E731
    out["drop"] = {"noise": gap(drop(x, 0), drop(x, 1)), "both": gap(drop(x, 0), drop(x2, 1)),
                   "shared": gap(drop(x, 0), drop(x2, 0))}
    out["keep"] = keep
    y, a = attention(x, weights, heads)
    bug, bug_a = attention(x, weights, heads, wrong_merge=True)
    bug2, _ = attention(x2, weights, heads, wrong_merge=True)
    out["weights"], out["bug_weights_gap"] = a, (bug_a - a).abs().max()
    out["bug"] = gap(bug, bug2)
    return out


def oracle(inputs):
    """Every label the clip may draw, from torch and plain numpy written here."""
    b, t, d = inputs["shape"]
    prefix = inputs["prefix"]
    f = facts(inputs)
    o = {"section": "4.5", "prefix": prefix, "future": t - prefix, "heads": inputs["heads"],
         "seed": inputs["seed"], "delta": inputs["delta"], "p": inputs["dropout"],
         "visible": t * (t + 1) // 2, "head[0]": 0}
    o.update({f"shape[{k}]": n for k, n in enumerate((b, t, d))})
    o.update({f"batch[{k}]": k for k in range(b)})
    o.update({f"position[{k}]": k for k in range(t)})
    o.update({f"feature[{k}]": k for k in range(d)})
    limit = float(f["x"].abs().max())
    o["color.low"], o["color.high"] = -limit, limit
    push = (f["x2"] - f["x"]).norm(dim=-1)
    for name in ("on", "off"):
        y, y2, change = f[name]
        o[f"{name}.prefix_max"] = rule(change[:, :prefix].max())
        for idx in np.ndindex(b, t, d):      # the zoom shows one position's outputs (the largest change)
            o[f"{name}.y" + "".join(f"[{k}]" for k in idx)] = float(y[idx])
            o[f"{name}.y2" + "".join(f"[{k}]" for k in idx)] = float(y2[idx])
    for i in range(b):
        for j in range(t):
            o[f"push[{i}][{j}]"] = rule(push[i, j])
            o[f"grad[{i}][{j}]"] = rule(f["grad"][i, j])
            for name in ("on", "off"):
                o[f"{name}.change[{i}][{j}]"] = rule(f[name][2][i, j])
    o["loss"] = float(f["grad.loss"])
    o["future_grad"] = rule(f["grad"][:, prefix:].max())
    o["future_grad_off"] = rule(f["grad_off"][:, prefix:].max())
    o.update({f"drop.{k}": rule(v) for k, v in f["drop"].items()})
    lower = np.tril(np.ones((t, t), bool))
    for k in range(2):
        o[f"dropped[{k}]"] = int(np.sum(~f["keep"][k, 0, 0] & lower))
    future = ~torch.ones(t, t, dtype=torch.bool).tril()
    o["future_weight"] = rule(f["weights"][..., future].max())
    o["bug.weights_gap"] = rule(f["bug_weights_gap"])
    o["bug.prefix_max"] = rule(f["bug"])
    return o


def legal_inputs(rng: random.Random) -> dict:
    """Options at the limits of the rules: the largest shape, every head count that divides D,
    the first and last prefix, delta at +-100 and tiny or 1/3, the largest seed, p near 1."""
    b = rng.choice([1, 2, 2])
    t = rng.choice([2, 8, 8, rng.randint(2, 8)])
    d = rng.choice([1, 12, 12, rng.randint(1, 12)])
    heads = rng.choice([h for h in range(1, d + 1) if d % h == 0])
    prefix = rng.choice([1, t - 1, rng.randint(1, t - 1)])
    delta = rng.choice(["100", "-100", "1/3", "0.00001", "-0.00001", f"{rng.uniform(-100, 100):.3f}"])
    p = rng.choice(["0", "0.99999", "1/3", "0.5", f"{rng.random() * 0.999:.4f}"])
    seed = rng.choice([0, 2**31 - 1, rng.randint(0, 2**31 - 1)])
    return {"shape": f"{b},{t},{d}", "heads": str(heads), "prefix": str(prefix), "delta": delta,
            "seed": str(seed), "dropout": p}


def roles(inputs):
    """The colours the oracle gives (tests/support/contract.py colour_problems): how far each
    position was pushed, in the text colour before the prefix's end and in the mask colour for the
    future positions the perturbation changes."""
    (b, t, _), prefix = inputs["shape"], inputs["prefix"]
    return {"numbers": {f"push[{i}][{j}]": "mask" if j >= prefix else "text" for i in range(b) for j in range(t)}}
