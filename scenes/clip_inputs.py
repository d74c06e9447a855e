"""Each clip's input rules (SPEC.md section 2): raw strings in, checked numpy out.

`check(clip, raw)` returns a dict of checked inputs; `manifest_inputs` turns it
into plain JSON for the manifest. No Manim here.
"""
from __future__ import annotations

import re

import numpy as np

from scenes.inputs import InputError, flag, integer, matrix, number, tokens, vector


def weighted_average(raw):
    x = matrix(raw["x"], "x", rows=(2, 8))
    query = integer(raw.get("query", 1), "query", 0, len(x) - 1)
    return {"x": x, "query": query, "tokens": tokens(raw.get("tokens"), len(x))}


def score_grid(raw):
    """X with W_Q, W_K, W_V; or Q, K (and V) directly."""
    direct = raw.get("q") is not None or raw.get("k") is not None
    if direct:
        for name in ("q", "k"):
            if raw.get(name) is None:
                raise InputError(name, "", "give --q and --k together (or --x with --wq/--wk/--wv)")
        q, k = matrix(raw["q"], "q"), matrix(raw["k"], "k")
        v = matrix(raw["v"], "v") if raw.get("v") is not None else None
        x = wq = wk = wv = None
    else:
        x = matrix(raw["x"], "x")
        wq, wk, wv = (matrix(raw[n], n) for n in ("wq", "wk", "wv"))
        for name, w in (("wq", wq), ("wk", wk), ("wv", wv)):
            if len(w) != x.shape[1]:
                raise InputError(name, raw[name], f"needs {x.shape[1]} rows, the width D_in of --x")
        if wq.shape[1] != wk.shape[1]:
            raise InputError("wk", raw["wk"], "must have as many columns as --wq (d_k)")
        q, k, v = x @ wq, x @ wk, x @ wv
        for name, out in (("wq", q), ("wk", k), ("wv", v)):
            if np.abs(out).max() > 100:
                raise InputError(name, raw[name], f"X W_{name[1].upper()} = {name[1].upper()} has "
                                                  "entries outside [-100, 100]: use smaller X or W")
    if q.shape[1] != k.shape[1]:
        raise InputError("k", raw.get("k"), f"must be as wide as --q ({q.shape[1]} columns)")
    if v is not None and len(v) != len(k):
        raise InputError("v", raw.get("v"), f"needs as many rows as --k ({len(k)})")
    seed = integer(raw.get("seed", 0), "seed", 0, 2**31 - 1)
    labels = raw.get("tokens")
    if labels is not None and len(q) != len(k):
        raise InputError("tokens", str(labels), "label both axes of QK^T: give --q and --k "
                                                "with the same number of rows")
    return {"x": x, "wq": wq, "wk": wk, "wv": wv, "q": q, "k": k, "v": v, "seed": seed,
            "tokens": tokens(labels, len(q))}


def causal_mask(raw):
    q, k, v = matrix(raw["q"], "q"), matrix(raw["k"], "k"), matrix(raw["v"], "v")
    if q.shape[1] != k.shape[1]:
        raise InputError("k", raw["k"], f"must be as wide as --q ({q.shape[1]} columns)")
    if len(v) != len(k):
        raise InputError("v", raw["v"], f"needs as many rows as --k ({len(k)})")
    causal = not flag(raw.get("no_causal"))
    cached = integer(raw.get("cached", 0), "cached", 0, 7)
    diagonal = integer(raw.get("diagonal", 1), "diagonal", 0, 1)
    if causal and len(q) + cached != len(k):
        raise InputError("k", raw["k"], f"with the causal mask, --k needs rows of --q + --cached "
                                        f"= {len(q) + cached}, got {len(k)}")
    track = integer(raw.get("track", 1 if len(q) > 1 else 0), "track", 0, len(q) - 1)
    delta = number(raw.get("delta", 10), "delta")
    if not (0 < abs(delta) <= 100):
        raise InputError("delta", str(raw.get("delta")), "must be non-zero and in [-100, 100]")
    cache_view = integer(raw.get("cache_view", 3), "cache_view", 1, 5)
    return {"q": q, "k": k, "v": v, "track": track, "scale": not flag(raw.get("no_scale")),
            "causal": causal, "diagonal": diagonal, "cached": cached,
            "tokens": tokens(raw.get("tokens"), len(k)), "delta": delta, "cache_view": cache_view}


def dropout(raw):
    mode = str(raw.get("mode", "train"))
    if mode not in ("train", "eval"):
        raise InputError("mode", mode, "must be train or eval")
    weights = vector(raw["weights"], "weights", size=(1, 6), low=0, high=1)
    if abs(weights.sum() - 1) > 1e-6:
        raise InputError("weights", str(raw["weights"]),
                         "must sum to 1 (within 1e-6): give the row after softmax")
    p = number(raw.get("p", 0.5), "p")
    if not 0 <= p <= 1:
        raise InputError("p", str(raw.get("p")), "must lie in [0, 1)")
    if p == 1 and mode == "train":
        raise InputError("p", str(raw.get("p")), "p = 1 in train mode drops everything "
                                                  "and 1/(1-p) divides by zero: use p < 1")
    masks = []
    text = raw.get("masks")
    if text is None:   # the lab's 101,010,001,000 for three weights, any length alike:
        n = len(weights)  # alternate entries kept, the others, only the last, none
        rows = ["".join("10"[i % 2] for i in range(n)), "".join("01"[i % 2] for i in range(n)),
                "0" * (n - 1) + "1", "0" * n]
        text = ",".join(dict.fromkeys(rows))
    parts = text if isinstance(text, (list, tuple)) else str(text).split(",")
    for bits in (str(b).strip() for b in parts):
        if not re.fullmatch(r"[01]+", bits) or len(bits) != len(weights):
            raise InputError("masks", str(text), f"each mask is {len(weights)} bits of 0/1 "
                                                 "(bit i keeps entry i), comma-separated")
        masks.append(np.array([c == "1" for c in bits]))
    if len(masks) > 8:
        raise InputError("masks", str(text), "at most 8 masks")
    return {"weights": weights, "p": p, "mode": mode, "masks": masks,
            "samples": integer(raw.get("samples", 200), "samples", 1, 200),
            "seed": integer(raw.get("seed", 0), "seed", 0, 2**31 - 1)}


def multihead(raw):
    text = str(raw.get("shape", "1,3,4"))
    parts = [s for s in re.split(r"[,\s]+", text.strip()) if s]
    if len(parts) != 3:
        raise InputError("shape", text, "is B,T,D: three whole numbers")
    b = integer(parts[0], "shape", 1, 2)
    t = integer(parts[1], "shape", 1, 4)
    d = integer(parts[2], "shape", 1, 12)
    heads = integer(raw.get("heads", 2), "heads", 1, 4)
    if d % heads:
        raise InputError("heads", str(raw.get("heads")),
                         f"D = {d} is not divisible by H = {heads}: each head needs D/H features")
    track = str(raw.get("track", "e2")).strip()
    track = integer(track[1:] if track[:1] in "eE" and len(track) > 1 else track,
                    "track", 0, b * t * d - 1)
    # The error card's example (the book: D = 5, H = 2): it must be a D that H does not divide.
    error_d = integer(raw.get("error_d", 5), "error_d", 1, 12)
    error_heads = integer(raw.get("error_heads", 2), "error_heads", 2, 4)
    if error_d % error_heads == 0:
        raise InputError("error_d", str(raw.get("error_d", 5)),
                         f"the error example needs a D that H = {error_heads} does not divide")
    return {"shape": (b, t, d), "heads": heads, "track": track,
            "wrong_merge": flag(raw.get("wrong_merge")),
            "error_d": error_d, "error_heads": error_heads}


RULES = {"weighted-average": weighted_average, "score-grid": score_grid,
         "causal-mask": causal_mask, "dropout": dropout, "multihead": multihead}


def check(clip, raw):
    return RULES[clip](raw)


def manifest_inputs(checked):
    """Plain JSON: arrays become lists, masks bit strings."""
    def plain(v):
        if isinstance(v, np.ndarray):
            return "".join("1" if b else "0" for b in v) if v.dtype == bool else v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(i) for i in v]
        return v
    return {k: plain(v) for k, v in checked.items()}
