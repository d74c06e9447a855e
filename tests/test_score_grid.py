"""4.2-4.3: the score-grid clip shows PyTorch's numbers: projections, QK^T, the scaled grid,
the sampled variances and one row's softmax with and without scaling.

`oracle(inputs)` recomputes every label the clip can draw from the checked inputs with torch
(and numpy for the documented sampling rule); `legal_inputs(rng)` draws raw options at the
limits of the clip's rules. tests/test_contract.py runs both over the default, the presets and
generated inputs."""
import math
import random
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from contract import layout_problems, oracle_problems
from derivations import SEEDS, derivation_problems, moment_problems, watched
from test_contract import generated

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
        q, k, v = (x @ ws[n] for n in ("wq", "wk", "wv"))
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
    scores = q @ k.T
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
    """QK^T in plain numpy float64 (the row choice must see the same float ties as the clip)."""
    if inputs["x"] is not None:
        q, k = np.asarray(inputs["x"]) @ inputs["wq"], np.asarray(inputs["x"]) @ inputs["wk"]
    else:
        q, k = inputs["q"], inputs["k"]
    return np.asarray(q, float) @ np.asarray(k, float).T


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


# ---------------------------------------------------------------- captions chosen by the data
def captions_of(**given):
    return [c[2] for c in build("score-grid", inputs_for("score-grid", **given)).scene.captions]


def test_saturated_rows_do_not_claim_sharper_weights():
    """Both rows show 1.0000 for the winning key: no 'more concentrated' claim."""
    caption = captions_of(q="100 100; 1 0", k="100 100; -100 -100")[3]
    assert "更集中" not in caption and "相同" in caption


def test_one_key_and_width_one_are_said_as_they_are():
    assert "只有一个键" in captions_of(q="1 2; 3 4", k="5 6")[3]
    one = captions_of(q="1; 2", k="3; -1")
    assert "dₖ = 1" in one[3] and "更集中" not in one[3]
    assert "[T_q, T_k]" in captions_of(q="1 2; 3 4", k="5 6")[1]


def test_equal_scores_give_uniform_weights():
    caption = captions_of(q="0 0; 0 0", k="1 2; 3 4")[3]
    assert "均匀" in caption and "更集中" not in caption


# ---------------------------------------------------------------- the largest inputs
def test_largest_inputs_page_through_legible_boards():
    """8x8 X and W with +-100, 1/3 and 0.00001, twelve-character CJK tokens, the largest seed:
    boards too full for one frame become captioned steps of their own (X, each W, each product;
    the table, then the scaled grid), column labels are abbreviated, rows keep whole tokens."""
    from test_contract import proven
    rng = random.Random(7)
    pool_x = ["100", "-100", "1/3", "0.00001", "-99.99", "-1/3", "33.3333", "-0.00001"]
    pool_w = ["0.125", "-0.125", "1/24", "0.00001", "-1/24", "0.1249", "-0.0001"]
    tab = lambda pool: "; ".join(" ".join(rng.choice(pool) for _ in range(8)) for _ in range(8))
    names = ["".join(rng.choice(CJK) for _ in range(12)) for _ in range(8)]
    inputs = inputs_for("score-grid", x=tab(pool_x), wq=tab(pool_w), wk=tab(pool_w), wv=tab(pool_w),
                        tokens=" ".join(names), seed="2147483647")
    built, problems = proven("score-grid", inputs)
    assert problems == [], "\n".join(problems[:20])
    captions = [c[2] for c in built.scene.captions]
    assert len(captions) > 4
    assert "W_Q 把每行从 D_in = 8 维投影到 dₖ = 8 维。" in captions
    assert any(c.startswith("Q = X W_Q") for c in captions)
    assert any("本例 dₖ = 8" in c for c in captions)
    labels = [t for _, t in built.texts]
    assert all(labels.count(n) >= 2 for n in names)            # X rows and score rows, whole
    assert any(t.endswith("…") and names[0].startswith(t[:-1]) for t in labels)


# ---------------------------------------------------------------- files and bad input
def test_dry_run_manifest_holds_torchs_scores_for_given_q_k(tmp_path):
    q, k = "1 0 2; 0 1 -1; 1 1 0.5", "0.5 -1 1; 2 0 0; -1 1 1; 0 0 3"
    code, out = cli("score-grid", "--q", q, "--k", k, "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "score-grid.numbers.json" in names and not any(n.endswith((".mp4", ".png")) for n in names)
    m = manifest(tmp_path / "score-grid.numbers.json")
    shown = {r["label"]: r["value"] for r in m["numbers"]}
    expected = t64([[1, 0, 2], [0, 1, -1], [1, 1, 0.5]]) @ t64([[0.5, -1, 1], [2, 0, 0], [-1, 1, 1],
                                                                  [0, 0, 3]]).T
    for (i, j), val in np.ndenumerate(expected.numpy()):
        assert math.isclose(shown[f"scores[{i}][{j}]"], val, abs_tol=1e-12)
    assert len(m["steps"]) == 4 and m["inputs"]["tokens"] is None


NINE = "; ".join(["1 0"] * 9)


@pytest.mark.parametrize("args, option", [
    (["--q", "1 0; 0 1", "--k", "1 0 0; 0 1 0"], "--k"),          # Q, K widths differ
    (["--q", "1 0; 0 1", "--k", "1 0; 0 1", "--v", "1; 2; 3"], "--v"),   # K, V rows differ
    (["--q", "1 0; 0 101", "--k", "1 0; 0 1"], "--q"),            # out of [-100, 100]
    (["--q", "1 0; 0 1", "--k", "1 0; -100.5 1"], "--k"),
    (["--q", NINE, "--k", "1 0; 0 1"], "--q"),                   # more than 8 positions
    (["--q", "1 2 3 4 5 6 7 8 9", "--k", "1 2 3 4 5 6 7 8 9"], "--q"),   # more than 8 columns
    (["--q", "1 0; 0 1"], "--k"),                                # Q without K
    (["--q", "1 nan", "--k", "1 0"], "--q"),
    (["--x", NINE.replace("1 0", "1 0 0")], "--x"),
    (["--x", "1 0; 0 1"], "--wq"),                               # W_Q rows != D_in
    (["--wk", "1 0 0; 0 1 0; 0 0 1"], "--wk"),                   # d_k of W_K != W_Q's
    (["--x", "100 100 100", "--wq", "1 0; 1 0; 1 0"], "--wq"),    # X W_Q leaves [-100, 100]
    (["--tokens", "a b c"], "--tokens"),                         # wrong count
    (["--q", "1 0", "--k", "1 0; 0 1", "--tokens", "a"], "--tokens"),   # T_q != T_k: no axis labels
    (["--seed", "-1"], "--seed"),
    (["--seed", "2147483648"], "--seed"),
    (["--preset", "dropout"], "--preset"),
    (["--step", "5", "--dry-run"], "--step"),                     # past the last of 4 steps
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "score-grid", args, option)


def test_the_largest_seed_is_accepted():
    assert inputs_for("score-grid", seed="2147483647")["seed"] == 2**31 - 1


def test_tiny_real_render_reads_back(tiny_render):
    inputs = inputs_for("score-grid", q="1 0; 0 1; 1 1", k="1 0; 0 1; 1 1", v="1; 2; 3")
    out = tiny_render("score-grid", inputs)
    captions = assert_video_with_captions(out, "score-grid", 4)
    assert "softmax" in captions[3][2]


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


def test_the_first_score_is_made_from_the_first_query_and_key():
    built, moments, problems = derived(inputs_for("score-grid"))
    assert problems == []
    made = built.value("scores[0][0]")["derivation"]
    assert made["expression"] == "0.2309 · 0.3669 + 1.0966 · 0.7646 = 0.9231" and made["where"] == "page"
    assert [m["label"] for m in moments] == ["scores[0][0]", "scaled[0][0]"]
    assert "第一格是 Your 的查询与 Your 的键" in built.scene.narration[2]
    made = built.value("scaled[0][0]")["derivation"]
    assert made["expression"] == "0.9231 / 1.4142 = 0.6528" and made["with"] == ["scale"]
    assert "分数 0.9231 除以 1.4142，得到 0.6528" in built.scene.narration[3]


@pytest.mark.parametrize("seed", SEEDS)
def test_derivations_show_their_sources_and_keep_the_contract_mid_motion(seed):
    inputs = generated("score-grid", 100 + seed)[1]
    built, moments, problems = derived(inputs, "en" if seed % 2 else "zh")
    assert problems == [], "\n".join(problems[:20])
    shown = sum("where" in r.get("derivation", {}) for r in built.manifest()["numbers"])
    assert len(moments) == shown


def test_planted_wrong_source_and_value_are_caught(monkeypatch):
    """The first cell takes K's second row (the next key): its sources are wrong; with K's second
    row's numbers under k[0]'s labels, the oracle names them."""
    from scenes.clips import score_grid as clip
    first = clip.first_cell

    def next_key(book, r, grid):
        d = first(book, r, grid)
        for t in d.terms():
            if t.label.startswith("k[0]"):
                t.label, t.value = t.label.replace("k[0]", "k[1]"), float(r.k[1, int(t.label[5:-1])])
        return d
    monkeypatch.setattr(clip, "first_cell", next_key)
    _, _, problems = derived(inputs_for("score-grid"))
    assert any("which it is not made from" in p and "k[1][0]" in p for p in problems), problems

    def wrong_value(book, r, grid):
        d = first(book, r, grid)
        for t in d.terms():
            t.value = float(r.k[1, 0]) if t.label == "k[0][0]" else t.value
        return d
    monkeypatch.setattr(clip, "first_cell", wrong_value)
    _, _, problems = derived(inputs_for("score-grid"))
    assert any(p.startswith("k[0][0] shows") for p in problems), problems


# This clip's contract cases: every preset and generated inputs at the limits (tests/test_contract.py).
from test_contract import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("score-grid")
