"""4.4–4.5: the causal-mask clip shows the lab's numbers, and PyTorch's for any legal input.

The oracle (torch, float64; never scenes.compute), legal_inputs, marks and axis_names are in
tests/support/causal_mask_oracle.py; the contract test (tests/clips/test_contract.py) checks every frame and
every number against them. Here: the book's numbers, the captions the data chooses, the rules, a
real render. Step 1 made in front of the viewer: tests/clips/test_causal_mask_derivation.py.
"""
import random

import pytest

from support.causal_mask_oracle import CLIP
from support.causal_mask_oracle import axis_names, legal_inputs, marks, oracle   # the contract's
from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from support.contract import layout_problems, oracle_problems


@pytest.mark.parametrize("seed", range(40))
def test_generated_inputs_are_legal(seed):
    inputs_for(CLIP, **legal_inputs(random.Random(seed)))      # raises InputError if not


def proven(built):
    m = built.manifest()
    return layout_problems(m) + oracle_problems(m["numbers"], oracle(built.scene.inputs))


def captions(built):
    return [c for _, _, c in built.scene.captions]


# ---------------------------------------------------------------- the book's numbers
@pytest.fixture(scope="module")
def default_built():
    return build(CLIP)


def test_lab_default_five_step_table(default_built):
    built = default_built
    assert [built.value(f"q[1][{c}]")["text"] for c in range(2)] == ["0.0000", "1.0000"]
    assert [built.value(f"scores[1][{j}]")["text"] for j in range(3)] == ["0.0000", "1.0000", "1.0000"]
    assert [built.value(f"weights[1][{j}]")["text"] for j in range(3)] == ["0.3302", "0.6698", "0"]
    assert built.value("masked[1][2]")["text"] == "\u2212\u221e"          # the future key
    assert [built.value(f"output[1][{c}]")["text"] for c in range(2)] == ["0.3302", "0.6698"]
    assert built.value("shift_causal[1]")["text"] == "0"                 # exactly unchanged with the mask
    assert built.value("shift_open[1]")["text"] == "10.3876"              # moves without it
    assert "有掩码时不变，无掩码时改变" in captions(built)[5]
    assert len(captions(built)) == 7 and proven(built) == []


def test_two_keys_preset_book_numbers():
    built = build(CLIP, inputs_for(CLIP, "two-keys"))
    assert [built.value(f"weights[0][{j}]")["text"] for j in range(2)] == ["0.6698", "0.3302"]
    assert built.value("output[0][0]")["text"] == "13.3024"
    assert proven(built) == []


def test_zero_scores_preset_rows():
    built = build(CLIP, inputs_for(CLIP, "zero-scores"))
    rows = [[built.value(f"weights[{r}][{j}]")["text"] for j in range(3)] for r in range(3)]
    assert rows == [["1.0000", "0", "0"], ["0.5000", "0.5000", "0"], ["0.3333", "0.3333", "0.3333"]]
    assert proven(built) == []


def test_dry_run_two_keys_manifest(tmp_path):
    code, out = cli(CLIP, "--preset", "two-keys", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    m = manifest(tmp_path / f"{CLIP}.numbers.json")
    assert {"0.6698", "0.3302", "13.3024"} <= {r["text"] for r in m["numbers"]}
    assert m["inputs"]["causal"] is False and m["inputs"]["delta"] == 10.0
    assert m["steps"][0]["caption"].startswith("让查询") and len(m["steps"]) == 7


# ---------------------------------------------------------------- NaN, underflow, captions chosen by the data
def test_masked_diagonal_nan_is_shown_and_explained():
    built = build(CLIP, inputs_for(CLIP, "diagonal-0"))
    assert [built.value(f"weights[0][{j}]")["text"] for j in range(3)] == ["NaN"] * 3
    assert built.value("output[0][0]")["text"] == "NaN"
    says = captions(built)
    assert "第 0 行全为 −∞" in says[1] and "保留对角线（diagonal=1）" in says[3]   # step 4 is not step 2 again
    assert "NaN" in " ".join(s for _, s in built.texts if "没有可见的键" in s or "全被遮住" in s)
    assert proven(built) == []


BIG = "; ".join(["100 -100 100 -100 100 -100 100 -100", "-100 100 -100 100 -100 100 -100 100"] * 4)
UP, DOWN = " ".join(["100"] * 8), " ".join(["-100"] * 8)


def test_post_softmax_route_underflow_is_stated_not_hidden():
    """Every query points along the last key and away from the others: softmax over all keys
    gives the future key everything, the visible probabilities underflow to 0, and the
    renormalised rows are 0/0 = NaN; the −∞ route is fine. The captions say so."""
    k = "; ".join([DOWN] * 7 + [UP])
    built = build(CLIP, inputs_for(CLIP, q="; ".join([UP] * 8), k=k, v=k, delta=-100, track=3))
    says = " ".join(captions(built))
    assert "七行的可见概率全部下溢" in says and "与 −∞ 路线相同" not in says
    assert built.value("post_renormalised[0][0]")["text"] == "NaN"
    assert built.value("weights[0][0]")["text"] == "1.0000"
    assert built.value("route_gap")["text"] == "0.0000"          # the rows that are numbers agree
    assert proven(built) == []


def test_nothing_masked_says_so_and_one_row_stays_legible():
    built = build(CLIP, inputs_for(CLIP, q="1 2 3 4 5 6 7 8", k="; ".join(["1 0 0 0 0 0 0 1"] * 8),
                                   v="; ".join(["1 2"] * 8), cached=7, track=0))
    says = " ".join(captions(built))
    assert "没有未来位置" in says and "恰为零" not in says
    assert proven(built) == []


def test_long_tokens_do_not_run_into_each_other():
    tokens = " ".join(["abcdefghijkl", "注意力机制因果掩码自回归"] * 4)
    built = build(CLIP, inputs_for(CLIP, q=BIG, k=BIG, v=BIG, tokens=tokens, track=7))
    assert proven(built) == []


def test_no_causal_steps_say_the_mask_is_off():
    built = build(CLIP, inputs_for(CLIP, "no-mask"))
    says = captions(built)
    assert "掩码已关闭" in says[1] and "P 就是 A" in says[2] and "若打开因果掩码" in says[3]
    assert all(built.value(f"mask[{r}][{j}]")["text"] == "0" for r in range(3) for j in range(3))
    assert proven(built) == []


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("args, option", [
    (["--k", "1 0 0; 0 1 0; 1 1 0"], "--k"),                     # width differs from Q
    (["--v", "1 0; 0 1"], "--v"),                                 # rows differ from K
    (["--q", "1 0; 0 1"], "--k"),                                 # causal: Q rows + cached != K rows
    (["--cached", "1"], "--k"),
    (["--track", "3"], "--track"),
    (["--track", "-1"], "--track"),
    (["--diagonal", "2"], "--diagonal"),
    (["--cached", "-1"], "--cached"),
    (["--delta", "0"], "--delta"),
    (["--delta", "101"], "--delta"),
    (["--cache-view", "9"], "--cache-view"),
    (["--q", "1 0; 0 101; 1 1"], "--q"),
    (["--q", "; ".join(["1 0"] * 9)], "--q"),
    (["--v", "1 x; 0 1; 1 1"], "--v"),
    (["--tokens", "a b"], "--tokens"),
    (["--preset", "dropout"], "--preset"),
    (["--pad", "3"], "--pad"),                                    # pads < keys (3)
    (["--pad", "-1"], "--pad"),
    (["--pad", "1.5"], "--pad"),
    (["--pad-side", "top"], "--pad-side"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, CLIP, args, option)


def test_no_causal_allows_q_and_k_of_different_lengths():
    i = inputs_for(CLIP, q="1 0", k="1 0; 0 1; 1 1", v="1; 2; 3", no_causal=True, track=0)
    assert (len(i["q"]), len(i["k"])) == (1, 3)


# ---------------------------------------------------------------- a real render
def test_tiny_real_render_reads_back(tiny_chapter):
    """The chapter's tiny render of the book's inputs (the tiny chapter, shared: not rendered again here)."""
    captions = assert_video_with_captions(tiny_chapter, CLIP, 7)
    assert captions[4][2].startswith("左 padding") and captions[6][2].startswith("缓存视角")


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("causal-mask")
