"""4.6: where each dropout number comes from, and the numbers seen being made.

Provenance (scenes/compute/dropout.py `provenance`) against PyTorch: for generated inputs, the
inputs each label depends on through its sources are exactly the non-zero pattern of torch's
Jacobian of that label with respect to the weights, p and the masks' bits (a bit relaxed to a
number, as torch's dropout multiplies by its mask: entry = a · m / (1 − p)); and nn.Dropout's own
draws: an entry depends on its weight only where nn.Dropout kept it. A planted wrong dependency
fails. The derivations (step 2: one kept entry × 1/(1−p) and its row's sum; step 3: the
expectation as Σ P(m)·row) show the sources this file's own rules give, and keep the contract
mid-motion.
"""
import random
import re

import numpy as np
import pytest
import torch

from conftest import inputs_for
from support.derivations import case_inputs, cases, made
from support.derivations import derived as check_derived
from scenes.clips.dropout import parts
from scenes.compute import dropout as compute
from scenes.compute.provenance import Source, inputs_of
from support.dropout_oracle import CHECKPOINTS, SHOWN, oracle, sampled

CLIP = "dropout"


# ---------------------------------------------------------------- provenance against torch's Jacobian
def lesson_tensors(w, p, chosen, samples, table, counts):
    """label -> tensor, in torch (train mode): rows a·m/(1−p), P(m) = Π (m(1−p) + (1−m)p), sums,
    Σ P·row over every mask (`table`: the enumeration, a constant), the running means and their
    largest gap to the row."""
    out = {"weight_sum": w.sum(), "scale": 1 / (1 - p), "p_eff": p * 1}
    for name, masks in (("chosen", chosen), ("table", table), ("sample", samples)):
        rows = w * masks / (1 - p)
        probs = (masks * (1 - p) + (1 - masks) * p).prod(-1)
        for k in range(len(masks)):
            out.update({f"{name}[{k}].row[{i}]": rows[k, i] for i in range(len(w))})
            out[f"{name}[{k}].sum"] = rows[k].sum()
            if name != "sample":
                out[f"{name}[{k}].prob"] = probs[k]
        if name == "table":
            out.update({f"mean_row[{i}]": probs @ rows[:, i] for i in range(len(w))})
            out["expected_sum"], out["prob_total"] = probs @ rows.sum(-1), probs.sum()
            if len(masks) > SHOWN:
                out["rest_prob"] = probs[torch.argsort(-probs.detach(), stable=True)[SHOWN:]].sum()
        if name == "sample":
            for j, c in enumerate(counts):
                mean = rows[:c].mean(0)
                out.update({f"running_mean@{c}[{i}]": mean[i] for i in range(len(w))})
                out[f"gap[{j}]"] = (mean - w).abs().max()
    train = w * chosen[0] / (1 - p)
    out.update({f"train.row[{i}]": train[i] for i in range(len(w))})
    out["train.sum"] = train.sum()
    return out


# Σ P(m) = 1 and E[m/(1−p)] = 1 for every p: these are computed from P(m), which depends on p,
# yet their derivative in p is 0 (what step 3 shows); for them p is checked apart.
SAME_FOR_EVERY_P = re.compile(r"mean_row\[\d+\]|expected_sum|prob_total")


def input_label(name, idx):
    if name == "weights":
        return f"weights[{idx[0]}]"
    return "p" if name == "p" else f"{name}[{idx[0]}].mask[{idx[1]}]"


def jacobian_inputs(w, p, chosen, samples, table, counts):
    """label -> the input labels (weights, p, the chosen and sampled masks' bits) with a non-zero
    derivative; and for SAME_FOR_EVERY_P, the largest |derivative in p|."""
    values = lesson_tensors(w, p, chosen, samples, table, counts)
    jac = torch.autograd.functional.jacobian(
        lambda *a: torch.stack(list(lesson_tensors(*a, table, counts).values())), (w, p, chosen, samples))
    out, flat = {}, {}
    for n, label in enumerate(values):
        deps = set()
        for name, d in zip(("weights", "p", "chosen", "sample"), jac):
            for idx in zip(*np.nonzero(d[n].numpy())) if d[n].dim() else ([()] if d[n] != 0 else []):
                deps.add(input_label(name, idx))
        out[label], flat[label] = deps, abs(float(jac[1][n]))
    return out, flat


def case(seed):
    """Generic train-mode inputs: positive weights, p away from 0 and 1/2, random masks."""
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    w = np.array([rng.uniform(0.05, 1) for _ in range(n)])
    w /= w.sum()
    p = rng.choice([rng.uniform(0.05, 0.45), rng.uniform(0.55, 0.95)])
    masks = [np.array([rng.random() < 0.5 for _ in range(n)]) for _ in range(rng.randint(1, 4))]
    count = rng.choice([1, 3, 12])
    r = compute.dropout_lesson(w, p, "train", masks, count, seed)
    counts = [c for c in CHECKPOINTS if c < count] + [count]
    as_t = lambda a: torch.tensor(np.asarray(a, float), dtype=torch.float64)  # noqa: E731
    given = (as_t(w), as_t(p), as_t(masks), as_t(sampled(n, p, count, seed)), as_t(compute.all_masks(n)))
    return r, given, counts


def problems(given, counts, sources):
    """Labels whose inputs (the table's enumerated bits left out: constants) differ from torch's."""
    want, flat = jacobian_inputs(*given, counts)
    out = []
    for label, deps in want.items():
        have = {s for s in inputs_of(label, sources) if not s.startswith("table[")}
        if SAME_FOR_EVERY_P.fullmatch(label):
            if "p" not in have or flat[label] > 1e-12:
                out.append(f"{label}: computed from P(m) (p) and flat in p: {sorted(have)}, {flat[label]}")
            have, deps = have - {"p"}, deps - {"p"}     # its rounding error aside
        if have != deps:
            out.append(f"{label}: provenance {sorted(have)}, jacobian {sorted(deps)}")
    return out


@pytest.mark.parametrize("seed", range(10))
def test_provenance_is_torchs_jacobian_pattern(seed):
    r, given, counts = case(seed)
    assert problems(given, counts, compute.provenance(r)) == []


def test_a_wrong_dependency_is_caught():
    r, given, counts = case(4)
    wrong = dict(compute.provenance(r))
    k, i = next((k, i) for k, m in enumerate(r.masks) for i, keep in enumerate(m) if not keep)
    wrong[f"chosen[{k}].row[{i}]"] = Source("dropout", (f"chosen[{k}].mask[{i}]", f"weights[{i}]", "scale"))
    assert any(p.startswith(f"chosen[{k}].row[{i}]") for p in problems(given, counts, wrong))


@pytest.mark.parametrize("seed, p", [(0, 0.5), (0, 0.2), (1, 0.9), (1, 0.7)])
def test_an_entry_depends_on_its_weight_only_where_nn_dropout_keeps_it(seed, p):
    """nn.Dropout's own draw (its seed fixed inside the function, so every call draws the same
    mask): its output is a·m/(1−p), and its Jacobian in the weights is non-zero where it kept."""
    w = torch.arange(1, 7, dtype=torch.float64) / 21

    def dropout(a):
        torch.manual_seed(seed)
        return torch.nn.Dropout(p).train()(a)
    keep = dropout(w) != 0
    assert 0 < keep.sum() < 6 and torch.allclose(dropout(w), w * keep / (1 - p), rtol=1e-15, atol=0)
    jac = torch.autograd.functional.jacobian(dropout, w)
    sources = compute.provenance(compute.dropout_lesson(w.numpy(), p, "train", [keep.numpy()], 1, 0))
    for i in range(6):
        weights = {s for s in inputs_of(f"chosen[0].row[{i}]", sources) if s.startswith("weights")}
        assert weights == {f"weights[{j}]" for j in np.flatnonzero(jac[i].numpy())}


def test_eval_mode_rows_are_the_weights():
    """Eval mode: nn.Dropout.eval() returns the row, its Jacobian the identity: each entry
    comes from its weight alone, whatever the mask says."""
    w = torch.tensor([0.5, 0.25, 0.25], dtype=torch.float64)
    jac = torch.autograd.functional.jacobian(lambda a: torch.nn.Dropout(0.5).eval()(a), w)
    lesson = compute.dropout_lesson(w.numpy(), 0.5, "eval", [np.array([1, 0, 1], bool)], 2, 0)
    sources = compute.provenance(lesson)
    for i in range(3):
        for label in (f"chosen[0].row[{i}]", f"eval.row[{i}]"):
            assert inputs_of(label, sources) == {f"weights[{j}]" for j in np.flatnonzero(jac[i].numpy())}


# ---------------------------------------------------------------- the derivations
def deps_of(inputs):
    """This file's rules: a train-mode entry from its bit, and where kept its weight and
    1/(1−p); an eval-mode entry from its weight; a row's sum from its entries; an expectation
    from every mask's probability and entry."""
    n, train = len(inputs["weights"]), inputs["mode"] == "train"

    def deps(label):
        k, i = (re.findall(r"\[(\d+)\]", label) + [None, None])[:2]
        if label.startswith("mean_row"):
            return {f"table[{m}].{x}" for m in range(2 ** n) for x in ("prob", f"row[{k}]")}
        if label.endswith(".sum"):
            return {f"chosen[{k}].row[{c}]" for c in range(n)}
        if label.startswith("chosen") and not train:
            return {f"weights[{i}]"}
        bit = f"chosen[{k}].mask[{i}]"
        return {bit, f"weights[{i}]", "scale"} if inputs["masks"][int(k)][int(i)] else {bit}
    return deps


def derived(inputs, lang="zh"):
    return check_derived(CLIP, inputs, oracle(inputs), deps_of(inputs), lang)


def test_the_book_default_makes_one_kept_entry_its_row_sum_and_an_expectation():
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == []
    d = made(built)
    assert d["chosen[0].row[0]"]["expression"] == "1 · 0.200000 · 2 = 0.400000"
    assert d["chosen[0].sum"]["expression"] == "0.400000 + 0.000000 + 1.000000 = 1.400000"
    assert d["mean_row[0]"]["expression"].startswith("0.125000 · 0.400000 + ")
    assert d["mean_row[0]"]["expression"].endswith("= 0.200000")
    assert [m["label"] for m in moments] == ["chosen[0].row[0]", "chosen[0].sum", "mean_row[0]"]
    entry = built.value("chosen[0].row[0]")           # the manifest says where it comes from
    assert entry["from"] == ["chosen[0].mask[0]", "weights[0]", "scale"] and entry["op"] == "keep"
    assert "以掩码 101 的位置 0 为例：保留位 1 乘原权重 0.200000，再乘 2，得到 0.400000" in built.scene.narration[2]


def test_a_mask_that_keeps_nothing_is_said_dropped_and_eval_slides_the_row():
    built, _, problems = derived(inputs_for(CLIP, masks="000,000"))
    assert problems == []
    assert made(built)["chosen[0].row[0]"]["expression"] == "丢弃：m = 0 → 0.000000"
    built, _, problems = derived(inputs_for(CLIP, preset="dropout-eval"))
    assert problems == []
    d = made(built)
    assert all(d[f"chosen[0].row[{i}]"]["motion"] == "slide" for i in range(3))
    assert d["chosen[0].row[0]"]["shows"] == ["weights[0]"]


def test_a_shortened_mask_list_says_shorter():
    built, _, problems = derived(inputs_for(CLIP, preset="dropout-six"), "en")
    assert problems == []
    d = made(built)["mean_row[0]"]
    assert d["shorter"] and d["expression"].endswith("+ … = " + built.value("mean_row[0]")["text"])


CASES = cases(("dropout-p02", "dropout-zero", "dropout-six"))


@pytest.mark.sampled(3)
@pytest.mark.parametrize("kind, case", CASES, ids=[str(c) for _, c in CASES])
def test_derivations_show_their_sources_and_keep_the_contract_mid_motion(kind, case):
    built, moments, problems = derived(*case_inputs(CLIP, kind, case, "en"))
    assert problems == [], "\n".join(problems[:20])
    assert len(moments) == sum("where" in d for d in made(built).values())


def next_weight(book, r, t, d, i):
    """The worked entry takes the next position's weight: the right shape, the wrong source."""
    d.pieces[2] = parts.term(book, t.cells[1][(i + 1) % len(r.weights) + 1])


def wrong_value(book, r, t, d, i):
    """The worked entry's weight drawn with the next position's value under its own label."""
    d.pieces[2].value = float(r.weights[(i + 1) % len(r.weights)])


@pytest.mark.parametrize("plant, named", [(next_weight, "shows ['weights[1]'], which it is not made from"),
                                          (wrong_value, "weights[0]")], ids=["source", "value"])
def test_planted_wrong_source_or_value_is_caught(monkeypatch, plant, named):
    real = parts.entry_made

    def planted(book, r, t, mode, k, i):
        d = real(book, r, t, mode, k, i)
        plant(book, r, t, d, i)
        return d
    monkeypatch.setattr(parts, "entry_made", planted)
    _, _, problems = derived(inputs_for(CLIP))
    assert any(named in p for p in problems), problems


def test_without_room_on_the_page_the_caption_line_or_nothing(monkeypatch):
    """Forced (no legal input needs it): no band on either page -> the strip by the caption line,
    or, with no room there either, the derivations left out and their records saying why."""
    from scenes.kit.motion import derive
    monkeypatch.setattr(derive, "needed", lambda book, mob, height=0.0: float("inf"))   # no page keeps it
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == [] and {d["where"] for d in made(built).values() if "where" in d} == {"caption line"}
    monkeypatch.setattr(derive, "strip", lambda scene, page, ds: None)
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == [] and moments == []
    assert [d["skipped"] for d in made(built).values() if "skipped" in d] == ["no room"] * 3
