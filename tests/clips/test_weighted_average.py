"""4.1: the weighted-average clip shows the book's numbers, and PyTorch's for any legal input.

`oracle(inputs)` recomputes every label the clip can draw from the checked inputs with torch
(and plain Python for counts and exact sums); `legal_inputs(rng)` draws raw options at the
limits of the clip's rules. tests/clips/test_contract.py runs both over the default, the preset and
generated inputs; this module checks the book's figures and what each caption claims."""
import dataclasses
import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import exact_sums, assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from support.contract import layout_problems, oracle_problems
from support.weighted_average_oracle import CLIP, grid, oracle, legal_inputs

def proven(**given):
    inputs = inputs_for(CLIP, **given)
    built = build(CLIP, inputs)
    m = built.manifest()
    problems = layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))
    assert problems == [], "\n".join(problems[:20])
    return built, [s["caption"] for s in m["steps"]]


def shown(built, label):
    return built.value(label)["text"]


# -- the book's example
def test_book_example_shows_the_books_numbers():
    built, captions = proven()
    assert [shown(built, f"scores[{j}][0]") for j in range(3)] == ["0", "1", "1"]
    assert [shown(built, f"weights[{j}][0]") for j in range(3)] == ["0.1554", "0.4223", "0.4223"]
    assert [shown(built, f"output[0][{c}]") for c in range(2)] == ["0.5777", "0.8446"]
    assert "(0.5777, 0.8446)" in captions[4]
    assert captions[0].startswith("三个输入向量：既是平面上的箭头")


def test_softmax_dim_minus_2_rows_do_not_sum_to_one():
    built, captions = proven()
    sums = [float(shown(built, f"softmax_cols_sums[{j}][0]")) for j in range(3)]
    assert any(abs(v - 1) > 1e-3 for v in sums)
    assert "不报错却不然" in captions[5]


# -- captions chosen by the data
def test_large_scores_show_the_stable_exponent():
    """e^200 has 87 digits: the clip shows e^(s - max s), as PyTorch computes it."""
    built, captions = proven(x="10 10; -10 5; 3 3", query=0)
    labels = {r["label"] for r in built.numbers}
    assert "exps_shifted[0][0]" in labels and not any(lab.startswith("exps[") for lab in labels)
    assert shown(built, "shift") == "200" and "减去最大分数" in captions[3]
    assert "几乎全给了 x0" in captions[4]          # weight 1.0000: a pick, not a mix
    assert "出现负数" in captions[2]              # s / sum(s) = (0.95, -0.24, 0.29)


def test_plane_and_counts_follow_the_shape():
    _, captions = proven(x="1 2 3; 4 5 6; 7 8 9", query=0)
    assert captions[0].startswith("三个输入向量是矩阵 X 的行，每个有三个分量（不画平面）")
    _, captions = proven(x="1; -1", query=0, tokens="yes no")
    assert captions[0].startswith("两个输入向量") and "一个分量" in captions[0]


def test_zero_sum_and_equal_weights():
    _, captions = proven(x="0 0; 1 1", query=0)       # every score 0
    assert "分数之和为零" in captions[2] and "权重全相等" in captions[4]


def test_softmax_dim_minus_2_can_sum_to_one_by_coincidence():
    built, captions = proven(x="1 0; 0 1", query=0)   # X X^T = I: both softmaxes agree
    assert [shown(built, f"softmax_cols_sums[{j}][0]") for j in range(2)] == ["1.0000", "1.0000"]
    assert "碰巧也为 1" in captions[5]


CANCELS = "15 -89; 1/3 2.25; 1/3 67; 15 1/3; -100 -1/3; 2.25 -1/3; 5 2.25; 0.00001 99.5"   # x1 · x5 = 0


def test_a_dot_product_that_cancels_is_drawn_as_zero(monkeypatch):
    """x1 · x5 = 1/3·2.25 + 2.25·(−1/3) = 0: the products drawn cancel exactly, so the score and
    X Xᵀ show 0, not a rounding's −4.163e−17 (the sweep's seed 60 found it). Planted: the dot
    product fused as a multiply-add does it (the first product unrounded), as BLAS may."""
    from fractions import Fraction
    from scenes.compute import average
    inputs = inputs_for("weighted-average", x=CANCELS, query="1")
    built = build("weighted-average", inputs)
    for label in ("scores[5][0]", "gram[1][5]", "gram[5][1]"):
        assert built.value(label)["value"] == 0.0 and built.value(label)["text"].strip("0.") == ""
    assert oracle_problems(built.manifest()["numbers"], oracle(inputs)) == []

    def fused(a, b):
        return np.array([[float(Fraction(r[0]) * Fraction(c[0]) + sum(Fraction(float(u * v)) for u, v in
                                                                        zip(r[1:], c[1:]))) for c in b] for r in a])
    monkeypatch.setattr(average, "dots", fused)
    problems = oracle_problems(build("weighted-average", inputs).manifest()["numbers"], oracle(inputs))
    assert any(p.startswith("scores[5][0] shows '−4.163e−17'") for p in problems), problems[:3]


@pytest.mark.parametrize("seed", [60, 153, 180, 138])
def test_the_sweeps_cases_keep_the_contract(seed):
    """Cases tests/support/sweep.py found: scores and X Xᵀ that cancel to 0 (60, 153), step 5's α·x
    drawn at the output's precision, fewer decimals than its own values need (180), and an 8 × 8
    X Xᵀ of 10-character cells that no board of step 6 keeps readable (138: split over two pages)."""
    from support.cases import generated, proven
    _, inputs = generated("weighted-average", seed)
    _, problems = proven("weighted-average", inputs, lang="en" if seed % 2 else "zh")
    assert problems == [], problems[:5]


def test_a_matrix_form_too_wide_for_one_board_puts_x_xt_on_a_page_of_its_own():
    """Seed 138 (in English too): step 6 shows X Xᵀ alone, step 7 the two softmaxes and their row
    sums, each page with its caption and narration; the default keeps its one board."""
    from support.cases import generated, proven
    _, inputs = generated("weighted-average", 138)
    built, problems = proven("weighted-average", inputs, lang="en")
    grids = [{i["grid"].split("#")[0] for i in step["items"] if i.get("grid")}
             for step in built.manifest()["layout"][5:7]]
    assert problems == [] and len(built.scene.captions) == 7, problems[:5]
    assert "gram" in grids[0] and "softmax_rows_sums" not in grids[0]
    assert "gram" not in grids[1] and {"softmax_rows_sums", "softmax_cols_sums"} <= grids[1]
    assert "side by side" in built.scene.narration[7]
    assert len(build(CLIP).scene.captions) == 6


def test_long_tokens_are_keyed_and_tagged():
    tokens = " ".join(["注意力机制从加权平均推导"] * 8)
    built, _ = proven(x="; ".join(["100 -100"] * 4 + ["1/3 0.00001"] * 4), query=3, tokens=tokens)
    drawn = {s for _, s in built.texts}
    assert "x3 注意力机制从加权平均推导" in drawn and "x7" in drawn


# -- provenance
def test_a_typed_number_is_caught(monkeypatch):
    """A scene that types a number instead of asking the compute module fails the check."""
    from manim import Text
    from scenes.clips.weighted_average.scene import WeightedAverage
    original = WeightedAverage.why_not_divide

    def typed(self):
        original(self)
        self.add(Text(text="0.1554"))
    monkeypatch.setattr(WeightedAverage, "why_not_divide", typed)
    from scenes.kit.text.numbers import TypedNumberError
    with pytest.raises(TypedNumberError, match="0.1554"):
        build(CLIP)


def test_a_typed_number_in_a_label_fails_the_build(monkeypatch):
    from scenes.kit.text.numbers import TypedNumberError
    from scenes.clips.weighted_average.scene import WeightedAverage
    spec = dataclasses.replace(WeightedAverage.spec, title="先把加权平均写清楚 2.7183")
    monkeypatch.setattr(WeightedAverage, "spec", spec)
    with pytest.raises(TypedNumberError):
        build(CLIP)


# -- the command line
def test_dry_run_writes_the_manifest_and_no_frames(tmp_path):
    code, out = cli(CLIP, "--dry-run", "--out", str(tmp_path))
    assert code in (0, None), out
    names = {p.name for p in tmp_path.iterdir()}
    assert "weighted-average.numbers.json" in names
    assert not [n for n in names if n.endswith((".mp4", ".png", ".gif", ".webm"))]    # no frames
    m = manifest(tmp_path / "weighted-average.numbers.json")
    assert m["scene"] == CLIP and m["inputs"]["query"] == 1
    assert {"0.1554", "0.4223", "0.5777", "0.8446"} <= {r["text"] for r in m["numbers"]}


@pytest.mark.parametrize("args, option", [
    (["--x", "1 0; 0 1; 1"], "--x"),             # ragged
    (["--x", "1 a; 0 1"], "--x"),                # not a number
    (["--x", "1 0; 0 101"], "--x"),              # out of range
    (["--x", "1 0"], "--x"),                     # one row only
    (["--x", "; ".join(["1 0"] * 9)], "--x"),    # more than 8 rows
    (["--x", "nan 0; 0 1"], "--x"),
    (["--x", "1e309 0; 0 1"], "--x"),
    (["--query", "3"], "--query"),               # out of range
    (["--query", "one"], "--query"),
    (["--tokens", "a b"], "--tokens"),           # wrong count
    (["--preset", "nope"], "--preset"),
    (["--quality", "8k"], "--quality"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, CLIP, args, option)


def test_tiny_real_render_reads_back(tiny_chapter):
    """The chapter's tiny render of the book's inputs (the tiny chapter, shared: not rendered again here)."""
    captions = assert_video_with_captions(tiny_chapter, CLIP, 6)
    assert captions[3][2].startswith("softmax")


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("weighted-average")
