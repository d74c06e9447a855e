"""4.9: each computed answer made from the numbers it is computed from, against torch."""
import re
from functools import lru_cache

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import inputs_for
from support.contract import layout_problems, oracle_problems
from support.derivations import case_inputs, flow_problems, moment_problems, size_sources, watched
from support.exercises_oracle import SCORE_X, marks, masked_softmax, oracle
from scenes.compute import exercise_sources, exercises as compute
from scenes.compute.provenance import Source


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


def attention_pattern(out, name, x_name, w_names, shape, causal=False, linear=True):
    """out[name[i][c]] = what torch's Jacobian of softmax(x Wq (x Wk)ᵀ / √d) x Wv at [i][c] is not
    zero for, at random x and W of the answer's shapes (W in nn.Linear's [d_out, d_in] when linear)."""
    t, d_in, d_out = shape
    gen = torch.Generator().manual_seed(0)
    leaves = [torch.randn(t, d_in, generator=gen, dtype=torch.float64)] + [
        torch.randn(*((d_out, d_in) if linear else (d_in, d_out)), generator=gen, dtype=torch.float64)
        for _ in range(3)]

    def attend(x, *ws):
        q, k, v = (x @ w.T if linear else x @ w for w in ws)
        s = q @ k.T / d_out ** 0.5
        if causal:
            s = s.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), -torch.inf)
        return F.softmax(s, -1) @ v
    jac = torch.autograd.functional.jacobian(attend, tuple(leaves))
    for idx in np.ndindex(t, d_out):
        out[at(name, idx)] = {at(n, src) for n, d in zip((x_name, *w_names), jac) for src in zip(*np.nonzero(d[idx].numpy()))}


def torch_sources(inputs):
    """label -> what torch makes it from: the Jacobian's pattern for the weights, the sums and the
    attention outputs, the index .T and cat take each entry from, the shapes' lines run on changed
    sizes; 3.3's counts by the rule the exercise states (a module's count is the sum of its tensors'
    numel, a tensor's the product of its shape), a row's visible keys from its masked scores."""
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
    attention_pattern(out, "align.out_v1", "align.x", ("align.v1", "align.v1_key", "align.v1_value"), (3, 3, 2),
                      linear=False)
    attention_pattern(out, "align.out_v2", "align.x", ("align.linear", "align.linear_key", "align.linear_value"),
                      (3, 3, 2))
    for h in range(2):
        attention_pattern(out, f"wrap.head[{h}]", "align.x", tuple(f"wrap.w_{n}[{h}]" for n in ("query", "key", "value")),
                          (3, 3, 1), causal=True)
    out.update({f"params.{n}": {"params.square[0]", "params.square[1]"}    # numel of a [D, D] weight
                for n in ("w_query", "w_key", "w_value", "out_weight")})
    out["params.out_bias"] = {"params.bias_shape[0]"}                     # numel of a [D] bias
    out.update({f"diag.visible[{i}]": {f"diag.masked[{i}][{j}]" for j in range(3)} for i in range(3)})  # finite ones
    # what the lines around the answers compute from other numbers, as torch computes them
    out["align.max_diff"] = {f"align.out_v{k}[{i}][{j}]" for k in (1, 2) for i in range(3) for j in range(2)}  # (a - b).abs().max()
    out["params.head_dim"] = {"params.d", "params.heads"}                 # d_out // num_heads
    out["params.weight"] = {"params.square[0]", "params.square[1]"}        # a [D, D] weight's numel
    for name in ("zeros", "diag"):
        hide = "zeros.diagonal" if name == "zeros" else "diag.hide"
        out.update({f"{name}.masked[{i}][{j}]": {hide} for i in range(3) for j in range(3)})    # torch.triu(.., diagonal)
    out.update({f"zeros.{part}[{i}][{j}]": {f"zeros.masked[{i}][{k}]" for k in range(3)}    # exp(x) / sum(exp(row))
                for part in ("num", "den") for i in range(3) for j in range(3)})
    out["dim.rows_off"] = {f"dim.wrong_rows[{i}]" for i in range(3)}        # (rows != 1).sum()
    out["diag.first_empty"] = {f"diag.visible[{i}]" for i in range(3)}      # the first row with none visible
    out["diag.keep_visible"] = out["diag.keep_weight"] = {"diag.keep"}      # triu with the diagonal kept
    return {**out, **size_sources(SHAPE_LINES, oracle(inputs), ("shapes.head_dim",))}


def derived(inputs, lang="zh", shared=False):
    """The build with its moments, and every problem of its derivations: each `from` against torch's,
    each expression's and slide's sources, the contract mid-motion (kit derivations and shape flows)."""
    built, moments = watched("exercises", inputs, lang, shared)
    m, deps = built.manifest(), torch_sources(inputs)
    find = lambda label: deps.get(label, set())    # noqa: E731
    problems = [f"{r['label']}: from {r['from']}, torch {sorted(find(r['label']))}" for r in m["numbers"]
                if "from" in r and set(r["from"]) != find(r["label"])]
    kit = [x for x in moments if "flow" not in x]
    problems += moment_problems(m, kit, oracle(inputs), marks=marks(inputs), deps=find)
    problems += flow_problems(m, moments, find)
    return built, moments, problems + layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))


@lru_cache(maxsize=None)
def derived_case(case):
    """derived() of one case, once a module (the book's answers read the default's); the planted
    tests call derived() under their changes."""
    inputs, lang = case_inputs("exercises", "seed" if isinstance(case, int) else "preset", case, base=400)
    return derived(inputs, lang, shared=True)


@pytest.mark.parametrize("case", ["default", "exercises-extra", "exercises-gpt2-medium", 0, 1, 2, 3])
def test_each_answer_is_made_from_what_torch_makes_it_from(case):
    built, moments, problems = derived_case(case)
    assert problems == [], "\n".join(problems[:20])
    shown = [r for r in built.numbers if "where" in r.get("derivation", {})]
    assert len([x for x in moments if "flow" not in x]) == len(shown)


def test_the_books_answers_are_made_as_the_exercises_explain():
    built, moments, problems = derived_case("default")
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
    from scenes.clips.exercises import answers
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
    real_sources = exercise_sources.sources
    monkeypatch.setattr(exercise_sources, "sources", lambda r: {**real_sources(r), "dim.wrong_cols[0]": Source(
        "sum", tuple(f"dim.wrong[0][{j}]" for j in range(3)))})
    _, _, problems = derived(inputs_for("exercises", only="dim", pause=0))
    assert any(p.startswith("dim.wrong_cols[0]: from") for p in problems), problems


def test_planted_expression_without_room_is_caught(monkeypatch):
    """A band the page never lays out (it stays where it was made): the expression lands on the grids."""
    from scenes.clips.exercises import answers
    real = answers.in_a_row
    monkeypatch.setattr(answers, "in_a_row", lambda *groups, below=None, **kw: real(*groups, **kw))
    _, _, problems = derived(inputs_for("exercises", only="zeros", pause=0))
    assert any(p.startswith("mid-motion") and "overlaps" in p for p in problems), problems
