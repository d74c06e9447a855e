"""4.2-4.3: the score-grid clip shows PyTorch's numbers: projections, QK^T, the scaled grid,
the sampled variances and one row's softmax with and without scaling.

`oracle(inputs)` recomputes every label the clip can draw from the checked inputs with torch
(and numpy for the documented sampling rule); `legal_inputs(rng)` draws raw options at the
limits of the clip's rules. tests/test_contract.py runs both over the default, the presets and
generated inputs. Also here: the book's numbers and captions; elsewhere: test_score_grid_cases.py
(captions chosen by the data, the largest inputs, files and bad input), test_score_grid_first.py
(the first score made) and test_score_grid_scaled.py (the first scaled score)."""
import math
import random
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import exact_sums, build, inputs_for
from contract import layout_problems, oracle_problems
from derivations import derivation_problems, moment_problems, watched

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


@pytest.mark.parametrize("seed", range(40))
def test_generated_inputs_are_legal(seed):
    raw = legal_inputs(random.Random(seed))
    inputs_for("score-grid", **raw)     # raises InputError if not


# ---------------------------------------------------------------- the book's numbers
def upstream_weights():
    """ch03: torch.manual_seed(123); W_query, W_key, W_value = torch.rand(3, 2) three times."""
    torch.manual_seed(123)
    return [torch.rand(3, 2) for _ in range(3)]


@pytest.fixture(scope="module")
def default():
    return build("score-grid")


def test_default_inputs_are_upstreams_ch03_weights():
    wq, wk, wv = upstream_weights()
    inputs = inputs_for("score-grid")
    for name, w in (("wq", wq), ("wk", wk), ("wv", wv)):
        np.testing.assert_allclose(inputs[name], w.double().numpy(), atol=5e-9)
    assert inputs["tokens"] == TOKENS.split()


def test_default_shows_the_books_printed_numbers(default):
    """The upstream notebook's printed query_2, attn_scores_2 and attn_weights_2."""
    shown = lambda labels: [default.value(lab)["text"] for lab in labels]
    assert shown(["q[1][0]", "q[1][1]"]) == ["0.4306", "1.4551"]
    assert shown([f"scores[1][{j}]" for j in range(6)]) == \
        ["1.2705", "1.8524", "1.8111", "1.0795", "0.5577", "1.5440"]
    assert shown([f"weights_scaled[0][{j}]" for j in range(6)]) == \
        ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
    assert "journey" in default.scene.captions[3][2]      # the row shown is query_2
    drawn = " ".join(s for _, s in default.texts)
    assert all(t in drawn for t in TOKENS.split())


def test_the_books_claim_var_grows_with_d_k_and_is_one_after_scaling(default):
    """4.3: Var(q.k) is about d_k, and about 1 after dividing by sqrt(d_k), for the shown sample."""
    widths, var, var_scaled = sampled_variance(2, 0)
    assert widths == [1, 2, 4, 16, 64]
    np.testing.assert_allclose(var, widths, rtol=0.1)
    np.testing.assert_allclose(var_scaled, 1, rtol=0.1)
    texts = [default.value(f"variance.var[{n}][0]")["text"] for n in range(5)]
    assert [round(float(t)) for t in texts] == [1, 2, 4, 16, 63]
    g = torch.Generator().manual_seed(0)       # an independent torch sample says the same
    for d in (4, 64):
        q, k = torch.randn(2, SAMPLES, d, generator=g, dtype=torch.float64)
        assert abs((q * k).sum(-1).var().item() / d - 1) < 0.1


def test_default_captions_follow_the_book(default):
    captions = [c[2] for c in default.scene.captions]
    assert len(captions) == 4
    assert "[T, T]" in captions[1] and "√dₖ" in captions[2] and "dₖ = 2" in captions[2]
    assert "更集中" in captions[3]


def test_the_grids_name_queries_and_keys_as_the_oracle_does(monkeypatch):
    """QKᵀ's rows are the queries and its columns the keys, each on its own row or column
    (tests/contract.py structure_problems with axis_names); planted: the key names reversed."""
    from contract import structure_problems
    from scenes.clips.score_grid import ScoreGrid
    inputs = inputs_for("score-grid", tokens="Your journey starts with one step")
    assert structure_problems(build("score-grid", inputs).manifest(), names=axis_names(inputs)) == []
    original = ScoreGrid.compute

    def reversed_keys(self):
        result = original(self)
        self.k_names = self.k_names[::-1]
        return result
    monkeypatch.setattr(ScoreGrid, "compute", reversed_keys)
    problems = structure_problems(build("score-grid", inputs).manifest(), names=axis_names(inputs))
    assert any("col 0 of scores" in p and "labelled 'step'" in p for p in problems), problems[:3]


def test_a_label_without_its_row_is_named_at_a_steps_end_only():
    """Mid-derivation QKᵀ has rows with no entry yet, so their labels cannot be placed
    (partial=True passes them over); at a step's end every label must have its row. Planted: the
    entries of QKᵀ's row 1 dropped from step 2's end."""
    from contract import structure_problems
    m = build("score-grid", inputs_for("score-grid")).manifest()
    grid = m["layout"][1]          # step 2: QKᵀ filled
    grid["items"] = [it for it in grid["items"] if not (it.get("grid", "").startswith("scores#")
                                                        and it.get("row") == 1 and it["kind"] == "number")]
    assert any("has no row 1" in p for p in structure_problems(m))
    assert not any("has no row" in p for p in structure_problems(m, partial=True))


# ---------------------------------------------------------------- the first cell, from a row of Q and of K
def deps_of(inputs):
    """Cell (i, j) of QKᵀ is made from row i of Q and row j of K (every entry of both); its scaled
    cell from it alone (√dₖ is a constant)."""
    width = (len(inputs["wq"][0]) if inputs["x"] is not None else len(inputs["q"][0]))

    def deps(label):
        i, j = (int(n) for n in re.findall(r"\[(\d+)\]", label))
        if label.startswith("scaled"):
            return {f"scores[{i}][{j}]"}
        return {f"q[{i}][{r}]" for r in range(width)} | {f"k[{j}][{r}]" for r in range(width)}
    return deps


def derived(inputs, lang="zh"):
    built, moments = watched("score-grid", inputs, lang)
    m, deps = built.manifest(), deps_of(inputs)
    problems = derivation_problems(m, deps) + moment_problems(m, moments, oracle(inputs), deps=deps)
    return built, moments, problems + layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))


# This clip's contract cases: every preset and generated inputs at the limits (tests/test_contract.py).
from test_contract import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("score-grid")
