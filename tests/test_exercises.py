"""4.9: the exercises' answers, each checked against PyTorch: the two attention versions with
transposed weights, the wrapper's width, the parameters of a real module, masked softmax, shapes."""
import random
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from contract import layout_problems, oracle_problems
from derivations import flow_problems, moment_problems, size_sources, watched
from scenes.compute import exercises as compute
from scenes.compute.provenance import Source
from test_contract import generated

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
               "weight": n["W_query.weight"], "qkv": sum(n[f"W_{k}.weight"] for k in ("query", "key", "value")),
               "out_weight": n["out_proj.weight"], "out_bias": n["out_proj.bias"], "total": sum(n.values())}
    out.update({f"params.{k}": f"{v:,}" for k, v in grouped.items()})
    squares = [p for p in mod.parameters() if p.dim() == 2 and p.shape == (d, d)]
    out.update({"params.d": d, "params.heads": h, "params.projections": sum(m.bias is None for m in mod.values()),
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


def shown(built):
    return {r["label"]: r for r in built.numbers}


def test_the_books_figures():
    """2,360,064 for D = 768, H = 12; rows (1, 0, 0), (½, ½, 0), (⅓, ⅓, ⅓); the shapes of 4.9."""
    built = build("exercises")
    got = shown(built)
    assert got["params.total"]["text"] == "2,360,064" and got["params.total"]["value"] == 2360064
    assert [got[f"params.{k}"]["text"] for k in ("w_query", "qkv", "out_weight", "out_bias")] == \
        ["589,824", "1,769,472", "589,824", "768"]
    rows = [[got[f"zeros.weights[{i}][{j}]"]["value"] for j in range(3)] for i in range(3)]
    assert np.allclose(rows, [[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]])
    assert [got[f"zeros.den[{i}][0]"]["text"] for i in (1, 2)] == ["2", "3"]
    for name, want in (("per_head", (2, 3, 5, 4)), ("scores", (2, 3, 5, 5)), ("merged", (2, 5, 12))):
        assert tuple(got[f"shapes.{name}[{k}]"]["value"] for k in range(len(want))) == want
    assert got["align.max_diff"]["text"] == "0" and got["wrap.d_out"]["value"] == 1
    assert [got[f"diag.weights[0][{j}]"]["text"] for j in range(3)] == ["NaN"] * 3
    captions = [c for _, _, c in built.scene.captions]
    assert len(captions) == 17 and "2,360,064" in captions[7]
    assert "(1, 0, 0)、(1/2, 1/2, 0)、(1/3, 1/3, 1/3)" in captions[9]
    assert "[2, 3, 5, 4]，分数 [2, 3, 5, 5]，合并后 [2, 5, 12]" in captions[11]
    assert "dim=−2" in captions[12] and "NaN" in captions[16]


def test_a_real_torch_module_counts_what_the_clip_draws():
    """The generic rule on the meta device, and torch's own MultiheadAttention with its
    input-projection bias taken away (the same module in torch's layout)."""
    for d, h in ((768, 12), (1024, 16), (4096, 64), (1, 1)):
        got = oracle(inputs_for("exercises", d_model=d, heads=h))
        assert got["params.total"] == f"{4 * d * d + d:,}"
        mha = nn.MultiheadAttention(d, h, bias=True, device="meta")
        assert sum(p.numel() for p in mha.parameters()) - mha.in_proj_bias.numel() == 4 * d * d + d


def test_masked_hidden_and_nan_cells_are_marked():
    """Every −∞ score, NaN weight and masked (hidden) zero carries its mark in the layout, and no
    other cell does: the structure check reads them (tests/contract.py)."""
    m = build("exercises", inputs_for("exercises", only="zeros,diagonal", pause=0)).manifest()
    drawn = {"masked": set(), "nan": set(), "hidden": set()}
    for it in (it for st in m["layout"] for it in st["items"] if it["kind"] == "mark"):
        drawn[it["mark"]].update(it["covers"])
    assert drawn == marks(m["inputs"]) and all(drawn.values())


@pytest.mark.parametrize("only, steps", [("3.3,shapes", 5), ("dim", 3), ("diagonal, 3.1", 5),
                                         ("zeros,zeros", 2)])
def test_only_a_subset_in_book_order(only, steps):
    inputs = inputs_for("exercises", only=only, pause=0)
    built = build("exercises", inputs)
    assert len(built.scene.captions) == steps
    assert inputs["only"] == [e for e in EXERCISES if e in only.replace(" ", "").split(",")]
    assert "pause" not in shown(built)          # no pause, no countdown


def test_one_model_for_both_exercises_when_given():
    got = shown(build("exercises", inputs_for("exercises", d_model=1024, heads=16, only="3.3,shapes")))
    assert got["params.total"]["text"] == "4,195,328"
    assert [got[f"shapes.per_head[{k}]"]["value"] for k in range(4)] == [2, 16, 5, 64]
    assert inputs_for("exercises", heads=4)["shapes"] == (768, 4)
    assert inputs_for("exercises")["shapes"] == (12, 3) and inputs_for("exercises")["params"] == (768, 12)


def test_the_pause_is_held_on_screen():
    built = build("exercises", inputs_for("exercises", only="3.2", pause=30))
    (start, end, _), _ = built.scene.captions
    assert end - start >= 30
    assert shown(built)["pause"]["text"] == "30"


@pytest.mark.parametrize("args, option", [
    (["--d-model", "770"], "--d-model"),            # 770 is not divisible by H = 12
    (["--d-model", "768", "--heads", "5"], "--heads"),
    (["--heads", "5"], "--heads"),
    (["--d-model", "4097"], "--d-model"),
    (["--d-model", "0"], "--d-model"),
    (["--heads", "65"], "--heads"),
    (["--heads", "2.5"], "--heads"),
    (["--pause", "31"], "--pause"),
    (["--pause", "-1"], "--pause"),
    (["--pause", "x"], "--pause"),
    (["--only", "3.4"], "--only"),
    (["--only", ","], "--only"),
    (["--only", "shapes,softmax"], "--only"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "exercises", args, option)


def test_unknown_exercise_lists_the_valid_ids(tmp_path):
    code, out = cli("exercises", "--only", "3.4", "--out", str(tmp_path / "o"))
    assert code == 2 and all(e in out for e in EXERCISES)


def test_dry_run_writes_the_manifest(tmp_path):
    code, out = cli("exercises", "--only", "3.3", "--d-model", "4096", "--heads", "64", "--dry-run",
                    "--out", str(tmp_path))
    assert code == 0, out
    m = manifest(tmp_path / "exercises.numbers.json")
    assert {r["label"]: r["text"] for r in m["numbers"]}["params.total"] == "67,112,960"
    assert m["inputs"]["params"] == [4096, 64]


def test_generated_inputs_are_legal():
    rng = random.Random(7)
    for _ in range(40):
        inputs_for("exercises", **legal_inputs(rng))


def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render("exercises", inputs_for("exercises", only="3.2,diagonal", pause=1))
    captions = assert_video_with_captions(out, "exercises", 4)
    assert captions[0][2].startswith("习题 3.2") and "NaN" in captions[3][2]


# -- each computed answer made from the numbers it is computed from (issue 25), against torch
def at(name, idx):
    return name + "".join(f"[{int(i)}]" for i in idx)


def pattern(out, name, of, fn, x, empty=()):
    """out[name[idx]] = the entries of `of` where torch's Jacobian of fn at x is not zero (rows
    `empty`, NaN for want of a visible key, are made from nothing)."""
    x = x.clone()
    x[list(empty)] = 0                 # (a NaN row's NaN would leak into every derivative)
    jac = torch.autograd.functional.jacobian(fn, x)
    for idx in np.ndindex(*jac.shape[:jac.dim() - x.dim()]):
        made = {at(of, src) for src in zip(*np.nonzero(jac[idx].numpy()))}
        out[at(name, idx)] = set() if idx[0] in empty else made


def taken(out, name, sources, made):
    """out[name[idx]] = the one entry torch's op `made` takes it from (sources: name -> shape)."""
    flat = {n: torch.arange(int(np.prod(shape))).reshape(shape) for n, shape in sources.items()}
    offset, where = 0, {}
    for n, t in flat.items():
        where.update({int(v) + offset: (n, idx) for idx, v in np.ndenumerate(t.numpy())})
        flat[n] = t + offset
        offset += t.numel()
    for idx, v in np.ndenumerate(made(*flat.values()).numpy()):
        out[at(name, idx)] = {at(*where[int(v)])}


def zeros(*size):
    return torch.zeros(*size)


SHAPE_LINES = {   # the shapes exercise's lines, run by torch on tensors of the sizes named
    "shapes.projected": (["shapes.batch", "shapes.time", "shapes.d_model"],
                         lambda b, t, d: F.linear(zeros(b, t, 3), zeros(d, 3)).shape),
    "shapes.head_dim": (["shapes.d_model", "shapes.heads"], lambda d, h: (d // h,)),
    "shapes.split": (["shapes.projected[0]", "shapes.projected[1]", "shapes.heads", "shapes.head_dim"],
                     lambda b, t, h, d: zeros(b, t, h * d).view(b, t, h, d).shape),
    "shapes.per_head": ([f"shapes.split[{k}]" for k in range(4)], lambda *s: zeros(*s).transpose(1, 2).shape),
    "shapes.scores": ([f"shapes.per_head[{k}]" for k in range(4)],
                      lambda *s: (zeros(*s) @ zeros(*s).transpose(2, 3)).shape),
    "shapes.back": ([f"shapes.scores[{k}]" for k in range(4)] + ["shapes.per_head[3]"],
                    lambda b, h, t, u, d: (zeros(b, h, t, u) @ zeros(b, h, u, d)).transpose(1, 2).shape),
    "shapes.merged": ([f"shapes.back[{k}]" for k in range(4)],
                      lambda b, t, h, d: zeros(b, t, h, d).reshape(b, t, -1).shape),
}


def torch_sources(inputs):
    """label -> what torch makes it from: the Jacobian's pattern for the weights and the sums, the
    index .T and cat take each entry from, the shapes' lines run on changed sizes; 3.3's counts by
    the rule the exercise states (a module's count is the sum of its tensors' numel)."""
    out = {"params.qkv": {"params.w_query", "params.w_key", "params.w_value"},
           "params.total": {"params.qkv", "params.out_weight", "params.out_bias"}}
    taken(out, "align.v1", {"align.linear": (2, 3)}, lambda w: w.T)
    taken(out, "wrap.concat", {f"wrap.head[{h}]": (3, 1) for h in range(2)}, lambda *h: torch.cat(h, -1))
    sx = torch.tensor(SCORE_X, dtype=torch.float64)
    for name, scores, diagonal in (("zeros", torch.zeros_like(sx @ sx.T), 1), ("diag", sx @ sx.T, 0)):
        _, masked, weights = masked_softmax(scores, diagonal)
        empty = [i for i in range(3) if torch.isinf(masked[i]).all()]
        pattern(out, f"{name}.weights", f"{name}.masked", lambda m: F.softmax(m, -1), masked, empty)
        pattern(out, f"{name}.sums", f"{name}.weights", lambda w: w.sum(-1), weights)
    s = sx @ sx.T
    for name, dim in (("right", -1), ("wrong", -2)):
        pattern(out, f"dim.{name}", "dim.scores", lambda m, d=dim: F.softmax(m, d), s)
        pattern(out, f"dim.{name}_rows", f"dim.{name}", lambda w: w.sum(-1), F.softmax(s, dim))
    pattern(out, "dim.wrong_cols", "dim.wrong", lambda w: w.sum(-2), F.softmax(s, -2))
    return {**out, **size_sources(SHAPE_LINES, oracle(inputs), ("shapes.head_dim",))}


def derived(inputs, lang="zh"):
    """The build with its moments, and every problem of its derivations: each `from` against torch's,
    each expression's and slide's sources, the contract mid-motion (kit derivations and shape flows)."""
    built, moments = watched("exercises", inputs, lang)
    m, deps = built.manifest(), torch_sources(inputs)
    find = lambda label: deps.get(label, set())    # noqa: E731
    problems = [f"{r['label']}: from {r['from']}, torch {sorted(find(r['label']))}" for r in m["numbers"]
                if "from" in r and set(r["from"]) != find(r["label"])]
    kit = [x for x in moments if "flow" not in x]
    problems += moment_problems(m, kit, oracle(inputs), marks=marks(inputs), deps=find)
    problems += flow_problems(m, moments, find)
    return built, moments, problems + layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))


@pytest.mark.parametrize("case", ["default", "exercises-extra", "exercises-gpt2-medium", 0, 1, 2, 3])
def test_each_answer_is_made_from_what_torch_makes_it_from(case):
    if isinstance(case, int):
        inputs, lang = generated("exercises", 400 + case)[1], "en" if case % 2 else "zh"
    else:
        inputs, lang = inputs_for("exercises", None if case == "default" else case), "zh"
    built, moments, problems = derived(inputs, lang)
    assert problems == [], "\n".join(problems[:20])
    shown = [r for r in built.numbers if "where" in r.get("derivation", {})]
    assert len([x for x in moments if "flow" not in x]) == len(shown)


def test_the_books_answers_are_made_as_the_exercises_explain():
    built, moments, problems = derived(inputs_for("exercises"))
    assert problems == []
    made = {r["label"]: r["derivation"] for r in built.numbers if "derivation" in r}
    said = {label: d["expression"] for label, d in made.items() if "expression" in d}
    assert said == {"params.qkv": "589,824 + 589,824 + 589,824 = 1,769,472",
                    "params.total": "1,769,472 + 589,824 + 768 = 2,360,064",
                    "zeros.weights[1][0]": "exp(0) / (exp(0) + exp(0)) = 0.5000",
                    "dim.right[0][0]": "exp(1) / (exp(1) + exp(0) + exp(1)) = 0.4223",
                    "dim.wrong_cols[0]": "0.4223 + 0.1554 + 0.4223 = 1.0000",
                    "diag.weights[0][0]": "这一行的键全被遮住，softmax 得到 NaN"}
    column = [made[f"align.v1[{j}][0]"]["shows"] for j in range(3)]
    assert column == [[f"align.linear[0][{j}]"] for j in range(3)]
    assert all(made[f"wrap.concat[{i}][{j}]"]["op"] == "concat" for i in range(3) for j in range(2))
    assert made["shapes.per_head[1]"] == {"step": 12, "op": "transpose", "shows": ["shapes.split[2]"],
                                          "motion": "flow"}


def test_planted_wrong_sources_are_caught(monkeypatch):
    """The softmax of the zeros' row taken over the next row's cells; the manifest told a column
    sum comes from the row: both are named."""
    from scenes.clips import exercises_answers as answers
    real = answers.softmax_cell

    def next_row(book, weights, of, hidden, nan_first=False):
        d = real(book, weights, of, hidden, nan_first)
        for t in d.terms():
            i, j = (int(n) for n in re.findall(r"\[(\d+)\]", t.label))
            t.label = at(t.label.split("[")[0], ((i + 1) % 3, j))
        return d
    monkeypatch.setattr(answers, "softmax_cell", next_row)
    _, _, problems = derived(inputs_for("exercises", only="zeros", pause=0))
    assert any("which it is not made from" in p for p in problems), problems
    monkeypatch.undo()
    real_sources = compute.sources
    monkeypatch.setattr(compute, "sources", lambda r: {**real_sources(r), "dim.wrong_cols[0]": Source(
        "sum", tuple(f"dim.wrong[0][{j}]" for j in range(3)))})
    _, _, problems = derived(inputs_for("exercises", only="dim", pause=0))
    assert any(p.startswith("dim.wrong_cols[0]: from") for p in problems), problems


def test_planted_expression_without_room_is_caught(monkeypatch):
    """A band the page never lays out (it stays where it was made): the expression lands on the grids."""
    from scenes.clips import exercises_answers as answers
    real = answers.in_a_row
    monkeypatch.setattr(answers, "in_a_row", lambda *groups, below=None, **kw: real(*groups, **kw))
    _, _, problems = derived(inputs_for("exercises", only="zeros", pause=0))
    assert any(p.startswith("mid-motion") and "overlaps" in p for p in problems), problems


# This clip's contract cases: every preset and generated inputs at the limits (tests/test_contract.py).
from test_contract import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("exercises")
