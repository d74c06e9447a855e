"""4.1's oracle: every label the weighted-average clip can draw, from torch (and plain Python
for counts and exact sums), never scenes.compute; legal_inputs(rng) draws raw options at the limits
of the clip's rules. tests/clips/test_contract.py runs both over the default, the presets and
generated inputs."""
import math
import random
import torch
import torch.nn.functional as F
from conftest import exact_sums

CLIP = "weighted-average"


def grid(out, name, values):
    values = values.reshape(values.shape[0], -1) if values.dim() > 1 else values[:, None]
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            out[f"{name}[{i}][{j}]"] = values[i, j].item()


def oracle(inputs):
    """Every label the clip can draw, from torch."""
    x = torch.tensor(inputs["x"], dtype=torch.float64)
    q = inputs["query"]
    n_rows, n_cols = x.shape
    out = {"section": "4.1", "const": 1, "rows": n_rows, "columns": n_cols,   # count words: 两/三 or two/three
           "query": q, "dim_last": -1, "dim_rows": -2}
    out.update({f"name[{j}]": j for j in range(n_rows)})
    out.update({f"component[{c}]": c for c in range(n_cols)})
    grid(out, "x", x)
    products = x * x[q]
    grid(out, "products", products)
    s = exact_sums(products)               # the products drawn, summed exactly: 1/3·2.25 − 2.25·1/3 is 0
    grid(out, "scores", s)
    total = math.fsum(s.tolist())
    out["scores_sum[0][0]"] = total
    if total != 0:
        ratios = s / total
        grid(out, "ratios", ratios)
        out["ratios_sum[0][0]"] = math.fsum(ratios.tolist())
    grid(out, "shifted", s - s.mean())
    out["shifted_sum[0][0]"] = 0
    m = s.max()
    out["shift"] = m.item()
    grid(out, "scores_shifted", s - m)
    for name, e in (("exps", torch.exp(s)), ("exps_shifted", torch.exp(s - m))):
        grid(out, name, e)
        out[f"{name}_sum[0][0]"] = e.sum().item()
    w = F.softmax(s, dim=-1)
    grid(out, "weights", w)
    out["weights_sum[0][0]"] = w.sum().item()
    grid(out, "parts", w[:, None] * x)
    z = w @ x
    grid(out, "output", z[None, :])
    gram = exact_sums(x[:, None, :] * x[None, :, :])
    grid(out, "gram", gram)
    for name, dim in (("softmax_rows", -1), ("softmax_cols", -2)):
        a = F.softmax(gram, dim=dim)
        grid(out, name, a)
        grid(out, f"{name}_sums", a.sum(-1))
    return out


ENTRIES = ["100", "-100", "1/3", "-1/3", "0.00001", "-0.00001", "0", "99.5", "-37", "2.25"]


TOKENS = ["abcdefghijkl", "注意力机制从加权平均推导", "WWWWWWWWWWWW", "一二三四五六七八九十一二",
          "x1", "journey", "自", "mmmmmmmmmmmm", "第4章"]


def legal_inputs(rng: random.Random) -> dict:
    """Raw options at the limits: 2-8 rows (often 8), 1-8 columns (often 8, 2 or 1), entries
    at ±100, 1/3, 0.00001, and 12-character or CJK tokens."""
    rows = rng.choice([2, 8, 8, rng.randint(2, 8)])
    cols = rng.choice([1, 2, 8, 8, rng.randint(1, 8)])
    x = "; ".join(" ".join(rng.choice(ENTRIES) if rng.random() < 0.8 else str(rng.randint(-100, 100))
                           for _ in range(cols)) for _ in range(rows))
    raw = {"x": x, "query": rng.randrange(rows)}
    if rng.random() < 0.7:
        raw["tokens"] = " ".join(rng.choice(TOKENS) for _ in range(rows))
    return raw


def roles(inputs):
    """The colours the oracle gives (tests/support/contract.py colour_problems): the query's row of
    X named in the query's colour, the other rows in the value's (they are what is mixed); a
    negative score over the sum, a 'weight' below zero, in the mask colour (it breaks the rule);
    the sums under the tables in the result colour (accent)."""
    q, n_rows = inputs["query"], len(inputs["x"])
    axes = {("x", "row"): {**{j: "value" for j in range(n_rows)}, q: "query"}}
    grids = {f"{name}_sum": "accent" for name in ("scores", "ratios", "shifted", "exps", "exps_shifted", "weights")}
    expected = oracle(inputs)
    entries = {label: "mask" if value < 0 else "text" for label, value in expected.items()
               if label.startswith("ratios[") and isinstance(value, float)}
    return {"axes": axes, "grids": grids, "entries": entries}
