"""4.6's oracle: every label the dropout clip can draw, computed with torch (nn.Dropout's
arithmetic, checked against nn.Dropout itself in tests/clips/test_dropout.py) and a sampler written here
from the documented seeding (numpy default_rng(seed); entry i of draw k kept when
random()[k, i] >= p), never from scenes.compute or the scene's own result; and `legal_inputs(rng)`,
inputs drawn at the limits of the rules (tests/clips/test_contract.py runs both).
"""
import itertools
import math
import random
import re

import numpy as np
import torch

SHOWN = 8                                     # masks listed in step 3, sampled masks in step 4
CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200)  # sample counts shown (those below N, then N)


def t(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


def dropped(w, keep, p):
    """nn.Dropout's output for a known keep pattern: kept entries x 1/(1-p), dropped 0."""
    return t(w) * torch.tensor([float(k) for k in keep], dtype=torch.float64) / (1 - p)


def probability(keep, p):
    """P(mask) when each entry is dropped independently with probability p."""
    return math.prod((1 - p) if k else p for k in keep)


def sampled(n, p, count, seed):
    """The documented sampler, written here: default_rng(seed).random((N, n)) >= p keeps."""
    return np.random.default_rng(seed).random((count, n)) >= p


def oracle(inputs):
    """Every label the clip can draw, from torch and the sampler above."""
    w, p, mode = np.asarray(inputs["weights"], float), float(inputs["p"]), inputs["mode"]
    n, train = len(w), mode == "train"
    p_eff = p if train else 0.0
    out = {"section": "4.6", "const": 1, "formula.one": 1, "formula.zero": 0, "p": p, "p_eff": p_eff,
           "eval.p_eff": 0, "weight_sum": float(t(w).sum()), "mask_count": 2 ** n}
    if p < 1:
        out["scale"] = 1 / (1 - p)
    out.update({f"position[{i}]": i for i in range(n)})
    out.update({f"weights[{i}]": float(v) for i, v in enumerate(w)})
    # the chosen masks, in order: train mode applies them, eval mode returns the row
    for k, keep in enumerate(inputs["masks"]):
        row = dropped(w, keep, p) if train else torch.nn.Dropout(p).eval()(t(w))
        out.update({f"chosen[{k}].mask[{i}]": int(b) for i, b in enumerate(keep)})
        out.update({f"chosen[{k}].row[{i}]": float(v) for i, v in enumerate(row)})
        out[f"chosen[{k}].sum"] = float(row.sum())
        out[f"chosen[{k}].prob"] = probability(keep, p) if train else float(all(keep))
    # every mask, 111...1 first, 000...0 last; the most probable eight listed
    masks = list(itertools.product((1, 0), repeat=n))
    probs = [probability(m, p_eff) for m in masks]
    rows = torch.stack([dropped(w, m, p_eff) for m in masks])
    for k, m in enumerate(masks):
        out.update({f"table[{k}].mask[{i}]": b for i, b in enumerate(m)})
        out.update({f"table[{k}].row[{i}]": float(v) for i, v in enumerate(rows[k])})
        out[f"table[{k}].sum"], out[f"table[{k}].prob"] = float(rows[k].sum()), probs[k]
    mean = t(probs) @ rows
    out.update({f"mean_row[{i}]": float(v) for i, v in enumerate(mean)})
    out["expected_sum"], out["prob_total"] = float(mean.sum()), float(sum(probs))
    out["listed_masks"], out["rest_count"] = min(SHOWN, 2 ** n), 2 ** n - min(SHOWN, 2 ** n)
    out["rest_prob"] = float(sum(sorted(probs, reverse=True)[SHOWN:]))
    # sampling: the masks drawn, their sums, the running mean at each checkpoint
    count = inputs["samples"]
    keep = sampled(n, p_eff, count, inputs["seed"])
    drawn = torch.stack([dropped(w, m, p_eff) for m in keep])
    running = torch.cumsum(drawn, 0) / torch.arange(1, count + 1, dtype=torch.float64)[:, None]
    out["seed"], out["listed_samples"] = inputs["seed"], min(SHOWN, count)
    for k in range(min(SHOWN, count)):
        out[f"sample[{k}]"], out[f"sample[{k}].sum"] = k, float(drawn[k].sum())
        out.update({f"sample[{k}].mask[{i}]": int(b) for i, b in enumerate(keep[k])})
    checkpoints = [c for c in CHECKPOINTS if c < count] + [count]
    for j, c in enumerate(checkpoints):
        out[f"checkpoint[{j}]"] = c
        out[f"gap[{j}]"] = float((running[c - 1] - t(w)).abs().max())
    out.update({f"running_mean@{c}[{i}]": float(v) for c in checkpoints for i, v in enumerate(running[c - 1])})
    # step 5: a train-mode row at the configured p (first mask) beside the eval row
    if p < 1:
        train_row = dropped(w, inputs["masks"][0], p)
        out.update({f"train.row[{i}]": float(v) for i, v in enumerate(train_row)})
        out["train.sum"] = float(train_row.sum())
    evaluated = torch.nn.Dropout(p).eval()(t(w))
    out.update({f"eval.row[{i}]": float(v) for i, v in enumerate(evaluated)})
    out["eval.sum"] = float(evaluated.sum())
    return out


def weights_text(rng, n):
    """n weights that sum to 1 within 1e-6: tiny ones, zeros, thirds, or random decimals."""
    kind = rng.choice(["decimal", "tiny", "zeros", "fraction", "one-hot"])
    if kind == "fraction":
        d = rng.choice([3, 6, 7]) if n > 1 else 1
        parts = []
        for _ in range(n - 1):
            parts.append(rng.randint(0, d - sum(parts)))
        return " ".join(f"{a}/{d}" for a in parts + [d - sum(parts)])
    units = [rng.randint(0, 10 ** 6) for _ in range(n)]
    if kind == "tiny":
        units = [10] * (n - 1) + [0]
    elif kind == "zeros":
        units = [0 if rng.random() < 0.5 else u for u in units]
    elif kind == "one-hot":
        units = [0] * n
    units[-1] = 0
    scale = 10 ** 6 / max(sum(units), 1) if kind in ("decimal", "zeros") else 1
    units = [int(u * scale) for u in units]
    units[rng.randrange(n) if kind == "one-hot" else -1] += 10 ** 6 - sum(units)
    return " ".join(f"{u / 10 ** 6:.6f}".rstrip("0").rstrip(".") or "0" for u in units)


def legal_inputs(rng: random.Random) -> dict:
    """Raw options at the limits: 1-6 weights (tiny, zero, thirds), p from 0 to just under 1,
    eval mode (p = 1 allowed there), up to 8 masks, 1-200 samples, seeds up to 2**31 - 1."""
    n = rng.choice([1, 2, 3, 6, 6, rng.randint(1, 6)])
    mode = rng.choice(["train", "train", "eval"])
    p = rng.choice(["0", "0.99", "1/3", "0.5", "0.00001", "0.999999", f"{rng.random() * 0.99:.4f}"]
                   + (["1"] if mode == "eval" else []))
    raw = {"weights": weights_text(rng, n), "p": p, "mode": mode,
           "samples": str(rng.choice([1, 2, 8, 9, 200, 200, rng.randint(1, 200)])),
           "seed": str(rng.choice([0, 2 ** 31 - 1, rng.randint(0, 2 ** 31 - 1)]))}
    if rng.random() < 0.8:
        count = rng.choice([1, 8, 8, rng.randint(1, 8)])
        raw["masks"] = ",".join("".join(rng.choice("01") for _ in range(n)) for _ in range(count))
    return raw


def roles(inputs):
    """The colours of the masks and rows (tests/support/contract.py colour_problems): a mask's kept
    bit in the text colour, its dropped bit in the mask colour; a row's kept entry in the value
    colour, its dropped entry in the mask colour. In eval mode the chosen masks are ignored: their
    rows are the original weights, kept (their bits are muted, except where step 5 applies the first
    in train mode: not checked). A copy in a derivation may be text."""
    train = inputs["mode"] == "train"
    numbers = {}
    for label, bit in oracle(inputs).items():
        found = re.fullmatch(r"(chosen|table|sample)\[(\d+)\]\.mask\[(\d+)\]", label)
        if not found:
            continue
        kind, k, i = found.groups()
        chosen = kind == "chosen"
        if train or not chosen:       # eval mode mutes the chosen masks, save the one step 5 applies
            numbers[label] = "text" if bit else "mask"
        if kind != "sample":
            numbers[f"{kind}[{k}].row[{i}]"] = "value" if bit or (chosen and not train) else "mask"
    return {"numbers": numbers}
