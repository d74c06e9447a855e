"""4.4–4.5, step 1 made in front of the viewer: each column of the five-step table made from its
sources (this file's index rules, the future from torch.triu), the contract kept mid-motion, a table
split over two pages made on both; planted: the wrong source, the wrong value, no room.
"""
import re

import pytest
import torch

from support.causal_mask_oracle import CLIP, axis_names, hidden_mask, marks, oracle
from conftest import inputs_for
from support.derivations import case_inputs, cases, made
from support.derivations import derived as check_derived
from scenes.clips.causal_mask.five import FiveSteps
from scenes.kit.motion.expressions import Term


def deps_of(inputs):
    """What each label of the five steps is made from, by the chapter's index rules (the future
    from torch.triu): a score from its query's and key's rows, the scaled score from the score,
    a visible masked entry from its scaled score (a hidden one is the constant −∞), a weight
    from the row's visible masked entries (none when it is the only one), an output entry from
    the visible weights and the values' column."""
    i = inputs
    n_q, n_k, width = len(i["q"]), len(i["k"]), len(i["q"][0])
    hidden = (hidden_mask(n_q, n_k, i["diagonal"], i["cached"]) if i["causal"]
              else torch.zeros(n_q, n_k, dtype=torch.bool))

    def deps(label):
        name = label.split("[", 1)[0]
        a, b = (int(n) for n in re.findall(r"\[(\d+)\]", label))
        seen = [j for j in range(n_k) if not hidden[a, j]]
        if name == "scores":
            return {f"q[{a}][{r}]" for r in range(width)} | {f"k[{b}][{r}]" for r in range(width)}
        if name == "scaled":
            return {f"scores[{a}][{b}]"}
        if name == "masked":
            return set() if hidden[a, b] else {f"scaled[{a}][{b}]"}
        if name == "weights":
            return set() if hidden[a, b] or len(seen) == 1 else {f"masked[{a}][{j}]" for j in seen}
        return {f"weights[{a}][{j}]" for j in seen} | {f"v[{j}][{b}]" for j in seen}
    return deps


def derived(inputs, lang="zh", shared=False):
    """The build with its moments (shared: the session's, tests/support/shared_builds.py), and every problem
    of its derivations (sources, mid-motion contract)."""
    return check_derived(CLIP, inputs, oracle(inputs), deps_of(inputs), lang, shared, axis_names(inputs),
                         marks(inputs))


def test_the_lab_default_makes_each_column_from_its_sources():
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == []
    d = made(built)
    assert d["scores[1][0]"]["expression"] == "0.0000 · 1 + 1.0000 · 0 = 0.0000"    # k0: the first seen
    assert d["scaled[1][0]"]["expression"] == "0.0000 / 1.4142 = 0.0000"
    assert d["weights[1][0]"]["expression"] == "exp(0.0000) / (exp(0.0000) + exp(0.7071)) = 0.3302"
    assert d["output[1][0]"]["expression"] == "0.3302 · 1 + 0.6698 · 0 = 0.3302"
    assert d["masked[1][2]"]["motion"] == "drop" and d["masked[1][1]"]["shows"] == ["scaled[1][1]"]
    assert [m["label"] for m in moments] == ["scores[1][0]", "scaled[1][0]", "weights[1][0]", "output[1][0]"]
    assert all(r["where"] == "page" for r in d.values() if "where" in r)
    assert "k0 为例" in built.scene.narration[1] and "权重是 0.3302" in built.scene.narration[1]


def test_a_row_with_no_visible_key_says_why_it_is_nan():
    built, _, problems = derived(inputs_for(CLIP, "diagonal-0", track=0))
    assert problems == []
    d = made(built)
    assert d["weights[0][0]"]["expression"] == "整行都是 −∞，softmax 得到 NaN"
    assert d["output[0][0]"]["expression"] == "没有可见的键，输出为 NaN" and d["output[0][0]"]["shows"] == []
    assert all(d[f"masked[0][{j}]"]["motion"] == "drop" for j in range(3))


CASES = cases(("two-keys", "zero-scores", "no-mask", "cache-3", "journey-causal-mask"))


@pytest.mark.sampled(3)
@pytest.mark.parametrize("kind, case", CASES, ids=[str(c) for _, c in CASES])
def test_derivations_show_their_sources_and_keep_the_contract_mid_motion(kind, case):
    built, moments, problems = derived(*case_inputs(CLIP, kind, case), shared=True)
    assert problems == [], "\n".join(problems[:20])
    shown = [r for r in built.manifest()["numbers"] if "where" in r.get("derivation", {})]
    assert len(moments) == len(shown)


def test_a_table_split_over_two_pages_is_made_on_both(monkeypatch):
    """When the whole step cannot keep the contract (forced here: no legal input was found that
    needs it), the table's columns are made on the first page and the output on the second, each
    in a band of its own page; the output's sources are not on that page, so they appear in place."""
    from scenes.kit.compose import arrange
    real = arrange.keeps_contract
    monkeypatch.setattr(arrange, "keeps_contract",
                        lambda book, mob, area: len(mob.submobjects) < 4 and real(book, mob, area))
    built, moments, problems = derived(inputs_for(CLIP))
    assert problems == []
    captions = [c for _, _, c in built.scene.captions]
    assert len(captions) == 8 and captions[0] == captions[1]
    steps = {r["label"]: r["derivation"]["step"] for r in built.manifest()["numbers"]
             if "where" in r.get("derivation", {})}
    assert steps == {"scores[1][0]": 1, "scaled[1][0]": 1, "weights[1][0]": 1, "output[1][0]": 2}
    out = next(m for m in moments if m["label"] == "output[1][0]")
    assert not any(it.get("mark") == "source" for it in out["items"])


def test_planted_wrong_source_is_caught(monkeypatch):
    """The dot product takes the next key's row (k[j+1] for k[j]): right numbers, the wrong source."""
    term = FiveSteps.term
    monkeypatch.setattr(FiveSteps, "term", lambda self, name, g, row, col, values, d: term(
        self, name, g, (row + 1) % len(values) if name == "k" else row, col, values, d))
    _, _, problems = derived(inputs_for(CLIP))
    assert any("shows ['k[1][0]', 'k[1][1]'], which it is not made from" in p for p in problems), problems


def test_planted_wrong_value_is_caught(monkeypatch):
    """The dot product shows k[0]'s labels with k[1]'s numbers: the oracle names them."""
    monkeypatch.setattr(FiveSteps, "term", lambda self, name, g, row, col, values, d: Term(
        f"{name}[{row}][{col}]", float(values[(row + 1) % len(values)][col]), d))
    _, _, problems = derived(inputs_for(CLIP))
    assert "k[0][0] shows '0', the oracle says 1.0" in problems, problems


def test_planted_expression_without_room_is_caught(monkeypatch):
    """A band that the page never laid out (it stays where it was made): the expression lands on the table."""
    from scenes.kit.compose import arrange
    monkeypatch.setattr(arrange, "kept", lambda book, area, band, way, *parts: band)
    _, _, problems = derived(inputs_for(CLIP))
    assert any(p.startswith("mid-motion") and "overlaps" in p for p in problems), problems
