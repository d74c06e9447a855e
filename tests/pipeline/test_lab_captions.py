"""The caption the data chooses, at once: POST /api/compute answers each step's caption from the
compute result and the catalogues alone (scenes/pipeline/lab/captions*.py, no Manim), and it is the
caption the built clip shows for those inputs (the dry run's manifest), in Chinese and English, for
every clip: the book's inputs, every preset and inputs the oracle draws (score-grid, whose drawn
inputs split its boards, also a few chosen ones), wherever each step is one board. Where a clip
writes a caption inline, the lab writes it as there: its every inline template is one the clip holds."""
import ast
import importlib
import json
import random
import subprocess
import sys

import pytest

from conftest import ROOT, inputs_for
from scenes.kit.text.lang import has_cjk, templates
from scenes.pipeline.jobs.inputs import check, manifest_inputs, preset_names, raw_inputs
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.lab import captions as chosen, captions_exercises, request
from scenes.pipeline.lab.captions_slots import Slots
from scenes.pipeline.lab.request import Ask, compute_view, field_text
from support.shared_builds import shared_build

CLIPS = ("weighted-average", "score-grid", "causal-mask", "future-check", "dropout", "multihead",
         "implementation", "exercises")
# score-grid's drawn inputs are wide: its first step takes pages; these each keep one board
CHOSEN = {"score-grid": [("Q and K given", {"q": "1 0; 0 1; 1 1", "k": "1 0; 0 1"}),
                         ("width one", {"q": "1; 2; 3", "k": "1; 2; 3", "v": "1; 1; 1", "tokens": "猫 坐 垫"}),
                         ("one key", {"q": "1 2; 3 4", "k": "1 1"}),
                         ("a flat row", {"q": "0 0; 0 0", "k": "1 2; 3 4"})]}
LAST_WHOLE = ("weighted-average", "score-grid", "future-check", "implementation", "exercises")  # never split last
# Where each caption module's inline templates come from: the clips' sources and catalogues (and
# the kit's exact.fraction_rows, which lists the exercises' fractions).
SOURCES = {"captions": ("causal_mask", "dropout", "multihead"), "captions_lessons": ("weighted_average", "score_grid"),
           "captions_checks": ("future_check", "implementation"),
           "captions_exercises": ("exercises", "kit/draw/exact.py")}


def cases(clip, drawn):
    """(name, raw inputs): the book's, each preset's, the chosen ones, then `drawn` the oracle's
    legal_inputs draws."""
    out = [("book", {})] + [(name, dict(raw_inputs(clip, name))) for name, _ in preset_names(clip)]
    module = importlib.import_module(f"support.{clip.replace('-', '_')}_oracle")
    rng = random.Random(11)
    return out + CHOSEN.get(clip, []) + [(f"drawn {n}", module.legal_inputs(rng)) for n in range(drawn)]


def answered(clip, raw, lang, step=1):
    given = {k: field_text(v) for k, v in raw.items()}
    given = {k: v for k, v in given.items() if v is not False}
    checked = check(clip, raw_inputs(clip, None, given))
    return compute_view(Ask(clip, lang, given, manifest_inputs(checked), step, "low", "page", checked))


def differences(clip, raw, lang):
    """(step, the clip's caption, the compute's) where they differ; None where a step's board was
    split over pages (the still numbers its pages), once the last step, where it is never split,
    is found the same."""
    shown = [s["caption"] for s in shared_build(clip, inputs_for(clip, **raw), lang).manifest()["steps"]]
    said = answered(clip, raw, lang)["captions"]
    if len(shown) != len(said):
        assert clip not in LAST_WHOLE or shown[-1] == said[-1], (shown[-1], said[-1])
        return None
    return [(n + 1, a, b) for n, (a, b) in enumerate(zip(shown, said)) if a != b]


@pytest.mark.sampled(3)
@pytest.mark.parametrize("clip", CLIPS)
def test_each_steps_caption_is_the_clips_for_the_same_inputs(clip):
    compared = 0
    for name, raw in cases(clip, 3 if clip == "weighted-average" else 2):   # its only preset: one draw more
        found = differences(clip, raw, "zh")
        if found is not None:
            compared += 1
            assert found == [], name
    assert compared >= 5


@pytest.mark.sampled(3)
@pytest.mark.parametrize("clip", CLIPS)
def test_the_english_page_gets_the_english_caption(clip):
    raw = dict(raw_inputs(clip, preset_names(clip)[0][0]))
    for case in ({}, raw):
        assert differences(clip, case, "en") == []
    view = answered(clip, {}, "en", step=2)
    assert view["caption"] == view["captions"][1] and view["caption"] and not has_cjk(view["caption"])


def test_the_caption_follows_the_step_and_a_step_past_the_last_has_none():
    views = [answered("causal-mask", {}, "zh", step) for step in (1, 6, 8)]
    assert views[0]["caption"].startswith("让查询 q1") and views[1]["caption"].startswith("因果性检查")
    assert views[2]["caption"] is None and len(views[2]["captions"]) == 7
    assert answered("causal-mask", {"pad_side": "right"}, "zh", 5)["caption"].startswith("右 padding：后 2 个键是 pad")
    assert answered("causal-mask", {"track": "2"}, "zh", 6)["caption"] == \
        "因果性检查：只改 K、V 的最后一行；q2 本就看得见这一行，有无掩码输出都改变。"


def test_every_clip_has_its_captions_and_one_without_answers_none(monkeypatch):
    assert sorted(chosen.CHOOSERS) == sorted(specs())
    monkeypatch.delitem(chosen.CHOOSERS, "score-grid")
    view = answered("score-grid", {}, "zh")
    assert view["caption"] is None and view["captions"] is None and view["numbers"]


def literals(path):
    """The CJK string literals of a module, its docstrings aside."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and has_cjk(node.value) and id(node) not in docs}


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_every_inline_caption_is_one_its_clip_writes(module):
    """A caption the lab writes inline is the clip's own template (scene code or catalogue), word for word."""
    held = set()
    for clip in SOURCES[module]:
        if clip.endswith(".py"):
            held |= literals(ROOT / "scenes" / clip)
            continue
        folder = ROOT / "scenes" / "clips" / clip
        for path in ([*folder.glob("*.py")] if folder.is_dir() else [folder.with_suffix(".py")]):
            held |= literals(path)
        held |= set(templates(json.loads((ROOT / "assets" / "lang" / "zh" / f"{clip}.json").read_text("utf-8"))))
    mine = literals(ROOT / "scenes" / "pipeline" / "lab" / f"{module}.py")
    assert mine and sorted(mine - held) == []


def test_the_exercises_are_the_clips_in_its_order():
    from scenes.clips.exercises.scene import EXERCISES
    assert captions_exercises.EXERCISES == EXERCISES


def test_a_token_measured_in_the_wrong_language_is_caught(monkeypatch):
    """Planted: compute() measures the tokens in the Chinese font on the English page ("journey" is
    wide enough to be tagged x1 in the English one)."""
    computed = request.computed
    monkeypatch.setattr(request, "computed", lambda stand_in, lang: computed(stand_in, "zh"))
    journey = dict(raw_inputs("weighted-average", "journey-weighted-average"))
    assert [n for n, _, _ in differences("weighted-average", journey, "en")] == [1, 2]


def test_an_exact_zero_said_with_decimals_is_caught(monkeypatch):
    """Planted: a change a check needs exactly zero said as 0.0000, not 0."""
    monkeypatch.setattr(Slots, "change", lambda self, value: self.num(value, 4))
    assert [n for n, _, _ in differences("future-check", {}, "zh")] == [2, 4, 5]


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
print(captions("causal-mask", i, r, "en")[5]); print(captions("dropout", {}, d, "zh")[0])
print(captions("multihead", m, h, "zh")[4])
from types import SimpleNamespace
from scenes.compute import average, scores, future, implementation as code, exercises as ex
print(captions("weighted-average", {"tokens": None}, average.lesson(q, 1), "zh")[4])
print(captions("score-grid", {"tokens": None}, scores.score_grid(q=q, k=q), "en")[3])
print(captions("future-check", {}, future.future_check(), "zh")[4].splitlines()[0])
s = code.code_shapes((2, 5, 12), 3)
c = SimpleNamespace(shapes=s, widths=code.out_widths(12, 3), check=code.sdpa_check(s.heads, 0))
print(captions("implementation", {"heads": 3}, c, "zh")[3])
e = {"3.3": ex.attention_params(768, 12), "zeros": ex.zero_scores()}
print(captions("exercises", {"only": ["3.3", "zeros"]}, e, "en")[4])
assert "manim" not in sys.modules, "manim imported"
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Causality check: change only the last row of K and V; q1's output is unchanged with the mask but "
        "changes without it.", "softmax 之后的一行权重：dropout 之前，行和为 1.000000。",
        "对照：不换回就直接 reshape，e2 会错到 [0, 1, 2]。",
        "z1 = Σ αⱼ xⱼ = (0.5777, 0.8446)：三个向量的混合，不是挑出其中一个。", 
        "Softmax of one row: unscaled scores are further apart, so the weights are more peaked (query q0).",
        "打开 dropout（p = 0.1）：不扰动时两次输出也相差 1.5328；",
        "同名不同义：早期 Wrapper 的 d_out 指每个头的宽度，MultiHeadAttention 的指总宽度；照搬 d_out = 12 输出宽 3 倍。",
        "Answer: the three rows are (1, 0, 0), (1/2, 1/2, 0), (1/3, 1/3, 1/3)."]


def test_a_caption_that_cannot_be_chosen_costs_no_numbers(monkeypatch):
    """Planted: the chooser fails; the numbers still answer, the caption waits for the still."""
    def fails(*args):
        raise ZeroDivisionError("planted")
    monkeypatch.setitem(chosen.CHOOSERS, "dropout", fails)
    view = answered("dropout", {}, "zh")
    assert view["caption"] is None and view["numbers"]
