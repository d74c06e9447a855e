"""4.9: the exercises' answers, each checked against PyTorch: the two attention versions with
transposed weights, the wrapper's width, the parameters of a real module, masked softmax, shapes.
The oracle is tests/support/exercises_oracle.py; the answers' derivations, tests/clips/test_exercises_derivation.py."""
import random

import numpy as np
import pytest
from torch import nn

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from support.exercises_oracle import EXERCISES, legal_inputs, marks, oracle   # the last three: the contract's


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
    other cell does: the structure check reads them (tests/support/contract.py)."""
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


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("exercises")
