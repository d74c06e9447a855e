"""4.1: the weighted-average clip shows the book's numbers, and PyTorch's for custom inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_refused, assert_video_with_captions, assert_shown, build, cli, inputs_for, manifest

JOURNEY = ("0.43 0.15 0.89; 0.55 0.87 0.66; 0.57 0.85 0.64; 0.22 0.58 0.33; "
           "0.77 0.25 0.10; 0.05 0.80 0.55")


def oracle(x, query):
    x = torch.tensor(x, dtype=torch.float64)
    scores = x @ x[query]
    weights = F.softmax(scores, dim=-1)
    gram = x @ x.T
    return {"scores": scores, "weights": weights, "output": weights @ x, "gram": gram,
            "rows": F.softmax(gram, dim=-1), "cols": F.softmax(gram, dim=-2)}


def check_against_torch(built, x, query):
    o = oracle(x, query)
    n = len(x)
    for j in range(n):
        assert_shown(built, f"scores[{j}][0]", float(o["scores"][j]))
        assert_shown(built, f"weights[{j}]", float(o["weights"][j]))
        for k in range(n):
            assert_shown(built, f"gram[{j}][{k}]", float(o["gram"][j, k]))
            assert_shown(built, f"softmax_rows[{j}][{k}]", float(o["rows"][j, k]))
            assert_shown(built, f"softmax_cols[{j}][{k}]", float(o["cols"][j, k]))
        assert_shown(built, f"softmax_rows_row_sums[{j}][0]", 1.0)
        assert_shown(built, f"softmax_cols_row_sums[{j}][0]", float(o["cols"][j].sum()))
    for c, v in enumerate(o["output"]):
        assert_shown(built, f"output[0][{c}]", float(v))
    assert built.unexplained() == []


def test_book_example_shows_the_books_numbers():
    built = build("weighted-average")
    texts = {r["text"] for r in built.numbers}
    assert {"0.1554", "0.4223", "0.5777", "0.8446"} <= texts
    assert [built.value(f"scores[{j}][0]")["text"] for j in range(3)] == ["0", "1", "1"]
    check_against_torch(built, [[1, 0], [0, 1], [1, 1]], 1)


def test_softmax_dim_minus_2_rows_do_not_sum_to_one():
    built = build("weighted-average")
    sums = [built.value(f"softmax_cols_row_sums[{j}][0]")["value"] for j in range(3)]
    assert not np.allclose(sums, 1)


@pytest.mark.parametrize("x, query, tokens", [
    ("2 -1 0.5; 0 3 1; -2 0.25 4; 1 1 1", 2, None),
    (JOURNEY, 1, "Your journey starts with one step"),
    ("1; -1", 0, "yes no"),
    ("0.5 -1.5 2 0 1 3 -2 1; 1 0 0 0 0 0 0 -1; 3 3 3 3 3 3 3 3; 0 0 0 0 0 0 0 0; "
     "-1 -2 -3 -4 1 2 3 4; 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8; 9 -9 9 -9 9 -9 9 -9; 1 2 1 2 1 2 1 2", 7, None),
])
def test_custom_inputs_match_torch(x, query, tokens):
    inputs = inputs_for("weighted-average", x=x, query=query, tokens=tokens)
    built = build("weighted-average", inputs)
    check_against_torch(built, inputs["x"], query)
    if tokens:
        drawn = " ".join(s for _, s in built.texts)
        assert all(t in drawn for t in tokens.split())


def test_a_typed_number_is_caught(monkeypatch):
    """A scene that types a number instead of asking the compute module fails the check."""
    from manim import Text
    from scenes.clips.weighted_average import WeightedAverage
    original = WeightedAverage.why_not_divide

    def typed(self):
        original(self)
        self.add(Text("0.1554"))
    monkeypatch.setattr(WeightedAverage, "why_not_divide", typed)
    assert build("weighted-average").unexplained() == ["0.1554"]


def test_a_typed_number_in_a_label_fails_the_build(monkeypatch):
    from scenes.kit.numbers import TypedNumberError
    from scenes.clips.weighted_average import WeightedAverage
    monkeypatch.setattr(WeightedAverage, "title", "先把加权平均写清楚 2.7183")
    with pytest.raises(TypedNumberError):
        build("weighted-average")


def test_dry_run_writes_only_the_manifest(tmp_path):
    code, out = cli("weighted-average", "--dry-run", "--out", str(tmp_path))
    assert code in (0, None), out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["weighted-average.numbers.json"]
    m = manifest(tmp_path / "weighted-average.numbers.json")
    assert m["scene"] == "weighted-average" and m["inputs"]["query"] == 1
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
    assert_refused(tmp_path, "weighted-average", args, option)


def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render("weighted-average")
    captions = assert_video_with_captions(out, "weighted-average", 6)
    assert captions[3][2].startswith("softmax")
