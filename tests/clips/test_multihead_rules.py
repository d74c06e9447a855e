"""4.7: the input rules and the maths, without Manim: the legal space, the generator reaching the
limits, every element of every legal shape against torch, and bad input refused."""
import random

import numpy as np
import pytest

from conftest import assert_refused, inputs_for
from support.multihead_oracle import LEGAL, STEPS, legal_inputs, tensors, where
from scenes.compute import heads as compute
from scenes.pipeline.jobs.inputs import InputError


@pytest.mark.parametrize("given, field", [
    ({"error_d": 4}, "error_d"),              # 4 splits evenly into 2 heads: no error to show
    ({"error_d": 13}, "error_d"),
    ({"error_heads": 1}, "error_heads"),
    ({"error_heads": 5}, "error_heads"),
])
def test_error_example_must_be_an_error(given, field):
    with pytest.raises(InputError) as err:
        inputs_for("multihead", **given)
    assert err.value.field == field


# -- the rules and the maths, without Manim
def test_legal_space_is_what_the_rules_allow():
    assert len(LEGAL) == 200
    for b, t, d, h in LEGAL:
        assert inputs_for("multihead", shape=f"{b},{t},{d}", heads=h, track=0)["shape"] == (b, t, d)


def test_legal_inputs_are_legal_and_reach_the_limits():
    drawn = [inputs_for("multihead", **legal_inputs(random.Random(k))) for k in range(200)]
    assert {x["shape"] for x in drawn} >= {(2, 4, 12), (1, 1, 12)}
    assert {x["heads"] for x in drawn if x["shape"] == (2, 4, 12)} == {1, 2, 3, 4}
    assert {x["wrong_merge"] for x in drawn} == {True, False}
    assert any(x["track"] == 95 for x in drawn) and any(x["track"] == 0 for x in drawn)


def test_every_element_of_every_legal_shape_matches_torch():
    """The compute module (used by the clip) against torch, for all 5220 (shape, H, element)."""
    for b, t, d, h in LEGAL:
        steps = tensors(b, t, d, h)
        layouts = compute.head_layouts((b, t, d), h)
        for name in STEPS:
            assert np.array_equal(layouts[name], steps[name].numpy()), (b, t, d, h, name)
        wrong = steps["wrong"][steps["wrong"] != steps["merged"]]
        assert compute.misplaced_by_wrong_merge((b, t, d), h).tolist() == sorted(wrong.tolist())
        for e in range(b * t * d):
            track = compute.track_element((b, t, d), h, e)
            assert [getattr(track, s) for s in STEPS] == [where(steps[s], e) for s in STEPS], (b, t, d, h, e)


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
    (["--error-d", "6"], "--error-d"),                     # 6 splits into 2 heads
    (["--error-d", "0"], "--error-d"),
    (["--error-heads", "1"], "--error-heads"),
    (["--error-heads", "5"], "--error-heads"),
    (["--preset", "nope"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "multihead", args, option)
