"""4.8: every shape in the listing from real torch modules (tests/support/implementation_oracle.py), the
wrapper's d_out against MultiHeadAttention's, and the hand-written attention checked against
PyTorch's SDPA. Each shape's derivation: tests/clips/test_implementation_derivation.py."""
import pytest
import torch

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from support.implementation_oracle import legal_inputs, listing_oracle, oracle, shapes, width_oracle  # noqa: F401
from scenes.compute import implementation as compute


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
        want = {k: v for k, v in found.items() if k.startswith(f"shape.{name}[")}
        assert shapes(f"shape.{name}", size) == want
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
    assert wrong.agreement == "differs"


@pytest.mark.parametrize("forward, grad, said", [(0.0, 0.0, "exact"), (0.0, 3e-16, "rounding"),
                                                 (2e-13, 0.0, "rounding"), (0.0, 1e-12, "differs"),
                                                 (0.5, 0.0, "differs")])
def test_the_verdict_is_exact_rounding_or_differs(forward, grad, said):
    """The caption's verdict: every difference 0, all under 1e-12 (float64 noise), or not."""
    chk = compute.SdpaCheck((1, 1, 1, 1), forward, grad, 0.0, 0.0, grad, 2.0 ** -52)
    assert chk.agreement == said


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


def test_tiny_real_render_reads_back(tiny_chapter):
    """The chapter's tiny render of the book's inputs (the tiny chapter, shared: not rendered again here)."""
    captions = assert_video_with_captions(tiny_chapter, "implementation", 5)
    assert "SDPA" in captions[4][2]


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("implementation")
