"""4.4–4.5's oracle: every label the causal-mask clip can draw, in torch (float64): masks from
torch.triu, masked_fill(-inf), F.softmax, F.scaled_dot_product_attention; scenes.compute is never
used. legal_inputs(rng) draws raw options at the limits of the rules; marks(inputs) and
axis_names(inputs) give the cells' marks and the grids' row and column names. The contract test
(tests/clips/test_contract.py) checks every frame and every number against them.
"""
import math
import random

import numpy as np
import torch
import torch.nn.functional as F

CLIP = "causal-mask"
# A sum of products this small next to its terms is rounding: any shown value that small agrees.
NOISE = 1e-12


def t64(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


def hidden_mask(n_q, n_k, diagonal=1, cached=0):
    """True where query i may not see key j: torch.triu(ones, diagonal=diagonal + cached)."""
    return torch.ones(n_q, n_k, dtype=torch.bool).triu(diagonal + cached)


def near(value, terms):
    """The oracle's value, or, when it is rounding noise next to its terms, the rule 'as small'."""
    value, floor = float(value), NOISE * max(float(terms), 1.0)
    return (lambda v: abs(v) <= floor) if abs(value) <= floor else value


def put(out, name, a, terms=None):
    """name[i][j] for every entry of a 2-D tensor; `terms` gives each entry's noise scale."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[f"{name}[{i}][{j}]"] = near(a[i, j], terms[i, j]) if terms is not None else a[i, j].item()


def attention(q, k, v, scale, causal, diagonal, cached):
    """The lab's five steps in torch, every row."""
    scores = q @ k.T
    terms = q.abs() @ k.abs().T
    divisor = math.sqrt(q.shape[-1]) if scale else 1.0
    hidden = (hidden_mask(len(q), len(k), diagonal, cached) if causal
              else torch.zeros(len(q), len(k), dtype=torch.bool))
    masked = (scores / divisor).masked_fill(hidden, -torch.inf)
    weights = F.softmax(masked, dim=-1)
    empty = hidden.all(-1)
    sdpa = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=~hidden,
                                          scale=None if scale else 1.0)[0]
    output = torch.where(empty[:, None], torch.nan, sdpa)     # no visible key: 0/0 in the maths
    return {"scores": scores, "terms": terms, "scaled": scores / divisor, "hidden": hidden,
            "mask": torch.zeros_like(scores).masked_fill(hidden, -torch.inf), "masked": masked,
            "weights": weights, "output": output, "out_terms": weights.nan_to_num().abs() @ v.abs(),
            "visible": (~hidden).sum(-1)}


def oracle(inputs):
    """Every label the clip can draw, from torch (float64)."""
    i = inputs
    q, k, v = t64(i["q"]), t64(i["k"]), t64(i["v"])
    t, c, d, scale, causal = i["track"], i["cached"], i["diagonal"], i["scale"], i["causal"]
    n_q, n_k = len(q), len(k)
    aligned = c + n_q == n_k
    out = {"section": "4.4", "const": 1, "keys": n_k, "scale": math.sqrt(q.shape[-1]), "triu_diagonal": d + c}
    out.update({f"key[{j}]": j for j in range(n_k)})
    out.update({f"query[{n}]": c + n if aligned else n for n in range(n_q)})
    for name, a in (("q", q), ("k", k), ("v", v)):
        put(out, name, a)
    a = attention(q, k, v, scale, causal, d, c)
    for name in ("scores", "scaled", "masked"):
        divisor = 1.0 if name == "scores" else math.sqrt(q.shape[-1]) if scale else 1.0
        put(out, name, a[name], a["terms"] / divisor)
    put(out, "weights", a["weights"])
    put(out, "mask", a["mask"])
    put(out, "output", a["output"], a["out_terms"])
    for r in range(n_q):
        out[f"row_sums[{r}]"] = a["weights"][r].sum().item()
        out[f"visible[{r}]"] = int(a["visible"][r])
    empty = torch.isnan(a["weights"]).any(-1).nonzero().flatten().tolist()
    if empty:
        out["nan_row"] = empty[0]
    post_route(out, a)
    other = 1 if causal and d == 0 else 0                          # step 4: the other diagonal
    b = attention(q, k, v, scale, True, other, c)
    out.update({"variant_diagonal": other, "variant_triu": other + c})
    put(out, f"mask_diagonal{other}", b["mask"])
    put(out, f"weights_diagonal{other}", b["weights"])
    for r in range(n_q):
        out[f"row_sums_diagonal{other}[{r}]"] = b["weights"][r].sum().item()
    empty = torch.isnan(b["weights"]).any(-1).nonzero().flatten().tolist()
    if empty:
        out["variant_nan_row"] = empty[0]
    causality(out, q, k, v, i)
    cache_view(out, n_q, c or i["cache_view"], d)
    padding(out, a, i)
    return out


def pad_columns(n_k, pads, side):
    """[T_k] True at the pad keys: a prefix of `pads` keys (left) or a suffix (right)."""
    j = torch.arange(n_k)
    return j < pads if side == "left" else j >= n_k - pads


def padded(a, v, pads, side):
    """The keys hidden by padding or by the step's causal mask; the weights (NaN in an empty row)."""
    pad = pad_columns(a["hidden"].shape[1], pads, side)[None, :].expand_as(a["hidden"])
    hidden = pad | a["hidden"]
    weights = F.softmax(a["scaled"].masked_fill(hidden, -torch.inf), dim=-1)
    return pad, hidden, weights


def empty_slots(out, name, hidden):
    rows = hidden.all(-1).nonzero().flatten().tolist()
    if len(rows) == 1:
        out[f"{name}_row"] = rows[0]
    elif rows:
        out[f"{name}_first"], out[f"{name}_last"] = rows[0], rows[-1]


def padding(out, a, i):
    """Step 5 (4.4's last paragraph): the padding mask, the causal mask (step 2's `mask`), their sum,
    the keys each row sees, the weights; the other side's counts."""
    pads, side = i["pad"], i["pad_side"]
    pad, hidden, weights = padded(a, None, pads, side)
    ninf = torch.tensor(-torch.inf, dtype=torch.float64)
    zero = torch.tensor(0.0, dtype=torch.float64)
    put(out, "pad_padding", torch.where(pad, ninf, zero))
    put(out, "pad_union", torch.where(hidden, ninf, zero))
    put(out, "pad_weights", weights)
    out["pad_pads"] = pads
    for r, n in enumerate((~hidden).sum(-1).tolist()):
        out[f"pad_visible[{r}]"] = n
    empty_slots(out, "pad", hidden)
    _, other, _ = padded(a, None, pads, "right" if side == "left" else "left")
    for r, n in enumerate((~other).sum(-1).tolist()):
        out[f"pad_other_visible[{r}]"] = n
    empty_slots(out, "pad_other", other)


def post_route(out, a):
    """Step 3: softmax over every key, the future zeroed, each row divided by what remains."""
    probs = F.softmax(a["scaled"], dim=-1)
    zeroed = probs.masked_fill(a["hidden"], 0.0)
    sums = zeroed.sum(-1)
    renorm = zeroed / sums[:, None]
    put(out, "post_probs", probs)
    put(out, "post_zeroed", zeroed)
    put(out, "post_renormalised", renorm)
    for r in range(len(sums)):
        out[f"post_row_sums[{r}]"] = sums[r].item()
    lost = ((sums == 0) & ~a["hidden"].all(-1)).nonzero().flatten().tolist()
    if lost:
        # the count is a word on screen: "七行" or "seven rows"
        out["underflow_row"], out["underflow_row_count"] = lost[0], len(lost)
    both = ~torch.isnan(renorm) & ~torch.isnan(a["weights"])
    gap = (renorm - a["weights"]).abs()[both].max().item() if both.any() else 0.0
    out["route_gap"] = (lambda x: 0 <= x <= NOISE) if gap <= NOISE else gap


def causality(out, q, k, v, i):
    """Step 5: only the last row of K and V changes, by delta; outputs with and without the mask."""
    t, delta = i["track"], i["delta"]
    k2, v2 = k.clone(), v.clone()
    k2[-1] += delta
    v2[-1] += delta
    put(out, "k_changed", k2)
    put(out, "v_changed", v2)
    out.update({"changed_row": len(k) - 1, "delta": delta})
    for name, causal in (("causal", True), ("open", False)):
        before = attention(q, k, v, i["scale"], causal, i["diagonal"], i["cached"])
        after = attention(q, k2, v2, i["scale"], causal, i["diagonal"], i["cached"])
        terms = torch.maximum(before["out_terms"], after["out_terms"])
        shift = (after["output"] - before["output"]).abs().max(-1).values
        for r in range(len(q)):
            out[f"shift_{name}[{r}]"] = near(shift[r], terms[r].max())
        for col in range(v.shape[1]):
            out[f"{name}_before[{t}][{col}]"] = near(before["output"][t, col], before["out_terms"][t, col])
            out[f"{name}_after[{t}][{col}]"] = near(after["output"][t, col], after["out_terms"][t, col])


def cache_view(out, n, cached, diagonal):
    """Step 6: 1 = may attend; a fresh triangle, and the new block after C cached positions."""
    fresh = (~hidden_mask(n, n, diagonal)).int()
    allowed = (~hidden_mask(n, cached + n, diagonal, cached)).int()
    put(out, "fresh", fresh)
    put(out, "cache_allowed", allowed)
    out.update({"cached": cached, "cache_visible[0]": int(allowed[0].sum()), "allowed_legend": 1})
    out.update({f"fresh_row[{r}]": r for r in range(n)})
    out.update({f"fresh_key[{j}]": j for j in range(n)})
    out.update({f"cache_row[{r}]": cached + r for r in range(n)})
    out.update({f"cache_key[{j}]": j for j in range(cached + n)})


# ---------------------------------------------------------------- legal inputs at the limits
POOLS = [["100", "-100"], ["100", "-100", "1/3", "-1/3", "0.00001", "-0.00001", "0"],
         ["1/3", "-1/3", "0.00001", "-0.00001"], ["99.99", "-7.5", "2.25", "-0.5", "1", "0", "-100"]]
TOKENS = ["abcdefghijkl", "Transformers", "注意力机制因果掩码自回归", "token_000123", "x", "因果", "journey"]


def table(rng, rows, cols, pool):
    return "; ".join(" ".join(rng.choice(pool) for _ in range(cols)) for _ in range(rows))


def legal_inputs(rng: random.Random) -> dict:
    """Raw options drawn at the limits: 1–8 queries (often 8), K/V rows = Q rows + cached (or any
    count without the mask), widths 1–8, entries ±100, 1/3, 0.00001, every flag, long tokens."""
    causal = rng.random() < 0.75
    n_q = rng.choice([8, 8, 1, rng.randint(1, 8)])
    cached = rng.randint(0, 8 - n_q) if causal else rng.randint(0, 7)
    n_k = n_q + cached if causal else rng.choice([8, rng.randint(1, 8)])
    d, d_v = rng.choice([8, rng.randint(1, 8)]), rng.choice([8, rng.randint(1, 8)])
    pool = rng.choice(POOLS)
    raw = {"q": table(rng, n_q, d, pool), "k": table(rng, n_k, d, pool), "v": table(rng, n_k, d_v, pool),
           "track": str(rng.randrange(n_q)), "cached": str(cached), "diagonal": rng.choice(["0", "1"]),
           "delta": rng.choice(["100", "-100", "0.00001", "-0.00001", "1/3", "-2.5"]),
           "cache_view": str(rng.randint(1, 5))}
    if not causal:
        raw["no_causal"] = True
    if rng.random() < 0.4:
        raw["no_scale"] = True
    if rng.random() < 0.5:
        raw["tokens"] = " ".join(rng.choice(TOKENS) for _ in range(n_k))
    if rng.random() < 0.8:                 # the padding step: often the most pads, T − 1
        raw["pad"] = str(rng.choice([n_k - 1, rng.randrange(n_k)]))
        raw["pad_side"] = rng.choice(["left", "right"])
    return raw


def grid_labels(name, hidden):
    return {f"{name}[{i}][{j}]" for i, j in hidden.nonzero().tolist()}


def marks(inputs):
    """Which cells carry a mark, from torch.triu: the future positions (hidden zeros) of every
    weights grid, the row changed in the check, the outputs the change leaves alone."""
    i = inputs
    n_q, n_k, c, d = len(i["q"]), len(i["k"]), i["cached"], i["diagonal"]
    main = hidden_mask(n_q, n_k, d, c) if i["causal"] else torch.zeros(n_q, n_k, dtype=torch.bool)
    other = 1 if i["causal"] and d == 0 else 0
    view = c or i["cache_view"]
    hidden = set()
    for name in ("weights", "post_zeroed", "post_renormalised"):
        hidden |= grid_labels(name, main)
    hidden |= grid_labels(f"weights_diagonal{other}", hidden_mask(n_q, n_k, other, c))
    hidden |= grid_labels("fresh", hidden_mask(n_q, n_q, d))
    hidden |= grid_labels("cache_allowed", hidden_mask(n_q, view + n_q, d, view))
    hidden |= {f"weights[{i['track']}][{j}]" for j in range(n_k)       # the five-step table
               if main[i["track"], j]}
    hidden |= {f"pad_visible[{r}]" for r in range(n_q) if int(i_visible(i)[r]) == 0}
    hidden |= grid_labels("pad_weights", padded(attention_of(i), None, i["pad"], i["pad_side"])[1])
    pad = pad_columns(n_k, i["pad"], i["pad_side"])[None, :].expand(n_q, n_k)
    padding_marks = grid_labels("pad_padding", pad) | grid_labels("pad_union", pad)
    last = n_k - 1
    changed = {f"{g}[{last}][{col}]" for g, w in (("k_changed", i["k"]), ("v_changed", i["v"]))
               for col in range(len(w[0]))}
    expected = oracle(inputs)
    unchanged = {label for label, v in expected.items() if label.startswith("shift_")
                 and (callable(v) or v == 0)}
    track = {f"shift_causal[{i['track']}]", f"shift_open[{i['track']}]"}
    track |= {f"cache_allowed[0][{j}]" for j in range(view + n_q)}
    return {"hidden": hidden, "changed": changed, "unchanged": unchanged, "track": track, "padding": padding_marks}


def attention_of(i):
    return attention(t64(i["q"]), t64(i["k"]), t64(i["v"]), i["scale"], i["causal"], i["diagonal"], i["cached"])


def i_visible(i):
    return (~padded(attention_of(i), None, i["pad"], i["pad_side"])[1]).sum(-1)


def axis_names(inputs):
    """Rows and columns are named by the oracle: keys k0… (or the tokens), queries by their
    position (after the cache), the cache view's rows and keys by their positions."""
    i = inputs
    n_q, n_k, c = len(i["q"]), len(i["k"]), i["cached"]
    tokens = i.get("tokens") or []
    aligned = c + n_q == n_k
    keys = {j: (tokens[j] if tokens else f"k{j}") for j in range(n_k)}
    queries = {n: (tokens[c + n] if tokens and aligned else f"q{c + n if aligned else n}")
               for n in range(n_q)}
    view = c or i["cache_view"]
    grids = ("mask", "post_probs", "post_renormalised", "mask_diagonal0", "mask_diagonal1", "post_zeroed",
             "pad_padding", "pad_union", "pad_weights")
    names = {g: {"row": queries, "col": keys} for g in grids}
    names.update({g: {"row": keys} for g in ("k", "v", "k_changed", "v_changed")})
    names["shift_causal"] = {"row": queries}
    names["fresh"] = {"row": {r: str(r) for r in range(n_q)}, "col": {j: str(j) for j in range(n_q)}}
    names["cache_allowed"] = {"row": {r: str(view + r) for r in range(n_q)},
                              "col": {j: str(j) for j in range(view + n_q)}}
    return names


QUERY_ROWS = ("mask", "mask_diagonal0", "mask_diagonal1", "post_probs", "post_zeroed", "post_renormalised",
              "shift_causal", "fresh", "cache_allowed", "pad_padding", "pad_weights")
PAD_COLUMNS = ("pad_padding", "pad_union", "pad_weights")   # the pad keys named in the muted colour
KEY_COLUMNS = ("mask", "mask_diagonal0", "mask_diagonal1", "weights_diagonal0", "weights_diagonal1",
               "post_probs", "post_zeroed", "post_renormalised", "fresh")
TRACKED_COLUMNS = ("scores", "scaled", "masked")      # the five-step table: the tracked query's columns


def roles(inputs):
    """The colours the oracle gives (tests/support/contract.py colour_problems): each grid whose rows
    are queries names them in the query's colour and its keys in the key's; K's rows are keys; the
    five-step table's columns are the tracked query's; the cache view's cached keys are muted."""
    view = inputs["cached"] or inputs["cache_view"]
    axes = {(g, "row"): "query" for g in QUERY_ROWS}
    axes.update({(g, "col"): "key" for g in KEY_COLUMNS})
    axes.update({(g, "row"): "key" for g in ("k", "k_changed")})
    axes.update({(g, "col"): "track" for g in TRACKED_COLUMNS})
    axes[("cache_allowed", "col")] = {**{j: "muted" for j in range(view)}, None: "key"}
    pads = pad_columns(len(inputs["k"]), inputs["pad"], inputs["pad_side"]).nonzero().flatten().tolist()
    axes.update({(g, "col"): {**{j: "muted" for j in pads}, None: "key"} for g in PAD_COLUMNS})
    axes[("pad_visible", "col")] = "accent"
    return {"axes": axes}
