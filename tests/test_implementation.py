"""4.8: every shape in the listing from real torch modules, the wrapper's d_out against
MultiHeadAttention's, and the hand-written attention checked against PyTorch's SDPA."""
import math
import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from derivations import flow_problems, size_sources, watched
from scenes.compute import implementation as compute
from scenes.compute.provenance import Source
from scenes.kit.anim import Appear
from test_contract import generated

CONTEXT = 8            # the buffer's side L in the oracle: any L >= T gives the same slice
BELOW_PRECISION = lambda v: 0 <= v < 1e-12   # noqa: E731  float noise: only the bound is meaningful


class CausalHead(nn.Module):
    """One head of the early wrapper: its own Q, K, V projections of width d_out."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(d_in, d_out, bias=False) for _ in range(3))

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        t = x.shape[1]
        s = (q @ k.transpose(1, 2)).masked_fill(torch.ones(t, t).triu(1).bool(), float("-inf"))
        return torch.softmax(s / math.sqrt(q.shape[-1]), -1) @ v


class Wrapper(nn.Module):
    """MultiHeadAttentionWrapper: num_heads independent heads of width d_out, concatenated."""

    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(CausalHead(d_in, d_out) for _ in range(num_heads))

    def forward(self, x):
        return torch.cat([h(x) for h in self.heads], dim=-1)


class MultiHead(nn.Module):
    """MultiHeadAttention: d_out is the total; one projection, split into heads of d_out / H."""

    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        self.h, self.qkv, self.proj = num_heads, nn.Linear(d_in, 3 * d_out, bias=False), nn.Linear(d_out, d_out)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = (z.reshape(b, t, self.h, -1).transpose(1, 2) for z in self.qkv(x).chunk(3, -1))
        z = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(z.transpose(1, 2).reshape(b, t, -1))


def shapes(prefix, size):
    return {f"{prefix}[{k}]": int(n) for k, n in enumerate(size)}


def listing_oracle(b, t, d_model, h):
    """The listing's shapes, by running its lines with torch modules on x of shape [B, T, D]."""
    torch.manual_seed(0)
    d = d_model // h
    x = torch.randn(b, t, d_model)
    qkv, proj = nn.Linear(d_model, 3 * d_model, bias=False), nn.Linear(d_model, d_model)
    parts = qkv(x).chunk(3, dim=-1)
    q, k, v = (p.view(b, t, h, d).transpose(1, 2) for p in parts)
    s = q @ k.transpose(-2, -1) / math.sqrt(d)
    future = torch.ones(CONTEXT, CONTEXT).triu(diagonal=1).bool()
    mask = future[:t, :t]
    a = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
    z = (a @ v).transpose(1, 2)
    out = proj(z.reshape(b, t, d_model))
    found = {"shape.head_dim": d, "shape.chunks": len(parts), "masked": int(mask.sum())}
    for name, tensor in (("qkv_weight", qkv.weight), ("proj_weight", proj.weight), ("x", x),
                         ("qkv", qkv(x)), ("q", parts[0]), ("split", parts[0].view(b, t, h, d)),
                         ("heads", q), ("scores", s), ("mask", mask), ("weights", a), ("context", a @ v),
                         ("back", z), ("merged", z.reshape(b, t, d_model)), ("out", out)):
        found.update(shapes(f"shape.{name}", tensor.shape))
    return found


def width_oracle(b, t, d_model, h):
    """Output shapes of the wrapper and MultiHeadAttention, each given its own d_out and the other's."""
    x = torch.randn(b, t, d_model)
    found = {}
    for name, module, d_out in (("wrapper", Wrapper, d_model // h), ("mha", MultiHead, d_model),
                                ("copied", Wrapper, d_model)):
        found.update({f"{name}.d_in": d_model, f"{name}.d_out": d_out, f"{name}.heads": h})
        found.update(shapes(f"{name}.shape", module(d_model, d_out, h)(x).shape))
    found["copied.factor"] = found["copied.shape[2]"] // found["mha.shape[2]"]
    return found


# The numbers written in the companion code itself (constants of the listing).
CODE = {"code.qkv_factor": 3, "code.chunks": 3, "code.chunk_dim": -1, "code.diagonal": 1,
        "code.split_swap[0]": 1, "code.split_swap[1]": 2, "code.key_swap[0]": -2, "code.key_swap[1]": -1,
        "code.softmax_dim": -1, "code.merge_swap[0]": 1, "code.merge_swap[1]": 2, "chapter.cache": 8}


def oracle(inputs):
    """Every label the clip can draw, from torch (shapes, widths, float64) or the listing's constants."""
    b, t, d_model = inputs["shape"]
    h = inputs["heads"]
    found = {"section": "4.8", "const": 1, "heads": h, "seed": inputs["seed"], **CODE}
    found.update(listing_oracle(b, t, d_model, h))
    found.update(width_oracle(b, t, d_model, h))
    found.update(shapes("sdpa.shape", (b, h, t, d_model // h)))
    found.update({"sdpa.bits": torch.finfo(torch.float64).bits, "sdpa.eps": torch.finfo(torch.float64).eps})
    found.update({f"sdpa.{k}": BELOW_PRECISION for k in ("forward", "grad_q", "grad_k", "grad_v", "grad")})
    return found


def legal_inputs(rng: random.Random) -> dict:
    """Raw options at the limits: B, T from their ends or between, D up to 64 with H a divisor up to 8."""
    b = rng.choice([1, 4, rng.randint(1, 4)])
    t = rng.choice([1, 8, rng.randint(1, 8)])
    d_model = rng.choice([64, 1, rng.randint(1, 64), 8 * rng.randint(1, 8)])
    heads = rng.choice([h for h in range(1, 9) if d_model % h == 0])
    return {"shape": f"{b},{t},{d_model}", "heads": str(heads),
            "seed": str(rng.choice([0, 2**31 - 1, rng.randint(0, 2**31 - 1)]))}


def shown_shape(built, prefix, n):
    return [built.value(f"{prefix}[{k}]")["value"] for k in range(n)]


def test_book_example_shapes_and_sdpa():
    """[2, 5, 12], H = 3: [B,T,3D] -> 3 x [B,T,D] -> [B,H,T,d] -> [B,H,T,T] -> [B,T,D]; SDPA agrees."""
    built = build("implementation")
    assert shown_shape(built, "shape.qkv", 3) == [2, 5, 36]
    assert built.value("shape.chunks")["value"] == 3 and shown_shape(built, "shape.q", 3) == [2, 5, 12]
    assert shown_shape(built, "shape.heads", 4) == [2, 3, 5, 4]
    assert shown_shape(built, "shape.scores", 4) == [2, 3, 5, 5]
    assert shown_shape(built, "shape.mask", 2) == [5, 5]
    assert shown_shape(built, "shape.out", 3) == [2, 5, 12]
    assert shown_shape(built, "sdpa.shape", 4) == [2, 3, 5, 4]
    for k in ("forward", "grad_q", "grad_k", "grad_v", "grad"):
        assert 0 <= built.value(f"sdpa.{k}")["value"] < 1e-12
    captions = [c for _, _, c in built.scene.captions]
    assert len(captions) == 5
    assert "[2, 5, 12]" in captions[2] and "3 倍" in captions[3] and "舍入误差之内" in captions[4]


def test_wrapper_width_is_h_times_wider():
    """The wrapper given the total width as d_out: H * D instead of D."""
    for d_model, h in ((12, 3), (64, 8), (7, 1)):
        widths = compute.out_widths(d_model, h)
        found = width_oracle(2, 3, d_model, h)
        assert (widths.wrapper, widths.total, widths.copied, widths.factor) == \
            (found["wrapper.shape[2]"], found["mha.shape[2]"], found["copied.shape[2]"], h)
        assert widths.copied == h * d_model


@pytest.mark.parametrize("shape, heads", [((2, 5, 12), 3), ((4, 8, 64), 8), ((1, 1, 1), 1), ((3, 7, 30), 5)])
def test_compute_shapes_match_torch(shape, heads):
    s = compute.code_shapes(shape, heads)
    found = listing_oracle(*shape, heads)
    for name in ("qkv_weight", "proj_weight", "x", "qkv", "q", "split", "heads", "scores", "mask", "weights",
                 "context", "back", "merged", "out"):
        size = getattr(s, name)
        assert shapes(f"shape.{name}", size) == {k: v for k, v in found.items() if k.startswith(f"shape.{name}[")}
    assert (s.head_dim, s.masked) == (found["shape.head_dim"], found["masked"])


@pytest.mark.parametrize("shape, seed", [((2, 3, 5, 4), 0), ((4, 8, 8, 8), 2**31 - 1), ((1, 1, 1, 1), 7)])
def test_sdpa_differences_below_precision_and_repeatable(shape, seed):
    first, again = compute.sdpa_check(shape, seed), compute.sdpa_check(shape, seed)
    assert first == again
    assert all(0 <= v < 1e-12 for v in (first.forward, first.grad_q, first.grad_k, first.grad_v))
    assert first.grad == max(first.grad_q, first.grad_k, first.grad_v)


def test_the_check_catches_a_wrong_attention(monkeypatch):
    """A hand-written attention that forgets 1/sqrt(d) is far from SDPA: the check can fail."""
    def unscaled(q, k, v):
        t = q.shape[-2]
        s = (q @ k.transpose(-2, -1)).masked_fill(torch.ones(t, t).triu(1).bool(), float("-inf"))
        return torch.softmax(s, -1) @ v
    monkeypatch.setattr(compute, "hand_attention", unscaled)
    wrong = compute.sdpa_check((2, 3, 5, 4), 0)
    assert wrong.forward > 1e-3 and wrong.grad > 1e-3


def test_captions_follow_the_data():
    """One head: the two d_out agree; one position: nothing to mask."""
    built = build("implementation", inputs_for("implementation", shape="1,1,4", heads=1))
    captions = [c for _, _, c in built.scene.captions]
    assert "H = 1" in captions[0] and "没有未来位置可遮" in captions[1]
    assert "只有一个头" in captions[2] and "两种 d_out 相同" in captions[3]
    assert built.value("shape.mask[0]")["value"] == 1
    assert not [r for r in built.numbers if r["label"] == "masked"]
    assert not built.texts_of("copied.factor")


def test_dry_run_manifest(tmp_path):
    code, out = cli("implementation", "--shape", "3,4,8", "--heads", "2", "--seed", "5", "--dry-run",
                    "--out", str(tmp_path))
    assert code == 0, out
    m = manifest(tmp_path / "implementation.numbers.json")
    assert m["inputs"] == {"shape": [3, 4, 8], "heads": 2, "seed": 5}
    shown = {r["label"]: r["value"] for r in m["numbers"]}
    assert [shown[f"shape.heads[{k}]"] for k in range(4)] == [3, 2, 4, 4]
    assert [shown[f"copied.shape[{k}]"] for k in range(3)] == [3, 4, 16]


@pytest.mark.parametrize("args, option", [
    (["--shape", "5,5,12"], "--shape"),                  # B > 4
    (["--shape", "2,9,12"], "--shape"),                  # T > 8
    (["--shape", "2,5,65"], "--shape"),                  # D > 64
    (["--shape", "0,5,12"], "--shape"),
    (["--shape", "2,5"], "--shape"),
    (["--shape", "2,5,x"], "--shape"),
    (["--shape", "2.5,5,12"], "--shape"),
    (["--heads", "5"], "--heads"),                       # 12 is not divisible by 5
    (["--heads", "9", "--shape", "1,2,18"], "--heads"),  # H > 8
    (["--heads", "0"], "--heads"),
    (["--heads", "x"], "--heads"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**31)], "--seed"),
    (["--preset", "nope"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "implementation", args, option)


def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render("implementation")
    captions = assert_video_with_captions(out, "implementation", 5)
    assert "SDPA" in captions[4][2]


# -- each shape made from the sizes above it (issue 25): the line run by torch on tensors of those sizes
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
    tensors of changed sizes)."""
    (b, t, d), h = inputs["shape"], inputs["heads"]
    lines = {f"shape.{name}": line for name, line in LINES.items()}
    base = {**listing_oracle(b, t, d, h), **CODE, "heads": h}
    return size_sources(lines, base, ("shape.head_dim", "shape.chunks"))


def flow_case(inputs, lang="zh"):
    built, moments = watched("implementation", inputs, lang)
    m, deps = built.manifest(), torch_sources(inputs)
    problems = [f"{r['label']}: from {r['from']}, torch {sorted(deps[r['label']])}" for r in m["numbers"]
                if "from" in r and set(r["from"]) != deps.get(r["label"])]
    return built, moments, problems + flow_problems(m, moments, lambda label: deps.get(label, set()))


@pytest.mark.parametrize("case", ["default", "implementation-heads-4", "implementation-one-head", 0, 1, 2, 3])
def test_each_shape_flows_from_the_sizes_torch_makes_it_from(case):
    if isinstance(case, int):
        inputs, lang = generated("implementation", 300 + case)[1], "en" if case % 2 else "zh"
    else:
        inputs, lang = inputs_for("implementation", None if case == "default" else case), "zh"
    built, moments, problems = flow_case(inputs, lang)
    assert problems == [], "\n".join(problems[:20])
    made = [r for r in built.numbers if r.get("derivation", {}).get("motion") == "flow"]
    assert {r["label"].split("[")[0] for r in made} == {f"shape.{n}" for n in LINES} - {"shape.head_dim"}
    assert len(moments) == 8           # one a line: 7 to 10 and 12 to 15 (11 keeps 9's shape, made there)
    assert all(r["from"] for r in built.numbers if r["label"].startswith("shape.") and "derivation" in r)


def test_the_book_shapes_flow_as_the_code_says():
    built, _, _ = flow_case(inputs_for("implementation"))
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
    from scenes.kit import flow as shape_flow
    monkeypatch.setattr(shape_flow.derive, "Fly", lambda mob, start, match=False: Appear(mob.move_to(start)))
    _, _, problems = flow_case(inputs_for("implementation"))
    assert any(p.startswith("mid-flow") and "overlaps" in p for p in problems), problems


# This clip's contract cases: every preset and generated inputs at the limits (tests/test_contract.py).
from test_contract import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("implementation")
