"""The caption the data chooses, at once: POST /api/compute answers each step's caption from the
compute result and the catalogues alone (scenes/pipeline/lab/captions.py, no Manim), and it is the
caption the built clip shows for those inputs (the dry run's manifest), in Chinese and English, for
the book's three labs (4.4 causal mask, 4.6 dropout, 4.7 multihead): the book's inputs, every
preset and inputs the oracle draws, wherever each step is one board."""
import json
import random
import subprocess
import sys

import pytest

from conftest import ROOT, inputs_for
from scenes.kit.text.lang import has_cjk
from scenes.pipeline.jobs.inputs import check, manifest_inputs, preset_names, raw_inputs
from scenes.pipeline.lab import captions as chosen
from scenes.pipeline.lab.request import Ask, compute_view, field_text
from support.shared_builds import shared_build

CLIPS = ("causal-mask", "dropout", "multihead")


def cases(clip, drawn):
    """(name, raw inputs): the book's, each preset's, then `drawn` the oracle's legal_inputs draws."""
    import importlib
    out = [("book", {})] + [(name, dict(raw_inputs(clip, name))) for name, _ in preset_names(clip)]
    module = importlib.import_module(f"support.{clip.replace('-', '_')}_oracle")
    rng = random.Random(11)
    return out + [(f"drawn {n}", module.legal_inputs(rng)) for n in range(drawn)]


def answered(clip, raw, lang, step=1):
    given = {k: field_text(v) for k, v in raw.items()}
    given = {k: v for k, v in given.items() if v is not False}
    checked = check(clip, raw_inputs(clip, None, given))
    return compute_view(Ask(clip, lang, given, manifest_inputs(checked), step, "low", "page", checked))


def differences(clip, raw, lang):
    """(step, the clip's caption, the compute's) where they differ; None where a step's board was
    split over pages (the still numbers its pages)."""
    shown = [s["caption"] for s in shared_build(clip, inputs_for(clip, **raw), lang).manifest()["steps"]]
    said = answered(clip, raw, lang)["captions"]
    if len(shown) != len(said):
        return None
    return [(n + 1, a, b) for n, (a, b) in enumerate(zip(shown, said)) if a != b]


@pytest.mark.parametrize("clip", CLIPS)
def test_each_steps_caption_is_the_clips_for_the_same_inputs(clip):
    compared = 0
    for name, raw in cases(clip, 2):
        found = differences(clip, raw, "zh")
        if found is not None:
            compared += 1
            assert found == [], name
    assert compared >= 5


@pytest.mark.parametrize("clip", CLIPS)
def test_the_english_page_gets_the_english_caption(clip):
    raw = dict(raw_inputs(clip, preset_names(clip)[0][0]))
    for case in ({}, raw):
        assert differences(clip, case, "en") == []
    view = answered(clip, {}, "en", step=2)
    assert view["caption"] == view["captions"][1] and view["caption"] and not has_cjk(view["caption"])


def test_the_caption_follows_the_step_and_a_step_past_the_last_has_none():
    views = [answered("causal-mask", {}, "zh", step) for step in (1, 5, 7)]
    assert views[0]["caption"].startswith("让查询 q1") and views[1]["caption"].startswith("因果性检查")
    assert views[2]["caption"] is None and len(views[2]["captions"]) == 6
    assert answered("causal-mask", {"track": "2"}, "zh", 5)["caption"] == \
        "因果性检查：只改 K、V 的最后一行；q2 本就看得见这一行，有无掩码输出都改变。"


def test_a_clip_whose_choice_is_not_mirrored_answers_no_caption():
    view = answered("score-grid", {}, "zh")
    assert view["caption"] is None and view["captions"] is None


def test_a_wrongly_chosen_caption_is_caught(monkeypatch):
    """Planted: the routes said to differ by rounding where they are equal."""
    monkeypatch.setattr(chosen, "route_agreement", lambda gap: "rounding")
    found = differences("causal-mask", {}, "zh")
    assert [n for n, _, _ in found] == [3]


def test_the_captions_import_no_manim():
    code = """
import sys, numpy as np
from scenes.compute import masking, dropout
from scenes.pipeline.lab.captions import captions
q = np.array([[1., 0.], [0., 1.], [1., 1.]])
r = masking.causal_lesson(q, q, q, 1, True, True, 1, 0, 10.0, 3)
i = {"causal": True, "scale": True, "tokens": None}
d = dropout.dropout_lesson(np.array([0.2, 0.3, 0.5]), 0.5, "train",
                           [np.array(m, bool) for m in ([1, 0, 1], [0, 1, 0], [0, 0, 1], [0, 0, 0])], 200, 0)
from scenes.compute import heads
h = heads.track_element((1, 3, 4), 2, 2)
m = {"shape": (1, 3, 4), "heads": 2, "wrong_merge": False, "error_d": 5, "error_heads": 2}
print(captions("causal-mask", i, r, "en")[4]); print(captions("dropout", {}, d, "zh")[0])
print(captions("multihead", m, h, "zh")[4])
assert "manim" not in sys.modules, "manim imported"
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Causality check: change only the last row of K and V; q1's output is unchanged with the mask but "
        "changes without it.", "softmax 之后的一行权重：dropout 之前，行和为 1.000000。",
        "对照：不换回就直接 reshape，e2 会错到 [0, 1, 2]。"]


def test_a_caption_that_cannot_be_chosen_costs_no_numbers(monkeypatch):
    """Planted: the chooser fails; the numbers still answer, the caption waits for the still."""
    def fails(*args):
        raise ZeroDivisionError("planted")
    monkeypatch.setitem(chosen.CHOOSERS, "dropout", fails)
    view = answered("dropout", {}, "zh")
    assert view["caption"] is None and view["numbers"]
