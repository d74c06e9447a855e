"""4.6 and its lab: every dropout number on screen, recomputed here.

The oracle is tests/support/dropout_oracle.py: `oracle(inputs)` computes every label the clip can draw
with torch (nn.Dropout's arithmetic, checked against nn.Dropout itself below) and a sampler
written there from the documented seeding, never from scenes.compute or the scene's own result;
`legal_inputs(rng)` draws inputs at the limits of the rules. tests/clips/test_contract.py runs both over
the default, the presets and generated inputs; here: the book's numbers, the captions the data
chooses, the rules, a real render. The derivations: tests/clips/test_dropout_derivation.py.
"""
import itertools
import math
import random
from fractions import Fraction

import pytest
import torch

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from support.contract import layout_problems, oracle_problems
from support.dropout_oracle import dropped, probability, sampled, t
from support.dropout_oracle import legal_inputs, oracle   # the contract's


@pytest.mark.parametrize("seed", range(40))
def test_generated_inputs_are_legal(seed):
    inputs_for("dropout", **legal_inputs(random.Random(seed)))     # raises InputError if not


def proven(inputs):
    built = build("dropout", inputs)
    m = built.manifest()
    problems = layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))
    problems += [f"{r['label']} never on screen" for r in m["numbers"] if r["step"] is None]
    return built, problems


def captions(built):
    return [c for _, _, c in built.scene.captions]


@pytest.fixture(scope="module")
def default():
    return build("dropout")


# ---------------------------------------------------------------- the book's numbers
def bits_of(built, prefix, n):
    return "".join(built.value(f"{prefix}.mask[{i}]")["text"] for i in range(n))


def test_default_masks_show_the_books_sums(default):
    built = default
    assert [bits_of(built, f"chosen[{k}]", 3) for k in range(4)] == ["101", "010", "001", "000"]
    assert [built.value(f"chosen[{k}].sum")["text"] for k in range(4)] == \
        ["1.400000", "0.600000", "1.000000", "0.000000"]
    assert built.value("weight_sum")["text"] == "1.000000"
    assert [built.value(f"weights[{i}]")["text"] for i in range(3)] == ["0.200000", "0.300000", "0.500000"]
    assert built.value("scale")["text"] == "2" and built.value("p")["text"] == "0.5"
    assert built.value("expected_sum")["text"] == "1.000000"
    assert "单次结果的行和可以大于、小于或等于 1" in captions(built)[1]


def test_lab_p02_probabilities():
    """The lab's "try p = 0.2, compare the masks' probabilities"."""
    built = build("dropout", inputs_for("dropout", preset="dropout-p02"))
    assert [built.value(f"chosen[{k}].prob")["text"] for k in range(4)] == \
        ["0.128000", "0.032000", "0.032000", "0.008000"]


# ---------------------------------------------------------------- the oracle is nn.Dropout's arithmetic
@pytest.mark.parametrize("p", [0.5, 0.2, 0.9])
def test_oracle_rows_are_what_nn_dropout_draws(p):
    """Rows nn.Dropout draws with a given keep pattern equal the oracle's row for it, and each
    pattern turns up about as often as the oracle's probability says."""
    w = [0.2, 0.3, 0.5]
    torch.manual_seed(0)
    out = torch.nn.Dropout(p).train()(t(w).expand(20000, 3))
    for keep in itertools.product((1, 0), repeat=3):
        hits = out[((out != 0) == torch.tensor(keep, dtype=torch.bool)).all(1)]
        share = len(hits) / len(out)
        assert abs(share - probability(keep, p)) <= 5 * math.sqrt(probability(keep, p) / len(out)) + 1e-3
        if len(hits):
            assert torch.allclose(hits, dropped(w, keep, p).expand_as(hits), rtol=1e-12, atol=0)
    assert torch.equal(torch.nn.Dropout(p).eval()(t(w)), t(w))


@pytest.mark.parametrize("w, p", [(["1/5", "3/10", "1/2"], "1/2"), (["1/7", "2/7", "4/7"], "1/3"),
                                  (["1"], "9/10"), (["1/6"] * 6, "3/4"), (["0", "2/5", "3/5"], "1/2")])
def test_expectation_over_every_mask_is_the_row_exactly(w, p):
    w, p = [Fraction(a) for a in w], Fraction(p)
    mean, total = [Fraction(0)] * len(w), Fraction(0)
    for keep in itertools.product((1, 0), repeat=len(w)):
        prob = (1 - p) ** sum(keep) * p ** (len(w) - sum(keep))
        total += prob
        mean = [m + prob * k * a / (1 - p) for m, k, a in zip(mean, keep, w)]
    assert mean == w and total == 1


def test_sampler_keeps_about_one_minus_p():
    keep = sampled(6, 0.3, 20000, 7)
    assert abs(keep.mean() - 0.7) <= 5 * math.sqrt(0.21 / keep.size)
    assert (sampled(3, 0.5, 8, 11) == sampled(3, 0.5, 8, 11)).all()


@pytest.mark.parametrize("w, p, count, seed", [
    ((0.2, 0.3, 0.5), 0.5, 200, 0), ((0.2, 0.3, 0.5), 0.0, 20, 3), ((1.0,), 0.999999, 1, 5),
    ((0.0, 0.0, 1.0), 0.5, 2, 2), ((0.5, 0.5), 0.1, 3, 1)])
def test_the_facts_the_captions_read_follow_the_documented_draws(w, p, count, seed):
    """Every draw kept everything (the captions' first case), the rows listed, the bars' scale:
    from the sampler written in the oracle, not from the clip's compute."""
    from scenes.compute import dropout as compute
    r = compute.dropout_lesson(w, p, "train", [(True,) * len(w)], count, seed)
    keep = sampled(len(w), p, count, seed)
    scale = 1 / (1 - p)
    means = (torch.tensor(keep, dtype=torch.float64) * torch.tensor(w) * scale).cumsum(0)
    means = means / torch.arange(1, count + 1)[:, None]
    shown = [c - 1 for c in (1, 2, 5, 10, 20, 50, 100, 200) if c < count] + [count - 1]
    assert r.all_kept == bool(keep.all())
    assert r.listed_samples == min(count, 8)
    assert r.tallest == pytest.approx(max(float(means[shown].max()), max(w)), rel=1e-12)


# ---------------------------------------------------------------- captions chosen by the data
def test_zero_sentence_only_when_a_weight_is_zero(default):
    assert "原先为 0" not in captions(default)[4]
    zero = build("dropout", inputs_for("dropout", preset="dropout-zero"))
    assert "原先为 0 的权重仍为 0" in captions(zero)[4]
    tiny = build("dropout", inputs_for("dropout", weights="0.00001 0.49999 0.5"))
    assert "原先为 0" not in captions(tiny)[4]


@pytest.mark.parametrize("masks, p, words", [
    ("111,111", "0", "都等于 1"), ("100,010", "0.5", "都小于 1"), ("011,101", "0.5", "都大于 1"),
    ("101,000", "0.5", "有的大于 1，有的小于 1"), ("111", "0.5", "这个掩码的行和大于 1")])
def test_sum_sentence_follows_the_chosen_masks(masks, p, words):
    built = build("dropout", inputs_for("dropout", weights="0.25 0.25 0.5", masks=masks, p=p))
    assert words in captions(built)[1], captions(built)[1]


def test_sampling_sentence_follows_the_draws():
    never = build("dropout", inputs_for("dropout", p="0", samples="20"))
    assert "20 次采样都全部保留" in captions(never)[3]
    once = build("dropout", inputs_for("dropout", samples="1"))
    assert "只采样一次" in captions(once)[3]
    inputs = inputs_for("dropout", weights="1/6 1/6 1/6 1/6 1/6 1/6", p="0.99", seed="2147483647")
    gap = [oracle(inputs)[f"gap[{j}]"] for j in (0, 7)]
    said = captions(build("dropout", inputs))[3]
    assert ("越接近原权重" in said) == (gap[1] < gap[0]), said
    stuck = build("dropout", inputs_for("dropout", weights="0 0 1", p="0.5", seed="2", samples="2"))
    assert "2 次采样后，逐项平均与原权重最多相差 1.0000" in captions(stuck)[3]   # kept twice: 2, 2


# ---------------------------------------------------------------- the largest inputs
@pytest.mark.parametrize("raw", [
    dict(weights="0.00001 0.2 0.3 0.19999 0.1 0.2", p="0.99", samples="200", seed="2147483647",
         masks="101010,010101,000001,000000,111111,110011,001100,100001"),
    dict(weights="0 0 1", mode="eval", p="1", masks="000,001,010,011,100,101,110,111"),
    dict(weights="1", p="0.999999", samples="1")])
def test_extreme_inputs_are_legible_and_proven(raw):
    _, problems = proven(inputs_for("dropout", **raw))
    assert problems == [], "\n".join(problems[:20])


# ---------------------------------------------------------------- CLI
def test_dry_run_manifest_has_the_books_sums(tmp_path):
    code, out = cli("dropout", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    m = manifest(tmp_path / "dropout.numbers.json")
    sums = {r["label"]: r["text"] for r in m["numbers"] if r["label"].endswith(".sum")}
    assert [sums[f"chosen[{k}].sum"] for k in range(4)] == ["1.400000", "0.600000", "1.000000", "0.000000"]
    assert m["inputs"]["masks"] == ["101", "010", "001", "000"] and len(m["steps"]) == 5
    assert not (tmp_path / "dropout.mp4").exists()


def test_new_weights_alone_get_masks_of_their_length(tmp_path):
    """The lab's default masks follow the weights: no --masks needed for four weights."""
    code, out = cli("dropout", "--weights", "0.25 0.25 0.5 0", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    assert manifest(tmp_path / "dropout.numbers.json")["inputs"]["masks"] == ["1010", "0101", "0001", "0000"]


def test_p_1_is_accepted_in_eval_mode_and_the_largest_seed_too(tmp_path):
    code, out = cli("dropout", "--p", "1", "--mode", "eval", "--seed", "2147483647", "--dry-run",
                    "--out", str(tmp_path))
    assert code == 0, out


@pytest.mark.parametrize("args, option", [
    (["--p", "1", "--mode", "train"], "--p"),
    (["--p", "1"], "--p"),
    (["--p", "1.5"], "--p"),
    (["--p", "-0.1"], "--p"),
    (["--p", "half"], "--p"),
    (["--weights", "0.2 0.3 0.4"], "--weights"),          # sums to 0.9
    (["--weights", "0.5 -0.5 1"], "--weights"),           # negative
    (["--weights", "1.5 -0.5"], "--weights"),             # outside [0, 1]
    (["--weights", "a b c"], "--weights"),                # not numbers
    (["--weights", "nan 1"], "--weights"),
    (["--weights", " ".join(["0.125"] * 8)], "--weights"),  # more than 6
    (["--weights", ""], "--weights"),
    (["--masks", "10,01"], "--masks"),                    # wrong length
    (["--masks", "1a1"], "--masks"),                      # other characters
    (["--masks", "101,,010"], "--masks"),
    (["--masks", ",".join(["101"] * 9)], "--masks"),      # more than 8
    (["--weights", "0.5 0.5", "--masks", "101"], "--masks"),
    (["--mode", "test"], "--mode"),
    (["--samples", "0"], "--samples"),
    (["--samples", "201"], "--samples"),
    (["--samples", "ten"], "--samples"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "2147483648"], "--seed"),
    (["--preset", "multihead"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "dropout", args, option)


def test_p_1_message_explains_the_rule(tmp_path):
    code, out = cli("dropout", "--p", "1", "--mode", "train", "--out", str(tmp_path / "out"))
    assert code == 2 and "1/(1-p)" in out and "train" in out


# ---------------------------------------------------------------- a real render
def test_tiny_real_render_reads_back(tiny_chapter):
    """The chapter's tiny render of the book's inputs (the tiny chapter, shared: not rendered again here)."""
    said = assert_video_with_captions(tiny_chapter, "dropout", 5)
    assert "1.000000" in said[0][2] and "nn.Dropout" in said[3][2]


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("dropout")
