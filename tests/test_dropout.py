"""4.6 and its lab: every dropout number on screen equals PyTorch's (or exact fractions)."""
import itertools
import math
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_refused, assert_video_with_captions, assert_shown, build, cli, inputs_for, manifest
from scenes import compute as C

def t(a):
    return torch.tensor(np.asarray(a, float), dtype=torch.float64)


def torch_row(w, keep, p):
    """F.dropout's arithmetic for one known mask: kept entries x 1/(1-p), dropped 0."""
    return t(w) * torch.tensor(list(keep), dtype=torch.float64) / (1 - p)


def bits_of(built, prefix, n):
    return "".join(built.value(f"{prefix}.mask[{i}]")["text"] for i in range(n))


def check_against_torch(built, inputs):
    """Every drawn number of the clip against an independent torch/fraction oracle."""
    w, p, mode = inputs["weights"], inputs["p"], inputs["mode"]
    n, p_eff = len(w), (0.0 if mode == "eval" else p)
    for i in range(n):
        assert_shown(built, f"weights[{i}]", float(w[i]), 6)
    assert_shown(built, "weight_sum", float(t(w).sum()), 6)
    # one mask at a time: the masks asked for, in order
    for k, keep in enumerate(inputs["masks"]):
        assert bits_of(built, f"chosen[{k}]", n) == "".join("1" if b else "0" for b in keep)
        row = t(w) if mode == "eval" else torch_row(w, keep, p)
        for i in range(n):
            assert_shown(built, f"chosen[{k}].row[{i}]", float(row[i]), 6)
        assert_shown(built, f"chosen[{k}].sum", float(row.sum()), 6)
        kept = int(sum(keep))
        assert_shown(built, f"chosen[{k}].prob", float((1 - p_eff) ** kept * p_eff ** (n - kept)), 6)
    # every mask, each exactly once, with its probability; the weighted mean is the row
    seen = set()
    for k in range(2 ** n):
        b = bits_of(built, f"table[{k}]", n)
        seen.add(b)
        keep = [c == "1" for c in b]
        row = torch_row(w, keep, p_eff)
        for i in range(n):
            assert_shown(built, f"table[{k}].row[{i}]", float(row[i]), 6)
        assert_shown(built, f"table[{k}].sum", float(row.sum()), 6)
        assert_shown(built, f"table[{k}].prob", (1 - p_eff) ** sum(keep) * p_eff ** (n - sum(keep)), 6)
    assert len(seen) == 2 ** n
    for i in range(n):
        assert_shown(built, f"mean_row[{i}]", float(w[i]), 6)
    assert_shown(built, "expected_sum", 1.0, 6)
    assert_shown(built, "prob_total", 1.0, 6)
    # sampled masks: the ones listed are the generator's, rows recomputed by torch
    s = C.sample_dropout(w, p, inputs["samples"], inputs["seed"], mode)
    for k in range(min(8, inputs["samples"])):
        keep = s.masks[k]
        assert bits_of(built, f"sample[{k}]", n) == "".join("1" if b else "0" for b in keep)
        assert_shown(built, f"sample[{k}].sum", float(torch_row(w, keep, p_eff).sum()), 6)
    rows = torch.stack([torch_row(w, keep, p_eff) for keep in s.masks])
    running = torch.cumsum(rows, 0) / torch.arange(1, len(rows) + 1, dtype=torch.float64)[:, None]
    counts = [int(r["text"]) for r in built.numbers if r["label"].startswith("checkpoint[")]
    assert counts[-1] == inputs["samples"] and counts == sorted(counts)
    for c in counts:
        for i in range(n):
            assert_shown(built, f"running_mean@{c}[{i}]", float(running[c - 1, i]), 4)
    # eval mode: the row unchanged
    ev = F.dropout(t(w), p, training=False)
    for i in range(n):
        assert_shown(built, f"eval.row[{i}]", float(ev[i]), 6)
    assert_shown(built, "eval.sum", float(ev.sum()), 6)
    if p < 1:
        train = torch_row(w, inputs["masks"][0], p)
        for i in range(n):
            assert_shown(built, f"train.row[{i}]", float(train[i]), 6)
    assert built.unexplained() == []


@pytest.fixture(scope="module")
def default():
    return build("dropout")


# ---------------------------------------------------------------- the book's numbers
def test_default_masks_show_the_books_sums(default):
    built = default
    assert [bits_of(built, f"chosen[{k}]", 3) for k in range(4)] == ["101", "010", "001", "000"]
    sums = [built.value(f"chosen[{k}].sum") for k in range(4)]
    assert [r["text"] for r in sums] == ["1.400000", "0.600000", "1.000000", "0.000000"]
    assert [r["value"] for r in sums] == pytest.approx([1.4, 0.6, 1.0, 0.0])
    assert built.value("weight_sum")["text"] == "1.000000"
    assert [built.value(f"weights[{i}]")["text"] for i in range(3)] == ["0.200000", "0.300000", "0.500000"]
    assert built.value("scale")["text"] == "2" and built.value("p")["text"] == "0.5"
    check_against_torch(built, inputs_for("dropout"))


@pytest.mark.parametrize("bits", ["101", "010", "001", "000", "111"])
def test_each_mask_matches_f_dropout(bits):
    """Our row for a known mask has F.dropout's form: every entry is 0 or w/(1-p)."""
    w, p = [0.2, 0.3, 0.5], 0.5
    keep = [b == "1" for b in bits]
    row = C.dropout_row(w, keep, p)
    assert torch.allclose(t(row), torch_row(w, keep, p), atol=1e-15)
    torch.manual_seed(0)
    out = F.dropout(t(w).expand(2000, 3), p, training=True)
    allowed = torch.stack([torch.zeros(3, dtype=torch.float64), t(w) / (1 - p)])
    assert ((out[:, None, :] == allowed[None]).any(1)).all()
    # the very rows F.dropout drew with this pattern are ours
    pattern = (out != 0).to(torch.float64)
    hits = out[(pattern == torch.tensor(keep, dtype=torch.float64)).all(1)]
    assert len(hits) > 0 and torch.allclose(hits, t(row).expand_as(hits))


@pytest.mark.parametrize("w, p", [
    (["1/5", "3/10", "1/2"], "1/2"), (["1/5", "3/10", "1/2"], "1/5"), (["1/7", "2/7", "4/7"], "1/3"),
    (["1"], "9/10"), (["1/6"] * 6, "3/4"), (["0", "2/5", "3/5"], "1/2")])
def test_enumeration_expectation_is_the_row_exactly(w, p):
    w, p = [Fraction(a) for a in w], Fraction(p)
    mean, total_p = [Fraction(0)] * len(w), Fraction(0)
    for keep in itertools.product((1, 0), repeat=len(w)):
        prob = (1 - p) ** sum(keep) * p ** (len(w) - sum(keep))
        total_p += prob
        mean = [m + prob * k * a / (1 - p) for m, k, a in zip(mean, keep, w)]
    assert mean == w and total_p == 1              # exact
    table = C.dropout_table([float(a) for a in w], float(p))
    assert np.abs(table.mean_row - np.array([float(a) for a in w])).max() <= 1e-12
    assert abs(table.expected_sum - float(sum(w))) <= 1e-12
    assert abs(table.probs.sum() - 1) <= 1e-12


# ---------------------------------------------------------------- sampling
def test_sampled_masks_are_reproducible_for_a_seed(default):
    """The listed masks are the seeded generator's: the same seed gives them again, another does not."""
    def listed(seed):
        masks = C.sample_dropout([0.2, 0.3, 0.5], 0.5, 200, seed).masks[:8]
        return ["".join("1" if b else "0" for b in m) for m in masks]
    built = build("dropout", seed=11)
    assert [bits_of(built, f"sample[{k}]", 3) for k in range(8)] == listed(11) != listed(12)
    assert [bits_of(default, f"sample[{k}]", 3) for k in range(8)] == listed(0)
    a, b = C.sample_dropout([0.2, 0.3, 0.5], 0.5, 50, 3), C.sample_dropout([0.2, 0.3, 0.5], 0.5, 50, 3)
    assert (a.masks == b.masks).all() and (a.rows == b.rows).all()


@pytest.mark.parametrize("w, p, seed", [([0.2, 0.3, 0.5], 0.5, 0), ([0.2, 0.3, 0.5], 0.2, 1),
                                        ([0.05, 0.1, 0.15, 0.2, 0.2, 0.3], 0.9, 2), ([1.0], 0.7, 3)])
def test_running_mean_converges_like_nn_dropout(w, p, seed):
    """Mean of N draws within 5 standard errors of the row; the same holds for nn.Dropout."""
    n_draws = 20000
    s = C.sample_dropout(w, p, n_draws, seed)
    w = np.array(w)
    bound = 5 * w * math.sqrt(p / (1 - p)) / math.sqrt(n_draws) + 1e-12
    assert (np.abs(s.running_mean[-1] - w) <= bound).all()
    assert abs(s.masks.mean() - (1 - p)) <= 5 * math.sqrt(p * (1 - p) / s.masks.size)
    assert (np.isclose(s.rows, 0, atol=0) | np.isclose(s.rows, w / (1 - p), rtol=1e-15, atol=0)).all()
    torch.manual_seed(seed)
    drop = torch.nn.Dropout(p).train()
    ref = drop(t(w).expand(n_draws, len(w)))
    assert (torch.abs(ref.mean(0) - t(w)) <= t(bound)).all()
    assert abs(float((ref != 0).double().mean()) - (1 - p)) <= 5 * math.sqrt(p * (1 - p) / ref.numel())


def test_shown_running_mean_approaches_the_row(default):
    built = default
    w = np.array([0.2, 0.3, 0.5])
    last = np.array([built.value(f"running_mean@200[{i}]")["value"] for i in range(3)])
    first = np.array([built.value(f"running_mean@1[{i}]")["value"] for i in range(3)])
    assert (np.abs(last - w) <= 5 * w / math.sqrt(200)).all()
    assert np.abs(last - w).max() < np.abs(first - w).max()


def test_sampling_step_leaves_one_counter_and_one_set_of_bars(monkeypatch):
    """Earlier checkpoints' numbers are replaced, not stacked (the still of step 4 shows one set)."""
    from manim import Text
    from scenes.clips.dropout import Dropout
    from scenes.kit.glyphs import NumberText
    monkeypatch.setattr(Dropout, "eval_mode", lambda self: None)
    scene = build("dropout").scene
    texts = [m.text for m in scene.get_mobject_family_members() if isinstance(m, (Text, NumberText))]
    assert sum(t.startswith("已采样") for t in texts) == 1
    shown = [t for t in texts if re.fullmatch(r"\d\.\d{4}", t)]
    assert shown == [scene.book.fmt(f"running_mean@200[{i}]", v, 4)
                     for i, v in enumerate(scene.result.checkpoint_means[-1])]


# ---------------------------------------------------------------- eval mode and zero weights
def test_eval_mode_ignores_p_and_keeps_the_row():
    for p in ("0.9", "1"):
        inputs = inputs_for("dropout", preset="dropout-eval", p=p)
        built = build("dropout", inputs)
        check_against_torch(built, inputs)
        assert built.value("p_eff")["text"] == "0"
        for k in range(4):
            assert built.value(f"chosen[{k}].sum")["text"] == "1.000000"
        assert all(bits_of(built, f"sample[{k}]", 3) == "111" for k in range(8))
    model = torch.nn.Dropout(0.5).eval()
    assert torch.equal(model(t([0.2, 0.3, 0.5])), t([0.2, 0.3, 0.5]))


def test_zero_weights_stay_zero():
    inputs = inputs_for("dropout", preset="dropout-zero")
    built = build("dropout", inputs)
    check_against_torch(built, inputs)
    zero_entry = [r for r in built.numbers if re.search(r"(row|mean)\S*\[0\]$", r["label"])
                  or r["label"].startswith("running_mean") and r["label"].endswith("[0]")]
    assert zero_entry and all(r["value"] == 0 and r["text"] in ("0.000000", "0.0000") for r in zero_entry)


# ---------------------------------------------------------------- presets and random inputs
@pytest.mark.parametrize("preset", ["dropout-p02", "dropout-six"])
def test_presets_match_torch(preset):
    inputs = inputs_for("dropout", preset=preset)
    built = build("dropout", inputs)
    check_against_torch(built, inputs)
    if preset == "dropout-p02":     # the lab's "try p = 0.2, compare the masks' probabilities"
        assert [built.value(f"chosen[{k}].prob")["text"] for k in range(4)] == \
            ["0.128000", "0.032000", "0.032000", "0.008000"]
    else:                           # 64 masks, on pages, each shown once
        assert built.value("mask_count")["text"] == "64"


def random_cases(count=3, seed=2024):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 7))
        w = rng.dirichlet(np.ones(n))
        masks = ",".join("".join(rng.choice(["0", "1"], n)) for _ in range(int(rng.integers(1, 9))))
        yield (" ".join(repr(float(a)) for a in w), str(round(float(rng.uniform(0, 0.95)), 3)), masks,
               str(int(rng.integers(1, 201))), str(int(rng.integers(0, 1000))))


@pytest.mark.parametrize("weights, p, masks, samples, seed", list(random_cases()))
def test_random_inputs_match_torch(weights, p, masks, samples, seed):
    inputs = inputs_for("dropout", weights=weights, p=p, masks=masks, samples=samples, seed=seed)
    check_against_torch(build("dropout", inputs), inputs)


# ---------------------------------------------------------------- CLI
def test_dry_run_manifest_has_the_books_sums(tmp_path):
    code, out = cli("dropout", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dropout.numbers.json"]
    m = manifest(tmp_path / "dropout.numbers.json")
    sums = {r["label"]: r for r in m["numbers"] if re.fullmatch(r"chosen\[\d\]\.sum", r["label"])}
    assert [sums[f"chosen[{k}].sum"]["text"] for k in range(4)] == ["1.400000", "0.600000", "1.000000", "0.000000"]
    assert m["inputs"]["masks"] == ["101", "010", "001", "000"] and len(m["steps"]) == 5


def test_new_weights_alone_get_masks_of_their_length(tmp_path):
    """The lab's default masks follow the weights: no --masks needed for four weights."""
    code, out = cli("dropout", "--weights", "0.25 0.25 0.5 0", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    m = manifest(tmp_path / "dropout.numbers.json")
    assert m["inputs"]["masks"] == ["1010", "0101", "0001", "0000"]


def test_p_1_is_accepted_in_eval_mode(tmp_path):
    code, out = cli("dropout", "--p", "1", "--mode", "eval", "--dry-run", "--out", str(tmp_path))
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
    (["--preset", "multihead"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "dropout", args, option)


def test_p_1_message_explains_the_rule(tmp_path):
    code, out = cli("dropout", "--p", "1", "--mode", "train", "--out", str(tmp_path / "out"))
    assert code == 2 and "1/(1-p)" in out and "train" in out


# ---------------------------------------------------------------- a real render
def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render("dropout")
    captions = assert_video_with_captions(out, "dropout", 5)
    assert "1.000000" in captions[0][2] and "nn.Dropout" in captions[3][2]
