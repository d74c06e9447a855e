"""Every number a step's frame draws has an answer on the presenter page: an input, a constant, a
rule, an index, or a computation whose named sources are labels drawn at that step or before
(outlined where the frame shows them, else listed with their step), for every clip's default and
every preset, in Chinese and English. Written by scenes/pipeline/present/explain.py from the
manifest alone; the checks here read the manifest again, not explain.py's own tables."""
import copy
import json
import math
import re
from pathlib import Path

import pytest

from conftest import ROOT
from support.dry_runs import dry_manifest
from scenes.kit.text import lang as language
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.present.explain import derivations, step_explained

PRESETS = {p.stem: json.loads(p.read_text("utf-8"))["clip"] for p in sorted((ROOT / "assets/presets").glob("*.json"))}
CASES = [(clip, None) for clip in specs()] + [(clip, name) for name, clip in PRESETS.items()]

# Numbers the clips draw without recording where they come from (no `from`, no input, no rule),
# by clip: none now. Each would be shown as "the manifest does not say", never as a blank; the
# list is exact, so a new gap fails here and so does a closed one.
GAPS: dict[str, set[str]] = {}


@pytest.fixture(scope="module")
def dry():
    """The manifest of a dry run (what the runner writes, inputs and language included), once a
    session for every worker (tests/support/dry_runs.py: test_carried reads the same)."""
    return dry_manifest


def pattern(label):
    return re.sub(r"\d+", "N", label)


def problems(manifest):
    """(gaps, problems): the labels with no answer, and every other broken promise of a note."""
    records = {}
    for rec in manifest["numbers"]:
        if rec["label"] not in records or (rec.get("from") and not records[rec["label"]].get("from")):
            records[rec["label"]] = rec
    drawn: dict[str, int] = {}                    # label -> the first step that draws it
    for rec in manifest["numbers"]:
        drawn[rec["label"]] = min(drawn.get(rec["label"], 99), rec["step"])
    for step in manifest["layout"]:
        for item in step["items"]:
            if item.get("kind") == "number":
                drawn[item["label"]] = min(drawn.get(item["label"], 99), step["step"])
    gaps, found = set(), []
    for step in manifest["layout"]:
        n = step["step"]
        numbers = [it for it in step["items"] if it.get("kind") == "number"]
        page = step_explained(manifest, n)
        if [it[:4] for it in page["items"]] != [it["box"] for it in numbers]:
            found.append(f"step {n}: the page's boxes are not the layout's number items")
            continue
        for it, (*_, k, label) in zip(numbers, page["items"]):
            note, rec = page["notes"][k], records[it["label"]]
            where = f"step {n} {label}"
            if label != it["label"]:
                found.append(f"{where}: the box of {it['label']}")
            if note["kind"] == "none":
                gaps.add(pattern(label))
                if not note["lines"] or rec["text"] not in note["lines"][0]:
                    found.append(f"{where}: a blank note")
                continue
            if not any(line.strip() for line in note["lines"]):
                found.append(f"{where}: a blank note")
            src = rec.get("from") or []
            if note["kind"] == "computed" and not src:
                found.append(f"{where}: computed from nothing")
            if sorted(note["sources"] + note["unseen"]) != sorted(src):
                found.append(f"{where}: names {note['sources'] + note['unseen']}, the manifest says {src}")
            late = [s for s in note["sources"] if drawn.get(s, 99) > n]
            if late:
                found.append(f"{where}: names {late}, not drawn by step {n}")
            lit = sorted(j for j, other in enumerate(numbers) if other["label"] in src and other["label"] in note["sources"])
            if sorted(note["lit"]) != lit:
                found.append(f"{where}: outlines {note['lit']}, its sources in this frame are {lit}")
            here = {other["label"] for other in numbers}
            listed = [s for s in note["sources"] if s not in here]
            if len(note["earlier"]) != len(listed) or any(records[s]["text"] not in line
                                                           for s, line in zip(listed, note["earlier"])):
                found.append(f"{where}: sources drawn before are not listed with their values")
            if note["kind"] == "computed" and rec.get("op") != "move":
                said = " ".join(note["lines"])
                named = note["sources"] if "…" not in said else note["sources"][:1] + note["sources"][-1:]
                missing = [s for s in named if records[s]["text"] not in said]
                if missing or f"= {rec['text']}" not in said:
                    found.append(f"{where}: the note lacks the drawn values of {missing or label}")
    return gaps, found


@pytest.mark.parametrize("clip,preset", CASES, ids=[f"{c}-{p or 'default'}" for c, p in CASES])
def test_every_drawn_number_has_an_answer_from_labels_drawn_by_then(dry, clip, preset):
    gaps, found = problems(dry(clip, preset))
    assert found == [], "\n".join(found[:20])
    assert gaps <= GAPS.get(clip, set()), sorted(gaps - GAPS.get(clip, set()))


def test_the_gap_list_is_exact(dry):
    seen = {}
    for clip, preset in CASES:
        seen.setdefault(clip, set()).update(problems(dry(clip, preset))[0])
    assert {c: g for c, g in seen.items() if g} == GAPS


ARITHMETIC = {"sum": lambda xs: math.fsum(xs) if not any(map(math.isnan, xs)) else math.nan,
              "product": math.prod, "count": math.prod, "divide": lambda xs: xs[0] / xs[1] if xs[1] else math.nan,
              "copy": lambda xs: xs[0], "negate": lambda xs: -xs[0], "max": max, "min": min}


def arithmetic_problems(manifest):
    """A note says `label = a + b = 1.0 + 2.0 = 3.0`: each sum, product, quotient, copy, negation and
    pick of the records holds of their sources' values (to float64 rounding)."""
    records, out = {r["label"]: r for r in manifest["numbers"]}, []
    for rec in manifest["numbers"]:
        op, src = rec.get("op"), rec.get("from") or []
        if op not in ARITHMETIC or not src or (op == "divide" and len(src) != 2) or (op == "product" and len(src) < 2) \
                or not all(s in records for s in src):
            continue
        try:
            values = [float(records[s]["value"]) for s in src]
            want, got = ARITHMETIC[op](values), float(rec["value"])
        except (TypeError, ValueError):
            continue
        if not (math.isnan(want) and math.isnan(got)) and not math.isclose(want, got, rel_tol=1e-9, abs_tol=1e-12):
            out.append(f"{rec['label']} = {got}, its {op} of {src} is {want}")
    return out


@pytest.mark.parametrize("clip,preset", CASES, ids=[f"{c}-{p or 'default'}" for c, p in CASES])
def test_each_sum_product_and_pick_holds_of_its_sources(dry, clip, preset):
    assert arithmetic_problems(dry(clip, preset)) == []


def test_a_number_that_is_not_its_sum_is_caught(dry):
    m = copy.deepcopy(dry("causal-mask"))
    rec = next(r for r in m["numbers"] if r["label"] == "post_row_sums[1]")
    rec["value"] = rec["value"] + 0.01
    assert any(p.startswith("post_row_sums[1]") for p in arithmetic_problems(m))


@pytest.mark.parametrize("clip", ["weighted-average", "causal-mask", "multihead", "dropout"])
def test_english_notes_have_no_chinese(dry, clip):
    manifest = dry(clip, None, "en")
    text = [t for step in manifest["layout"] for note in step_explained(manifest, step["step"])["notes"]
            for t in note["lines"] + note["earlier"]]
    assert text and not [t for t in text if language.has_cjk(t)], [t for t in text if language.has_cjk(t)][:5]
    assert problems(manifest)[1] == []


def test_the_softmax_weight_says_how_it_is_made_with_the_drawn_values(dry):
    m = dry("weighted-average")
    page = step_explained(m, 4)
    k = next(it[4] for it in page["items"] if it[5] == "weights[0][0]")
    assert page["notes"][k]["lines"][:2] == ["α₀ = e^{s₀} / Σ e^{sⱼ} = 1.0000 / 6.4366 = 0.1554",
                                             "weights[0][0] = exps[0][0] / exps_sum[0][0] = 1.0000 / 6.4366 = 0.1554"]
    boxes = [it[:4] for j, it in enumerate(page["items"]) if j in page["notes"][k]["lit"]]
    want = [it["box"] for it in m["layout"][3]["items"]
            if it.get("kind") == "number" and it["label"] in ("exps[0][0]", "exps_sum[0][0]")]
    assert boxes == want and len(want) >= 2


def test_the_book_symbols_come_from_the_catalogue_in_english_too(dry):
    """The symbols line is the catalogue's (explain.json's symbols), in either language; a clip the
    catalogue gives no symbols says its labels only."""
    page = step_explained(dry("weighted-average", None, "en"), 5)
    said = [n["lines"][0] for n in page["notes"]]
    assert "z₀ = α₀·x₀,₀ + α₁·x₁,₀ + α₂·x₂,₀ = 0.1554 · 1 + 0.4223 · 0 + 0.4223 · 1 = 0.5777" in said
    m = dry("causal-mask")
    assert not any(n["lines"][0].startswith("α") for s in m["layout"] for n in step_explained(m, s["step"])["notes"])


def test_a_masked_cell_and_a_moved_element_say_why(dry):
    m = dry("causal-mask")
    page = step_explained(m, 1)
    k = next(it[4] for it in page["items"] if it[5] == "masked[1][2]")
    assert page["notes"][k]["lines"] == ["masked[1][2] = −∞（掩码：键 2 在查询 1 之后）"]
    m = dry("causal-mask", None, "en")
    page = step_explained(m, 1)
    k = next(it[4] for it in page["items"] if it[5] == "masked[1][2]")
    assert page["notes"][k]["lines"] == ["masked[1][2] = −∞ (mask: key 2 is after query 1)"]
    m = dry("multihead")
    notes = [n for s in m["layout"] for n in step_explained(m, s["step"])["notes"]]
    assert any(n["lines"][0] == "e2 → [0, 1, 0, 0] (transpose(1, 2))" for n in notes)


def test_a_dropped_source_is_caught(dry):
    m = copy.deepcopy(dry("weighted-average"))
    rec = next(r for r in m["numbers"] if r["label"] == "weights[0][0]")
    del rec["from"], rec["op"]
    gaps, _ = problems(m)
    assert "weights[N][N]" in gaps and "weights[N][N]" not in GAPS.get("weighted-average", set())


def test_a_source_drawn_only_later_is_caught(dry, monkeypatch):
    m = copy.deepcopy(dry("weighted-average"))
    rec = next(r for r in m["numbers"] if r["label"] == "exps[0][0]")
    rec["from"] = ["scores[0][0]", "output[0][0]"]          # output is drawn in step 5, exps in 4
    from scenes.pipeline.present import explain
    real = explain.note

    def careless(label, rec, m, step, lang):               # a writer that names every source
        out = real(label, rec, m, step, lang)
        out["sources"], out["unseen"] = out["sources"] + out["unseen"], []
        return out
    monkeypatch.setattr(explain, "note", careless)
    assert any("not drawn by step 4" in p for p in problems(m)[1])


def test_a_page_outlining_the_neighbour_is_caught(dry, monkeypatch):
    m = dry("weighted-average")
    from scenes.pipeline.present import explain
    real = explain.step_explained

    def shifted(manifest, step):
        out = real(manifest, step)
        for note in out["notes"]:
            note["lit"] = [k + 1 for k in note["lit"]]
        return out
    monkeypatch.setattr(explain, "step_explained", shifted)
    monkeypatch.setitem(globals(), "step_explained", shifted)
    assert any("outlines" in p for p in problems(m)[1])


def test_the_handout_lists_each_steps_derivations_as_drawn(dry):
    m = dry("weighted-average")
    assert derivations(m, 4) == ["exp(0) = 1.0000", "1.0000 / 6.4366 = 0.1554"]
    assert derivations(m, 1) == []
