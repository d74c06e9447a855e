"""4.8: each shape made from the sizes above it: the line run by torch on tensors of
those sizes."""
from functools import lru_cache

import pytest
import torch
import torch.nn.functional as F

from conftest import inputs_for
from support.derivations import case_inputs, flow_problems, size_sources, watched
from support.implementation_oracle import CODE, CONTEXT, listing_oracle
from scenes.compute import implementation as compute
from scenes.compute.provenance import Source
from scenes.kit.draw.anim import Appear


def zeros(*size):
    return torch.zeros(*size)


def dims(name, n):
    return [f"shape.{name}[{k}]" for k in range(n)]


LINES = {   # a shape: the sizes its line is run on, and the line (torch) on tensors of those sizes
    "head_dim": (["shape.x[2]", "heads"], lambda d, h: (d // h,)),
    "chunks": (["code.chunks"], lambda c: (len(zeros(1, 1, 4 * c).chunk(c, dim=-1)),)),
    "qkv": (dims("x", 3) + ["shape.qkv_weight[0]"],
            lambda b, t, d, o: F.linear(zeros(b, t, d), zeros(o, d)).shape),
    "q": (dims("qkv", 3) + ["code.chunks"], lambda b, t, w, c: zeros(b, t, w).chunk(c, dim=-1)[0].shape),
    "split": (dims("q", 2) + ["heads", "shape.head_dim"],
              lambda b, t, h, d: zeros(b, t, h * d).view(b, t, h, d).shape),
    "heads": (dims("split", 4), lambda *s: zeros(*s).transpose(1, 2).shape),
    "scores": (dims("heads", 4), lambda *s: (zeros(*s) @ zeros(*s).transpose(-2, -1)).shape),
    "mask": (["shape.x[1]"], lambda t: torch.ones(CONTEXT, CONTEXT).triu(diagonal=1).bool()[:t, :t].shape),
    "weights": (dims("scores", 4), lambda *s: torch.softmax(zeros(*s), dim=-1).shape),
    "context": (dims("weights", 4) + ["shape.heads[3]"],
                lambda b, h, t, u, d: (zeros(b, h, t, u) @ zeros(b, h, u, d)).shape),
    "back": (dims("context", 4), lambda *s: zeros(*s).transpose(1, 2).shape),
    "merged": (dims("back", 4), lambda b, t, h, d: zeros(b, t, h, d).reshape(b, t, -1).shape),
    "out": (dims("merged", 3) + ["shape.proj_weight[0]"],
            lambda b, t, d, o: F.linear(zeros(b, t, d), zeros(o, d)).shape),
}


def torch_sources(inputs):
    """label -> the sizes its line depends on (derivations.size_sources: torch runs each line on
    tensors of changed sizes); the SDPA check's sources are checked on their own, below."""
    (b, t, d), h = inputs["shape"], inputs["heads"]
    lines = {f"shape.{name}": line for name, line in LINES.items()}
    base = {**listing_oracle(b, t, d, h), **CODE, "heads": h}
    return size_sources(lines, base, ("shape.head_dim", "shape.chunks"))


def flow_case(inputs, lang="zh", shared=False):
    """shared: the session's build of these inputs (tests/support/shared_builds.py)."""
    built, moments = watched("implementation", inputs, lang, shared)
    m, deps = built.manifest(), torch_sources(inputs)
    problems = [f"{r['label']}: from {r['from']}, torch {sorted(deps[r['label']])}" for r in m["numbers"]
                if "from" in r and r["label"].startswith("shape.") and set(r["from"]) != deps.get(r["label"])]
    return built, moments, problems + flow_problems(m, moments, lambda label: deps.get(label, set()))


@lru_cache(maxsize=None)
def flow_of(case):
    """flow_case() of one case, once a module (the book's shapes read the default's); the planted
    tests call flow_case() under their changes."""
    inputs, lang = case_inputs("implementation", "seed" if isinstance(case, int) else "preset", case, base=300)
    return flow_case(inputs, lang, shared=True)


@pytest.mark.parametrize("case", ["default", "implementation-heads-4", "implementation-one-head", 0, 1, 2, 3])
def test_each_shape_flows_from_the_sizes_torch_makes_it_from(case):
    built, moments, problems = flow_of(case)
    assert problems == [], "\n".join(problems[:20])
    made = [r for r in built.numbers if r.get("derivation", {}).get("motion") == "flow"]
    assert {r["label"].split("[")[0] for r in made} == {f"shape.{n}" for n in LINES} - {"shape.head_dim"}
    assert len(moments) == 8           # one a line: 7 to 10 and 12 to 15 (11 keeps 9's shape, made there)
    assert all(r["from"] for r in built.numbers if r["label"].startswith("shape.") and "derivation" in r)


def test_the_book_shapes_flow_as_the_code_says():
    built, _, _ = flow_of("default")
    made = {r["label"]: r["derivation"] for r in built.numbers if "derivation" in r}
    said = {label: (d["shows"], d["op"]) for label, d in made.items()}
    assert said["shape.q[2]"] == (["shape.qkv[2]", "code.chunks"], "chunk")
    assert said["shape.heads[1]"] == (["shape.split[2]"], "transpose")
    assert made["shape.merged[2]"]["shows"] == ["shape.back[2]", "shape.back[3]"]
    assert "x [2, 5, 12]，H = 3，d = 4" in [it["text"] for it in built.scene.layout[0]["items"]]


def test_planted_wrong_dependency_is_caught(monkeypatch):
    """transpose said to keep the axes in place (heads[1] from split[1]): torch's run names it."""
    real = compute.shape_sources

    def kept(*a):
        out = dict(real(*a))
        out["shape.heads[1]"] = Source("transpose", ("shape.split[1]",))
        return out
    monkeypatch.setattr(compute, "shape_sources", kept)
    _, _, problems = flow_case(inputs_for("implementation"))
    want = "shape.heads[1]: from ['shape.split[1]'], torch ['shape.split[2]']"
    assert any(p.startswith(want) for p in problems), problems


def test_planted_copy_that_never_lands_is_caught(monkeypatch):
    """A flow whose copies are left where they started: at the moment they sit on their sources."""
    from scenes.kit.motion import flow as shape_flow
    monkeypatch.setattr(shape_flow.derive, "Fly", lambda mob, start, match=False: Appear(mob.move_to(start)))
    _, _, problems = flow_case(inputs_for("implementation"))
    assert any(p.startswith("mid-flow") and "overlaps" in p for p in problems), problems


def test_the_sdpa_check_names_what_both_routes_ran_on():
    """Each largest difference comes from the Q, K, V both routes ran on: their shape as drawn and
    the seed they were drawn with (run again here, the same differences); the gradients' largest is
    the largest of the three."""
    from support.shared_builds import shared_build
    built = shared_build("implementation", inputs_for("implementation"))
    records = {r["label"]: r for r in built.manifest()["numbers"]}
    shape = tuple(records[f"sdpa.shape[{k}]"]["value"] for k in range(4))
    again = compute.sdpa_check(shape, records["seed"]["value"])
    for name in ("forward", "grad_q", "grad_k", "grad_v"):
        rec = records[f"sdpa.{name}"]
        assert rec["from"] == [f"sdpa.shape[{k}]" for k in range(4)] + ["seed"] and rec["op"] == "sdpa check"
        assert rec["value"] == getattr(again, name)
    grad = records["sdpa.grad"]
    assert grad["value"] == max(records[s]["value"] for s in grad["from"]) and grad["op"] == "max"
