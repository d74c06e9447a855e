"""Where each number comes from (scenes/compute/provenance.py), against PyTorch: for generated
inputs, the inputs a label depends on through its chain of sources are exactly the non-zero
pattern of torch's Jacobian of that output with respect to Q, K and V; a multihead id at each
layout comes from the index torch's reshape/transpose take it from. A planted wrong dependency
fails the check."""
import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from scenes.compute import heads, provenance
from scenes.compute.provenance import Source, inputs_of


def attention_steps(q, k, v, hidden):
    scores = q @ k.T
    scaled = scores / math.sqrt(q.shape[-1])
    masked = scaled.masked_fill(hidden, -torch.inf)
    weights = F.softmax(masked, dim=-1)
    return {"scores": scores, "scaled": scaled, "masked": masked, "weights": weights, "output": weights @ v}


def jacobian_inputs(q, k, v, hidden):
    """label -> the q/k/v labels with a non-zero derivative. Rows with no visible key (NaN, whose
    NaN would leak into every derivative through the products) are left out."""
    rows = [i for i in range(len(q)) if not hidden[i].all()]
    q, hidden = q[rows], hidden[rows]
    names = ("scores", "scaled", "masked", "weights", "output")
    jac = torch.autograd.functional.jacobian(
        lambda a, b, c: tuple(attention_steps(a, b, c, hidden)[n] for n in names), (q, k, v))
    out = {}
    for name, per_input in zip(names, jac):
        for idx in np.ndindex(*attention_steps(q, k, v, hidden)[name].shape):
            deps = set()
            for inp, d in zip("qkv", per_input):
                for src in zip(*np.nonzero(d[idx].numpy())):
                    deps.add(f"{inp}[{rows[src[0]] if inp == 'q' else src[0]}][{src[1]}]")
            out[f"{name}[{rows[idx[0]]}][{idx[1]}]"] = deps
    return out


def case(seed):
    rng = random.Random(seed)
    n_q, n_k, d_k, d_v = rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 4), rng.randint(1, 3)
    gen = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(n, d, generator=gen, dtype=torch.float64) for n, d in ((n_q, d_k), (n_k, d_k), (n_k, d_v)))
    hidden = torch.ones(n_q, n_k, dtype=torch.bool).triu(rng.choice((0, 1, 1, 2)) + rng.randint(0, 2))
    return q, k, v, hidden


def problems(q, k, v, hidden, sources):
    want = jacobian_inputs(q, k, v, hidden)
    return [f"{label}: provenance {sorted(inputs_of(label, sources))}, jacobian {sorted(deps)}"
            for label, deps in want.items() if inputs_of(label, sources) != deps]


@pytest.mark.parametrize("seed", range(12))
def test_attention_provenance_is_torchs_jacobian_pattern(seed):
    q, k, v, hidden = case(seed)
    sources = provenance.attention(len(q), len(k), q.shape[1], v.shape[1], hidden.numpy())
    assert problems(q, k, v, hidden, sources) == []


def test_a_wrong_dependency_is_caught():
    q, k, v, hidden = case(3)
    sources = provenance.attention(len(q), len(k), q.shape[1], v.shape[1], hidden.numpy())
    wrong = dict(sources)
    wrong["scores[0][0]"] = Source("dot", tuple(f"q[0][{r}]" for r in range(q.shape[1])))   # K forgotten
    assert any(p.startswith("scores[0][0]") for p in problems(q, k, v, hidden, wrong))


TORCH_STEPS = {"split": lambda x, s: x.reshape(*s), "transposed": lambda x, s: x.transpose(1, 2),
               "back": lambda x, s: x.transpose(1, 2), "merged": lambda x, s: x.reshape(*s),
               "wrong": lambda x, s: x.reshape(*s)}


@pytest.mark.parametrize("shape, h", [((1, 3, 4), 2), ((2, 4, 12), 4), ((2, 3, 6), 3), ((1, 1, 5), 1)])
def test_each_id_comes_from_where_torch_takes_it(shape, h):
    layouts = heads.head_layouts(shape, h)
    sources = provenance.head_layouts(layouts)
    for after, before in provenance.HEAD_STEPS:
        flat = torch.arange(int(np.prod(layouts[before].shape))).reshape(layouts[before].shape)
        taken = TORCH_STEPS[after](flat, layouts[after].shape)      # each place: the flat index it takes
        for idx in np.ndindex(*layouts[after].shape):
            src = np.unravel_index(int(taken[idx]), layouts[before].shape)
            want = before + "".join(f"[{int(i)}]" for i in src)
            assert sources[after + "".join(f"[{i}]" for i in idx)].sources == (want,)


def test_the_manifest_says_where_each_drawn_number_comes_from():
    """causal-mask's and multihead's records carry `from` and `op`; every source is a step of the
    same chain or an input of the clip (a source need not be drawn: the clip shows one row's
    masked scores, and every row's weights)."""
    from conftest import inputs_for
    from support.shared_builds import shared_build
    for clip, names, inputs in (("causal-mask", ("scores", "scaled", "masked", "weights", "output"), ("q", "k", "v")),
                                ("multihead", ("split", "transposed", "back", "merged", "wrong"), ("start",))):
        records = shared_build(clip, inputs_for(clip)).manifest()["numbers"]
        derived = [r for r in records if r["label"].split("[")[0] in names]
        assert derived and all("from" in r and "op" in r for r in derived), clip
        assert all(s.split("[")[0] in names + inputs for r in derived for s in r["from"]), clip


# ---------------------------------------------------------------- causal-mask's other numbers
def name_of(base, idx):
    return base + "".join(f"[{int(i)}]" for i in idx)


def jacobian_pattern(fn, leaves, out):
    """out[idx] -> the leaf labels with a derivative larger than rounding (NaN entries left out)."""
    names = list(leaves)
    value = fn(leaves)
    jac = torch.autograd.functional.jacobian(lambda *xs: fn(dict(zip(names, xs))), tuple(leaves.values()))
    found = {}
    for idx in np.ndindex(*value.shape):
        if not torch.isnan(value[idx]):
            found[name_of(out, idx)] = {name_of(n, src) for n, d in zip(names, jac)
                                        for src in zip(*np.nonzero(d[idx].abs().numpy() > 1e-12))}
    return found


def lesson_case(seed):
    rng = random.Random(seed)
    n_q, cached, d_k, d_v = rng.randint(1, 4), rng.randint(0, 2), rng.randint(1, 3), rng.randint(1, 3)
    gen = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(n, d, generator=gen, dtype=torch.float64)
               for n, d in ((n_q, d_k), (n_q + cached, d_k), (n_q + cached, d_v)))
    return q, k, v, rng.choice((0, 1)), cached, rng.random() < 0.7


def torch_attention(q, k, v, hidden):
    """(outputs, weights), row by row: a row with no visible key is NaN made from nothing (its NaN
    would leak into every derivative through the products)."""
    outs, weights = [], []
    for i in range(len(q)):
        if hidden[i].all():
            weights.append(torch.full((len(k),), torch.nan, dtype=q.dtype))
            outs.append(torch.full((v.shape[1],), torch.nan, dtype=q.dtype))
            continue
        a = F.softmax((q[i] @ k.T / math.sqrt(q.shape[-1])).masked_fill(hidden[i], -torch.inf), dim=-1)
        weights.append(a)
        outs.append(a @ v)
    return torch.stack(outs), torch.stack(weights)


def lesson_problems(q, k, v, diagonal, cached, causal, sources):
    """Each new number of causal-mask against torch: through its chain to Q, K, V (and K′, V′), or
    to the step before it (P for the other route, A for a row's sum); a change's two outputs at the
    feature torch.max picks."""
    from scenes.compute import masking
    r = masking.causal_lesson(q.numpy(), k.numpy(), v.numpy(), 0, True, causal, diagonal, cached)
    n_q, n_k = len(q), len(k)
    triu = lambda d: torch.ones(n_q, n_k, dtype=torch.bool).triu(d + cached)     # noqa: E731
    mine, none = triu(diagonal), torch.zeros(n_q, n_k, dtype=torch.bool)
    k2, v2 = k.clone(), v.clone()
    k2[-1] += r.delta
    v2[-1] += r.delta
    qkv, changed = {"q": q, "k": k, "v": v}, {"q": q, "k_changed": k2, "v_changed": v2}
    other = triu(r.variant_diagonal)
    want = {}
    want.update(jacobian_pattern(lambda t: torch_attention(t["q"], t["k"], t["v"], other)[1], qkv,
                                 f"weights_diagonal{r.variant_diagonal}"))
    want.update(jacobian_pattern(lambda t: torch_attention(t["q"], t["k"], t["v"], none)[1], qkv, "post_probs"))
    runs = {"causal": mine, "open": none}
    for run, hidden in runs.items():
        for when, leaves in (("before", qkv), ("after", changed)):
            want.update(jacobian_pattern(lambda t: torch_attention(*t.values(), hidden)[0], leaves, f"{run}_{when}"))
    p = torch.tensor(r.post.probs)
    hid = torch.tensor(r.steps.hidden)
    zeroed = lambda t: t["post_probs"].masked_fill(hid, 0.0)                       # noqa: E731
    want.update(jacobian_pattern(zeroed, {"post_probs": p}, "post_zeroed"))
    want.update(jacobian_pattern(lambda t: zeroed(t).sum(-1), {"post_probs": p}, "post_row_sums"))
    want.update(jacobian_pattern(lambda t: zeroed(t) / zeroed(t).sum(-1, keepdim=True), {"post_probs": p},
                                 "post_renormalised"))
    want.update(jacobian_pattern(lambda t: t["weights"].sum(-1), {"weights": torch.tensor(r.steps.weights)},
                                 "row_sums"))
    leaves = ("post_probs", "weights")
    local = {label: s for label, s in sources.items() if label.startswith(("post_zeroed", "post_row", "post_ren", "row_sums["))}
    found = [f"{label}: provenance {sorted(inputs_of(label, local if label in local else sources))}, torch {sorted(deps)}"
             for label, deps in want.items()
             if inputs_of(label, local if label in local else sources) != deps and not (
                 label in local and {s.split("[")[0] for s in deps} - set(leaves))]
    for run, check in (("causal", r.check_on), ("open", r.check_off)):
        gap = (torch.tensor(check.after) - torch.tensor(check.before)).abs()
        for i, c in enumerate(gap.max(dim=-1).indices):
            if not torch.isnan(gap[i]).any():
                deps = {f"{run}_before[{i}][{int(c)}]", f"{run}_after[{i}][{int(c)}]"}
                if set(sources[f"shift_{run}[{i}]"].sources) != deps:
                    found.append(f"shift_{run}[{i}]: provenance {sources[f'shift_{run}[{i}]'].sources}, torch {deps}")
    return found


@pytest.mark.parametrize("seed", range(16))
def test_causal_masks_other_numbers_are_torchs_jacobian_pattern(seed):
    from scenes.compute import masking
    q, k, v, diagonal, cached, causal = lesson_case(seed)
    r = masking.causal_lesson(q.numpy(), k.numpy(), v.numpy(), 0, True, causal, diagonal, cached)
    sources = masking.provenance(r, diagonal, cached, causal)
    assert lesson_problems(q, k, v, diagonal, cached, causal, sources) == []


def test_a_wrong_dependency_of_the_other_route_is_caught():
    """A future cell renormalised as if it were seen (zeroed / the row's sum): torch says it is 0."""
    from scenes.compute import masking
    q, k, v, diagonal, cached, causal = lesson_case(0)              # the mask on: a future key
    r = masking.causal_lesson(q.numpy(), k.numpy(), v.numpy(), 0, True, causal, diagonal, cached)
    wrong = dict(masking.provenance(r, diagonal, cached, causal))
    i, j = map(int, np.argwhere(r.steps.hidden & (r.post.row_sums[:, None] > 0))[0])
    wrong[f"post_renormalised[{i}][{j}]"] = Source("divide", (f"post_zeroed[{i}][{j}]", f"post_row_sums[{i}]"))
    assert any(p.startswith(f"post_renormalised[{i}][{j}]") for p in lesson_problems(q, k, v, diagonal, cached,
                                                                                      causal, wrong))


# ---------------------------------------------------------------- score-grid's legends, table and row
def grid_case(seed):
    rng = random.Random(seed)
    n_q, n_k, d_k = rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 4)
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(n, d_k, generator=gen, dtype=torch.float64) for n in (n_q, n_k))


def grid_problems(q, k, sources):
    """The compared row's softmaxes through their chain to Q and K (torch's Jacobian), a legend's
    end the entry torch.min / torch.max picks, Var(q·k/√dₖ) from Var(q·k) and dₖ."""
    from scenes.compute import scores
    r = scores.score_grid(q=q.numpy(), k=k.numpy(), samples=200)
    want, leaves = {}, {"q": q, "k": k}
    for name, scale in (("weights_raw", 1.0), ("weights_scaled", math.sqrt(q.shape[1]))):
        want.update(jacobian_pattern(lambda t: F.softmax(t["q"][r.query] @ t["k"].T / scale, -1)[None], leaves, name))
    s, direct = q @ k.T, {}
    for name, grid in (("scores", s), ("scaled", s / math.sqrt(q.shape[1]))):
        for end, at in (("low", grid.argmin()), ("high", grid.argmax())):
            direct[f"{name}_legend.{end}"] = {f"{name}[{int(at) // grid.shape[1]}][{int(at) % grid.shape[1]}]"}
    for n, _ in enumerate(r.variance.d_ks):
        direct[f"variance.var_scaled[{n}][0]"] = {f"variance.var[{n}][0]", f"variance.d_k[{n}][0]"}
        direct[f"variance.var[{n}][0]"] = {f"variance.d_k[{n}][0]"}
    return ([f"{label}: provenance {sorted(inputs_of(label, sources))}, torch {sorted(deps)}"
             for label, deps in want.items() if inputs_of(label, sources) != deps] +
            [f"{label}: provenance {sorted(sources[label].sources)}, torch {sorted(deps)}"
             for label, deps in direct.items() if set(sources[label].sources) != deps])


@pytest.mark.parametrize("seed", range(8))
def test_score_grids_legends_and_compared_row_are_torchs(seed):
    from scenes.compute import scores
    q, k = grid_case(seed)
    assert grid_problems(q, k, scores.provenance(scores.score_grid(q=q.numpy(), k=k.numpy(), samples=200))) == []


def test_a_legend_read_off_the_wrong_cell_is_caught():
    from scenes.compute import scores
    q, k = grid_case(3)
    wrong = dict(scores.provenance(scores.score_grid(q=q.numpy(), k=k.numpy(), samples=200)))
    wrong["scores_legend.high"] = wrong["scores_legend.low"]
    assert any(p.startswith("scores_legend.high") for p in grid_problems(q, k, wrong))
