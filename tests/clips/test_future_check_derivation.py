"""4.5: where each prefix difference comes from, and the one seen being made.

Provenance (scenes/compute/future.py `provenance`) against PyTorch: for generated shapes, the
inputs each output depends on through its chain of sources are exactly the non-zero pattern of
torch's Jacobian of this file's torch attention (tests/clips/test_future_check.py: mask on, off, and
the wrong merge) with respect to x (and x2); a change comes from the feature torch.max picks and
the prefix's largest change from the position this file's rule picks. A planted wrong dependency
fails. The derivation (steps 2 and 3: |y′ − y| at the largest prefix change, = 0 with the mask)
shows the sources this file's rules give and keeps the contract mid-motion.
"""
import random
import re

import numpy as np
import pytest
import torch

from conftest import inputs_for
from support.derivations import case_inputs, cases, made
from support.derivations import derived as check_derived
from scenes.clips.future_check import scene as clip_module
from scenes.compute import future as compute
from scenes.compute.provenance import Source, inputs_of
from support.future_check_oracle import attention, draws, oracle

CLIP = "future-check"
RUNS = {"on": {"causal": True}, "off": {"causal": False}, "bug": {"causal": True, "wrong_merge": True}}


def outputs(inputs):
    """name -> (y, y2) from this file's torch attention, on x and on the perturbed x."""
    x, weights, u, _ = draws(inputs)
    x2 = x.clone()
    x2[:, inputs["prefix"]:] += inputs["delta"] * u[:, inputs["prefix"]:]
    return x, x2, weights, {name: tuple(attention(a, weights, inputs["heads"], **o)[0] for a in (x, x2))
                            for name, o in RUNS.items()}


def jacobian_inputs(inputs):
    """label -> the x (x2) labels with a non-zero derivative, for every output of every run."""
    x, x2, weights, _ = outputs(inputs)
    out = {}
    for name, options in RUNS.items():
        for leaf, x_name, y_name in ((x, "x", "y"), (x2, "x2", "y2")):
            jac = torch.autograd.functional.jacobian(
                lambda a: attention(a, weights, inputs["heads"], **options)[0], leaf)
            for idx in np.ndindex(*leaf.shape):
                out[f"{name}.{y_name}" + "".join(f"[{k}]" for k in idx)] = {
                    f"{x_name}[{b}][{s}][{e}]" for b, s, e in zip(*np.nonzero(jac[idx].numpy()))}
    return out


def largest(change, prefix):
    """This file's rule: the prefix position with the largest change; on a tie the latest
    position, then the first batch."""
    best = max(((float(change[b, t]), t, -b) for b in range(change.shape[0]) for t in range(prefix)))
    return -best[2], best[1]


def index_deps(inputs):
    """change[b][t] <- the two outputs at the feature torch.max takes; prefix_max <- the change
    at `largest`."""
    _, _, _, ys = outputs(inputs)
    out = {}
    for name, (y, y2) in ys.items():
        change, feature = (y2 - y).abs().max(dim=-1)
        for b, t in np.ndindex(*change.shape):
            c = int(feature[b, t])
            out[f"{name}.change[{b}][{t}]"] = {f"{name}.y[{b}][{t}][{c}]", f"{name}.y2[{b}][{t}][{c}]"}
        b, t = largest(change, inputs["prefix"])
        out[f"{name}.prefix_max"] = {f"{name}.change[{b}][{t}]"}
    return out


def case(seed):
    """Generic inputs: a small delta (a large one saturates the softmax of the perturbed run,
    whose derivatives then vanish where it still depends on its inputs)."""
    rng = random.Random(seed)
    d = rng.choice([1, 2, 4, 6])
    raw = {"shape": f"{rng.randint(1, 2)},{rng.randint(2, 5)},{d}", "seed": str(seed), "delta": "0.5",
           "heads": str(rng.choice([h for h in (1, 2, 3) if d % h == 0]))}
    inputs = clip_module.rules(raw)
    r = compute.future_check(inputs["shape"], inputs["heads"], inputs["prefix"], inputs["delta"], seed,
                             inputs["dropout"])
    return inputs, compute.provenance(r)


def problems(inputs, sources):
    out = [f"{label}: provenance {sorted(inputs_of(label, sources))}, jacobian {sorted(deps)}"
           for label, deps in jacobian_inputs(inputs).items() if inputs_of(label, sources) != deps]
    return out + [f"{label}: provenance {sorted(sources[label].sources)}, torch {sorted(deps)}"
                  for label, deps in index_deps(inputs).items() if set(sources[label].sources) != deps]


@pytest.mark.parametrize("seed", range(8))
def test_provenance_is_torchs_jacobian_and_index_maps(seed):
    inputs, sources = case(seed)
    assert problems(inputs, sources) == []


def test_the_wrong_merge_reads_the_future():
    """What step 6 shows, in the provenance: with the wrong merge a prefix output depends on a
    later input (torch's Jacobian agrees, above); with the right one it does not."""
    r = compute.future_check((1, 4, 4), 2, 2, 100.0, 0, 0.1)
    sources = compute.provenance(r)
    later = lambda label: {s for s in inputs_of(label, sources) if int(s.split("][")[1]) >= 2}  # noqa: E731
    assert later("on.y[0][1][0]") == set() and later("bug.y[0][1][0]") != set()


def test_a_wrong_dependency_is_caught():
    """The causal context one position too wide (s <= t + 1): the Jacobian says otherwise."""
    inputs, sources = case(3)
    wrong = dict(sources)
    t_n, d_n = inputs["shape"][1], inputs["shape"][2]
    wrong["on.context[0][0]"] = Source("visible inputs", tuple(f"x[0][{s}][{e}]" for s in range(min(2, t_n))
                                                               for e in range(d_n)))
    assert any(p.startswith("on.y[0][0]") for p in problems(inputs, wrong))


def board_problems(inputs, sources):
    """Step 1's pushes ‖x′ − x‖ through torch's Jacobian with respect to x and x′ (nothing on the
    prefix, where x′ is x), the colour scale at the largest |x| torch finds, step 4's gradients
    from L and step 5's checks from p, the seed (and δ where the future is pushed)."""
    x, x2, _, _ = outputs(inputs)
    out = []
    jac = torch.autograd.functional.jacobian(lambda a, b: (b - a).norm(dim=-1), (x, x2))
    for b, t in np.ndindex(*x.shape[:2]):
        deps = {f"{n}[{b}][{t}][{e}]" for n, d in zip(("x", "x2"), jac) for e in np.nonzero(d[b, t, b, t].numpy())[0]}
        if inputs_of(f"push[{b}][{t}]", sources) != deps:
            out.append(f"push[{b}][{t}]: provenance {sorted(inputs_of(f'push[{b}][{t}]', sources))}, jacobian {sorted(deps)}")
        if sources[f"grad[{b}][{t}]"].sources != ("loss",):
            out.append(f"grad[{b}][{t}]: {sources[f'grad[{b}][{t}]'].sources}")
    at = np.unravel_index(int(x.abs().argmax()), x.shape)
    want = {"color.high": ("x" + "".join(f"[{int(k)}]" for k in at),), "color.low": ("color.high",),
            "drop.noise": ("p", "seed"), "drop.both": ("p", "seed", "delta"), "drop.shared": ("p", "seed", "delta")}
    return out + [f"{label}: {sources[label].sources}, want {w}" for label, w in want.items() if sources[label].sources != w]


@pytest.mark.parametrize("seed", range(4))
def test_the_boards_other_numbers_come_from_what_torch_says(seed):
    inputs, sources = case(seed)
    assert board_problems(inputs, sources) == []


def test_a_push_on_the_prefix_is_caught():
    inputs, sources = case(1)
    wrong = dict(sources, **{"push[0][0]": Source("norm of difference", ("x[0][0][0]",))})
    assert any(p.startswith("push[0][0]") for p in board_problems(inputs, wrong))


# ---------------------------------------------------------------- the derivation
def derived(inputs, lang="zh"):
    return check_derived(CLIP, inputs, oracle(inputs), index_deps(inputs).__getitem__, lang)


def test_the_book_default_makes_the_prefix_difference_from_the_two_outputs():
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == []
    d = made(built)
    assert re.fullmatch(r"\| (−?\d\.\d{4}) − \(?\1\)? \| = 0", d["on.change[0][3]"]["expression"])
    assert d["on.prefix_max"] == {"step": 2, "op": "max", "shows": ["on.change[0][3]"], "motion": "slide"}
    change = built.value("on.change[0][3]")           # the manifest says where it comes from
    assert change["from"] == ["on.y[0][3][0]", "on.y2[0][3][0]"] and change["op"] == "max abs difference"
    off = next(k for k in d if k.startswith("off.change"))
    assert d["off.prefix_max"]["shows"] == [off] and d[off]["expression"].endswith(
        "= " + built.value("off.prefix_max")["text"])
    assert [m["label"] for m in moments] == ["on.change[0][3]", off]
    assert "以批 0 的位置 3 为例：两次的输出在每个特征上都相同" in built.scene.narration[2]


CASES = cases(("future-eval", "future-one-head", "future-tiny-delta"))


@pytest.mark.sampled(3)
@pytest.mark.parametrize("kind, case", CASES, ids=[str(c) for _, c in CASES])
def test_derivations_show_their_sources_and_keep_the_contract_mid_motion(kind, case):
    built, moments, problems = derived(*case_inputs(CLIP, kind, case, "en"))
    assert problems == [], "\n".join(problems[:20])
    assert len(moments) == sum("where" in d for d in made(built).values())


def test_planted_wrong_source_is_caught(monkeypatch):
    """The worked change takes the next feature's outputs: right shape, wrong source."""
    from scenes.clips.future_check import scene as scene_module
    real = scene_module.parts.change_made
    monkeypatch.setattr(scene_module.parts, "change_made", lambda book, board, zoom, b, t, c: real(
        book, board, zoom, b, t, (c + 1) % len(zoom.table.cells[1:])))
    _, _, problems = derived(inputs_for(CLIP))
    assert any("which it is not made from" in p for p in problems), problems


def test_without_room_on_the_page_the_caption_line_or_nothing(monkeypatch):
    """Forced (no legal input needs it): no band under the zoom -> the strip by the caption line,
    or nothing, the records saying why; the prefix max still slides from its change."""
    from scenes.kit.motion import derive
    monkeypatch.setattr(derive, "needed", lambda book, mob, height=0.0: float("inf"))   # no page keeps it
    built, _, problems = derived(inputs_for(CLIP))
    assert problems == [], problems
    where = [d.get("where", d.get("skipped")) for k, d in made(built).items() if ".change" in k]
    assert where == ["no room", "caption line"]       # step 2's board reaches the caption line; step 3's not
    monkeypatch.setattr(derive, "strip", lambda scene, page, ds: None)
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == [] and moments == []
    assert [d["skipped"] for k, d in made(built).items() if ".change" in k] == ["no room"] * 2
    assert made(built)["on.prefix_max"]["motion"] == "slide"
