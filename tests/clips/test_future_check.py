"""4.5 future-check: every number the clip draws, recomputed here with PyTorch (float64).

The oracle re-draws the clip's documented inputs with numpy's default_rng(seed), in the
documented order (scenes/compute/future.py): x, w_qkv, w_out, b_out, u, the dropout draws;
then runs its own causal multi-head attention in torch (explicit triu mask, torch.softmax,
nn.Dropout's rule a * keep / (1 - p)) and takes gradients by autograd. scenes.compute is
never used as the oracle.
"""
import dataclasses
import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from scenes.clips.future_check import scene as clip_module
from scenes.compute import future as compute
from support.future_check_oracle import CLIP, draws, attention, rule, facts, oracle, legal_inputs

# ---------------------------------------------------------------- the book's facts
@pytest.fixture(scope="module")
def default_built():
    return build(CLIP)


def test_book_default_prefix_difference_is_exactly_zero(default_built):
    inputs = default_built.scene.inputs
    assert inputs["shape"] == (2, 6, 12) and inputs["heads"] == 3 and inputs["prefix"] == 4
    f = facts(inputs)
    assert f["on"][2][:, :4].max().item() == 0.0                  # torch: exactly 0 with the mask
    assert f["off"][2][:, :4].max().item() > 1                    # and it moves without it
    assert default_built.value("on.prefix_max")["text"] == "0"
    assert default_built.value("off.prefix_max")["value"] > 1
    assert f["grad"][:, 4:].max().item() == 0.0                   # autograd: exactly 0 on the future
    assert [default_built.value(f"grad[{b}][{t}]")["text"] for b in range(2) for t in (4, 5)] == ["0"] * 4
    assert all(default_built.value(f"grad[{b}][{t}]")["value"] > 0 for b in range(2) for t in range(4))


@pytest.mark.parametrize("seed", [0, 1, 7, 2**31 - 1])
def test_exact_zeros_hold_for_other_inputs(seed):
    """torch and the compute module: 0 with the mask or a shared dropout mask, on every seed."""
    rng = random.Random(seed)
    raw = legal_inputs(rng)
    inputs = clip_module.rules(raw)
    f = facts(inputs)
    p = inputs["prefix"]
    assert f["on"][2][:, :p].max().item() == 0.0
    assert f["grad"][:, p:].max().item() == 0.0
    assert f["drop"]["shared"].item() == 0.0
    r = compute.future_check(inputs["shape"], inputs["heads"], p, inputs["delta"], inputs["seed"],
                             inputs["dropout"])
    assert r.on.prefix_max == 0.0 and r.future_grad == 0.0 and r.drop_shared == 0.0
    np.testing.assert_allclose(r.off.change, f["off"][2].numpy(), rtol=1e-9, atol=1e-12)


def test_analytic_gradient_equals_autograd():
    """The compute module's backprop (with dropout, mask on and off) against torch autograd."""
    inputs = clip_module.rules({"shape": "2,5,6", "heads": "2", "prefix": "3", "seed": "3", "dropout": "0.3"})
    x, weights, _, uniform = draws(inputs)
    nx, w, _, _ = compute.draw(inputs["shape"], 2, 3)
    keep = uniform[0] >= 0.3
    for causal in (True, False):
        leaf = x.clone().requires_grad_(True)
        y, _ = attention(leaf, weights, 2, causal, keep=keep, p=0.3)
        (y[:, :3] ** 2).sum().backward()
        fw = compute.forward(nx, w, 2, causal=causal, keep=keep, p=0.3)
        _, dy = compute.prefix_loss(fw.y, 3)
        np.testing.assert_allclose(compute.input_gradient(fw, dy, w), leaf.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_oracle_attention_is_pytorch_attention():
    """The oracle's hand-written causal attention equals F.scaled_dot_product_attention."""
    inputs = clip_module.rules({"shape": "2,6,12", "heads": "3", "seed": "5"})
    x, (w_qkv, w_out, b_out), _, _ = draws(inputs)
    q, k, v = (a.reshape(2, 6, 3, 4).transpose(1, 2) for a in (x @ w_qkv).chunk(3, dim=-1))
    z = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    expected = z.transpose(1, 2).reshape(2, 6, 12) @ w_out + b_out
    assert torch.allclose(attention(x, (w_qkv, w_out, b_out), 3)[0], expected, rtol=0, atol=1e-12)


def test_drawn_zero_means_exactly_zero(default_built):
    """Every change, norm or gradient drawn as 0 is exactly 0 in torch, and only those."""
    expected = oracle(default_built.scene.inputs)
    for rec in default_built.numbers:
        want = expected[rec["label"]]
        if callable(want):
            assert rec["text"] == "0", rec
        elif rec["text"] == "0":
            assert want == 0, rec


# ---------------------------------------------------------------- captions chosen by the data
def patched(monkeypatch, **changes):
    """Build the clip with some of the compute module's findings replaced."""
    original = compute.future_check

    def fake(*args):
        r = original(*args)
        runs = {k: dataclasses.replace(getattr(r, k), **v) for k, v in changes.items() if isinstance(v, dict)}
        plain = {k: v for k, v in changes.items() if not isinstance(v, dict)}
        return dataclasses.replace(r, **runs, **plain)
    monkeypatch.setattr(compute, "future_check", fake)
    built = build(CLIP)
    return [s["caption"] for s in built.manifest()["steps"]], built.scene.narration


def test_captions_and_narration_follow_the_data(monkeypatch):
    caps, said = patched(monkeypatch, on={"prefix_max": 0.5}, off={"prefix_max": 0.0}, future_grad=0.25,
                         drop_noise=0.0, bug={"prefix_max": 0.0})
    assert "漏洞" in caps[1] and "0.5000" in caps[1] and "漏洞" in said[2]
    assert "碰巧没变" in caps[2] and "碰巧没有变化" in said[3]
    assert "却有 0.2500" in caps[3] and "最大为 0.2500" in said[4]
    assert "恰好相同" in caps[4] and "恰好相同" in said[5]
    assert "这一次没有改变" in caps[5] and "碰巧没有改变" in said[6]
    assert sorted(said) == [1, 2, 3, 4, 5, 6]


def test_default_narration_states_the_book_facts(default_built):
    said = default_built.scene.narration
    assert "恰为 0" in said[2] and "恰为 0" in said[4] and "前缀差才恰为 0" in said[5]


def test_no_dropout_and_one_head_are_said_truthfully():
    built = build(CLIP, inputs_for(CLIP, heads="1", dropout="0"))
    caps = [s["caption"] for s in built.manifest()["steps"]]
    assert "p = 0：不丢弃任何项" in caps[4]
    assert "只有一个头" in caps[5] and built.value("bug.prefix_max")["text"] == "0"
    assert "只有一个头" in built.scene.narration[6] and "p = 0，不丢弃" in built.scene.narration[5]


def test_columns_that_read_the_same_are_said_to_differ():
    """A tiny delta without the mask: the zoomed outputs agree to four decimals, and the clip says so."""
    built = build(CLIP, inputs_for(CLIP, delta="0.00001"))
    texts = [it["text"] for st in built.scene.layout if st["step"] == 3 for it in st["items"]]
    assert any("两列在四位小数内相同" in t for t in texts)


# ---------------------------------------------------------------- the command line
@pytest.mark.parametrize("args, option", [
    (["--shape", "3,6,12"], "--shape"), (["--shape", "2,9,12"], "--shape"), (["--shape", "2,6"], "--shape"),
    (["--shape", "2,6,13"], "--shape"), (["--heads", "5"], "--heads"), (["--heads", "0"], "--heads"),
    (["--prefix", "6"], "--prefix"), (["--prefix", "0"], "--prefix"), (["--delta", "0"], "--delta"),
    (["--delta", "100.5"], "--delta"), (["--delta", "nan"], "--delta"), (["--seed", "-1"], "--seed"),
    (["--seed", str(2**31)], "--seed"), (["--dropout", "1"], "--dropout"), (["--dropout", "-0.1"], "--dropout"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, option):
    assert_refused(tmp_path, CLIP, args, option)


def test_dry_run_writes_the_manifest(tmp_path):
    code, out = cli(CLIP, "--shape", "1,3,4", "--heads", "2", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    m = manifest(tmp_path / f"{CLIP}.numbers.json")
    assert m["inputs"]["shape"] == [1, 3, 4] and m["inputs"]["prefix"] == 1 and len(m["steps"]) == 6


def test_tiny_real_render(tiny_render):
    out = tiny_render(CLIP, inputs_for(CLIP, shape="1,3,4", heads="2"))
    captions = assert_video_with_captions(out, CLIP, 6)
    assert "最大前缀差恰为 0" in captions[1][2]


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("future-check")
