"""4.7: one element followed through reshape, transpose and the merge, with torch as the oracle."""
import random
from itertools import product

import numpy as np
import pytest
import torch

from contract import layout_problems
from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from scenes import compute
from scenes.pipeline.inputs import InputError

STEPS = ("start", "split", "transposed", "back", "merged", "wrong")
LEGAL = [(b, t, d, h) for b, t, d, h in product((1, 2), range(1, 5), range(1, 13), range(1, 5))
         if d % h == 0]


def oracle(b, t, d, h):
    """Each step's id tensor, made by torch's own reshape/transpose calls."""
    start = torch.arange(b * t * d).reshape(b, t, d)
    split = start.reshape(b, t, h, d // h)
    transposed = split.transpose(1, 2)
    back = transposed.transpose(1, 2)
    return {"start": start, "split": split, "transposed": transposed, "back": back,
            "merged": back.reshape(b, t, d), "wrong": transposed.reshape(b, t, d)}


def where(tensor):
    """id -> its coordinate in `tensor`."""
    return {int(v): tuple(int(i) for i in idx) for idx, v in np.ndenumerate(tensor.numpy())}


def test_legal_space_is_what_the_rules_allow():
    assert len(LEGAL) == 200
    for b, t, d, h in LEGAL:
        assert inputs_for("multihead", shape=f"{b},{t},{d}", heads=h, track=0)["shape"] == (b, t, d)


def test_every_element_of_every_legal_shape_matches_torch():
    checked = 0
    for b, t, d, h in LEGAL:
        tensors = oracle(b, t, d, h)
        places = {name: where(x) for name, x in tensors.items()}
        for e in range(b * t * d):
            track = compute.track_element((b, t, d), h, e)
            for name in STEPS:
                assert getattr(track, name) == places[name][e], (b, t, d, h, e, name)
            assert track.score_shape == (b, h, t, t)
            assert track.head_dim == d // h
            checked += 1
        layouts = compute.head_layouts((b, t, d), h)
        for name in STEPS:
            assert np.array_equal(layouts[name], tensors[name].numpy()), (b, t, d, h, name)
        wrong_ids = tensors["wrong"][tensors["wrong"] != tensors["merged"]]
        assert sorted(compute.misplaced_by_wrong_merge((b, t, d), h).tolist()) == sorted(wrong_ids.tolist())
    assert checked == 5220


def test_the_books_coordinates():
    e2 = compute.track_element((1, 3, 4), 2, 2)
    assert [e2.start, e2.split, e2.transposed, e2.back, e2.merged] == \
        [(0, 0, 2), (0, 0, 1, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 2)]
    assert e2.wrong == (0, 1, 2)
    e6 = compute.track_element((1, 3, 4), 2, 6)
    assert (e6.merged, e6.wrong) == ((0, 1, 2), (0, 2, 0))
    # 4.9: D_o = 12, H = 3, T = 5, B = 2 -> Q split [2, 3, 5, 4], scores [2, 3, 5, 5], merged [2, 5, 12]
    assert compute.head_layouts((2, 5, 12), 3)["transposed"].shape == (2, 3, 5, 4)
    assert compute.head_split(5, 2) == (2, 1)


def coords(built, label, n):
    return tuple(int(built.value(f"{label}[{k}]")["value"]) for k in range(n))


def check_manifest(built, b, t, d, h, e, wrong_merge):
    """Every id drawn at every step, every coordinate and shape, equals torch's."""
    tensors = oracle(b, t, d, h)
    for name in STEPS:
        for idx, v in np.ndenumerate(tensors[name].numpy()):
            rec = built.value(name + "".join(f"[{i}]" for i in idx))
            assert rec["value"] == int(v) and rec["text"] == str(int(v)), (name, idx, rec)
        shape = tuple(tensors[name].shape)
        assert coords(built, f"{name}.shape", len(shape)) == shape
        for i0, i1 in np.ndindex(shape[:2]):
            assert coords(built, f"{name}.group[{i0}][{i1}]", 2) == (i0, i1)
        assert coords(built, f"track.{name}", len(shape)) == where(tensors[name])[e]
    assert coords(built, "score_shape", 4) == (b, h, t, t)
    assert built.value("track")["value"] == e
    assert built.value("count")["value"] == b * t * d
    misplaced = int((tensors["wrong"] != tensors["merged"]).sum())
    if wrong_merge and misplaced:
        assert built.value("misplaced")["value"] == misplaced
    else:
        assert not built.texts_of("misplaced")
    assert built.unexplained() == []
    drawn = [s for _, s in built.texts]
    assert sum(s == f"e{e}" for s in drawn) == 1          # one Text per id, moved from step to step
    assert all(f"e{n}" in drawn for n in range(b * t * d))


def test_default_shows_the_books_numbers():
    built = build("multihead")
    check_manifest(built, 1, 3, 4, 2, 2, False)
    assert coords(built, "track.wrong", 3) == (0, 1, 2)
    captions = [c for _, _, c in built.scene.captions]
    assert len(captions) == 6
    assert "[0, 1, 2]" in captions[4] and "e2" in captions[0]
    assert captions[2].startswith("transpose(1, 2)")


def test_wrong_merge_preset_tracks_e6():
    built = build("multihead", inputs_for("multihead", "wrong-merge-e6"))
    check_manifest(built, 1, 3, 4, 2, 6, True)
    assert coords(built, "track.merged", 3) == (0, 1, 2) and coords(built, "track.wrong", 3) == (0, 2, 0)
    assert "从正确的 [0, 1, 2] 错到 [0, 2, 0]" in built.scene.captions[4][2]


def random_cases(n, seed=4):
    rng = random.Random(seed)
    for i in range(n):
        b, t, d, h = rng.choice(LEGAL)
        yield (b, t, d), h, rng.randrange(b * t * d), i % 2 == 0


@pytest.mark.parametrize("shape, heads, track, wrong_merge", [
    ((2, 4, 12), 4, 95, True),              # the largest: 96 ids
    ((2, 4, 12), 1, 50, False),             # one head: the wrong merge happens to be right
    ((2, 4, 4), 4, 13, True),               # d = 1
    *random_cases(2),
])
def test_custom_shapes_match_torch(shape, heads, track, wrong_merge):
    inputs = inputs_for("multihead", shape=",".join(map(str, shape)), heads=heads, track=f"e{track}",
                        wrong_merge=wrong_merge)
    check_manifest(build("multihead", inputs), *shape, heads, track, wrong_merge)


def test_error_card_shows_the_validators_own_message():
    built = build("multihead")
    code, out = cli("multihead", "--shape", "1,3,5", "--heads", "2", "--dry-run", "--out", "/nonexistent/x")
    assert code == 2
    line = out.strip()
    assert line in [s for _, s in built.texts], line
    assert coords(built, "error.shape", 3) == (1, 3, 5) and built.value("error.heads")["value"] == 2
    assert coords(built, "error.split", 2) == (2, 1)
    # another example from the inputs: the card follows the data, never typed numbers
    other = build("multihead", inputs_for("multihead", shape="2,1,1", heads=1, track=0, error_d=10,
                                          error_heads=3))
    assert coords(other, "error.shape", 3) == (2, 1, 10) and coords(other, "error.split", 2) == (3, 1)
    assert other.unexplained() == []


@pytest.mark.parametrize("given, field", [
    ({"error_d": 4}, "error_d"),              # 4 splits evenly into 2 heads: no error to show
    ({"error_d": 13}, "error_d"),
    ({"error_heads": 1}, "error_heads"),
])
def test_error_example_must_be_an_error(given, field):
    with pytest.raises(InputError) as err:
        inputs_for("multihead", **given)
    assert err.value.field == field


@pytest.mark.parametrize("heads", [1, 2, 3, 4])
def test_largest_shape_keeps_the_layout_contract(heads):
    """[2, 4, 12] with every H, the wrong merge emphasised: every step keeps the contract."""
    inputs = inputs_for("multihead", shape="2,4,12", heads=heads, track="e95", wrong_merge=True)
    assert layout_problems(build("multihead", inputs).manifest()) == []


def test_dry_run_manifests_hold_the_books_coordinates(tmp_path):
    code, out = cli("multihead", "--dry-run", "--out", str(tmp_path / "a"))
    assert code == 0, out
    written = sorted(p.suffix for p in (tmp_path / "a").iterdir())
    assert ".json" in written and not {".mp4", ".png", ".srt"} & set(written)
    shown = {r["label"]: r["value"] for r in manifest(tmp_path / "a" / "multihead.numbers.json")["numbers"]}
    chain = [[shown[f"track.{s}[{k}]"] for k in range(n)]
             for s, n in (("start", 3), ("split", 4), ("transposed", 4), ("back", 4), ("merged", 3),
                          ("wrong", 3))]
    assert chain == [[0, 0, 2], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 2], [0, 1, 2]]
    code, out = cli("multihead", "--track", "6", "--wrong-merge", "--dry-run", "--out", str(tmp_path / "b"))
    assert code == 0, out
    m = manifest(tmp_path / "b" / "multihead.numbers.json")
    assert m["inputs"]["track"] == 6 and m["inputs"]["wrong_merge"] is True
    shown = {r["label"]: r["value"] for r in m["numbers"]}
    assert [shown[f"track.merged[{k}]"] for k in range(3)] == [0, 1, 2]
    assert [shown[f"track.wrong[{k}]"] for k in range(3)] == [0, 2, 0]


@pytest.mark.parametrize("args, option", [
    (["--shape", "1,3,5"], "--heads"),                     # D = 5 not divisible by H = 2
    (["--shape", "2,4,10", "--heads", "4"], "--heads"),
    (["--heads", "3"], "--heads"),                         # D = 4, H = 3
    (["--heads", "5", "--shape", "1,3,10"], "--heads"),    # H > 4
    (["--heads", "0"], "--heads"),
    (["--heads", "two"], "--heads"),
    (["--shape", "3,3,4"], "--shape"),                     # B > 2
    (["--shape", "1,5,4"], "--shape"),                     # T > 4
    (["--shape", "1,3,14"], "--shape"),                    # D > 12
    (["--shape", "0,3,4"], "--shape"),
    (["--shape", "1,3"], "--shape"),                       # malformed
    (["--shape", "1,3,4,2"], "--shape"),
    (["--shape", "a,b,c"], "--shape"),
    (["--shape", "1.5,3,4"], "--shape"),
    (["--shape", ""], "--shape"),
    (["--track", "e12"], "--track"),                       # 12 elements: e0 .. e11
    (["--track", "12"], "--track"),
    (["--track", "-1"], "--track"),
    (["--track", "x3"], "--track"),
    (["--track", "e"], "--track"),
    (["--shape", "2,4,12", "--heads", "4", "--track", "e96"], "--track"),
    (["--preset", "nope"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "multihead", args, option)


def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render("multihead")
    captions = assert_video_with_captions(out, "multihead", 6)
    assert captions[1][2].startswith("reshape") and "[0, 1, 2]" in captions[4][2]
