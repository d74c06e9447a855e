"""The lab's numbers panel and its clicks, without a browser: for the book's three labs, every
number POST /api/compute lists is the clip's torch oracle's (at full precision), for the book's
inputs, every preset and generated legal inputs; every clip's panel is made of its compute
result alone; every hit area a still offers gives a value the clip's rules take, and one that
changes what the click names (the tracked query, the mask bit, the element)."""
import importlib
import math
import random

import pytest

from conftest import build
from scenes.pipeline.jobs.inputs import check, manifest_inputs, preset_names, raw_inputs
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.lab import controls
from scenes.pipeline.lab.request import Ask, compute_view, field_text, holds

LABS = ("causal-mask", "dropout", "multihead")


def ask(clip, given):
    checked = check(clip, raw_inputs(clip, None, given))
    return Ask(clip, "zh", given, manifest_inputs(checked), 1, "low", "page", checked)


def close(value, expected):
    if callable(expected):                       # the oracle's "rounding noise" rule
        return expected(float(value))
    if isinstance(value, str):
        return (value == "nan" and math.isnan(expected)) or (value in ("inf", "-inf") and
                                                             float(value) == expected)
    return value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def inputs_of(clip, seed):
    """The book's inputs, each preset's, then inputs the oracle's legal_inputs draws."""
    cases = [{}] + [{k: v for k, v in raw_inputs(clip, name).items()} for name, _ in preset_names(clip)]
    module = importlib.import_module(f"support.{clip.replace('-', '_')}_oracle")
    rng = random.Random(seed)
    cases += [module.legal_inputs(rng) for _ in range(6)]
    return module.oracle, cases


@pytest.mark.parametrize("clip", LABS)
def test_the_panel_is_the_oracles(clip):
    oracle, cases = inputs_of(clip, 7)
    for raw in cases:
        given = {k: field_text(v) for k, v in raw.items()}
        given = {k: v for k, v in given.items() if v is not False}
        view = compute_view(ask(clip, given))
        expected = oracle(check(clip, raw_inputs(clip, None, given)))
        labels = [n["label"] for n in view["numbers"]]
        assert labels and len(labels) == len(set(labels))
        assert [n for n in view["numbers"] if n["label"] not in expected] == []
        assert [(n["label"], n["value"], expected[n["label"]]) for n in view["numbers"]
                if not close(n["value"], expected[n["label"]])] == [], given


@pytest.mark.parametrize("clip", list(specs()))
def test_every_clip_has_a_panel_from_its_compute_alone(clip):
    view = compute_view(ask(clip, {}))
    assert 0 < len(view["numbers"]) <= controls.MOST_NUMBERS
    assert view["command"] == f"python render.py {clip}" and view["preset"]["inputs"] == {}
    assert all(isinstance(n["text"], str) and n["text"] for n in view["numbers"])


@pytest.mark.parametrize("clip, step, options, option, sample", [
    ("causal-mask", 2, {"track", "no_causal", "diagonal"}, "track", "weights[2][0]"),
    ("dropout", 2, {"masks"}, "masks", "chosen[1].mask[0]"), ("multihead", 1, {"track"}, "track", "start[0][2][3]")])
def test_every_hit_area_gives_a_value_the_rules_take(clip, step, options, option, sample):
    built = build(clip)
    layout = built.manifest()["layout"]
    items = next(s["items"] for s in layout if s["step"] == step)
    a = ask(clip, {})
    picks = controls.picks(clip, items, a.given, a.checked, holds(a))
    assert picks and {p["option"] for p in picks} == options
    for p in picks:
        checked = check(clip, raw_inputs(clip, None, {p["option"]: p["value"]}))
        assert p["current"] == (manifest_inputs(checked) == a.inputs), p
    chosen = next(p for p in picks if p["label"] == sample)
    after = manifest_inputs(check(clip, raw_inputs(clip, None, {option: chosen["value"]})))[option]
    assert after == {"causal-mask": 2, "dropout": ["101", "110", "001", "000"], "multihead": 11}[clip]


@pytest.mark.parametrize("track, cached, offered", [
    (1, 0, {("no_causal", "k2", True), ("diagonal", "k1", "0")}),
    (0, 0, {("no_causal", "k1", True), ("no_causal", "k2", True), ("diagonal", "k0", "0")}),
    (2, 0, {("diagonal", "k2", "0")})])
def test_a_key_columns_click_toggles_what_the_tracked_query_may_see_there(track, cached, offered):
    """The future of the tracked query (key after its position): the causal mask off; its own
    key: the diagonal masked; a key it sees anyway: nothing."""
    items = next(s["items"] for s in build("causal-mask").manifest()["layout"] if s["step"] == 2)
    mask = [i for i in items if i.get("grid", "").startswith("mask#")]
    a = ask("causal-mask", {"track": str(track)})
    picks = controls.picks("causal-mask", mask, a.given, a.checked, holds(a))
    assert {(p["option"], p["label"], p["value"]) for p in picks if p["option"] != "track"} == offered
    column = next(p for p in picks if p["option"] == "no_causal" or p["option"] == "diagonal")
    cells = [i["cell"] for i in mask if i.get("col") == int(column["label"][1:]) and i.get("cell")]
    assert column["box"][0] <= min(c[0] for c in cells) and column["box"][2] >= max(c[2] for c in cells)
    assert column["box"][1] >= max(c[3] for c in cells)          # the column's name, above its cells


def test_a_toggle_the_rules_refuse_is_not_offered():
    """Two keys, one query, no mask: the mask back on would need as many keys as queries."""
    items = next(s["items"] for s in build("causal-mask").manifest()["layout"] if s["step"] == 2)
    a = ask("causal-mask", {"q": "1 0", "k": "1 0; 0 1", "v": "10; 20", "track": "0", "no_causal": True})
    assert [p for p in controls.picks("causal-mask", items, a.given, a.checked, holds(a))
            if p["option"] == "no_causal"] == []
