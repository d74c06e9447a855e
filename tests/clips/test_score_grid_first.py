"""4.2, the score-grid clip: the first score made in front of the viewer from the first query and
key, its sources and values checked mid-motion (planted: the next key, a wrong number; split from
tests/clips/test_score_grid.py)."""
import pytest

from conftest import inputs_for
from support.derivations import SEEDS
from support.cases import generated
from test_score_grid import derived


def test_the_first_score_is_made_from_the_first_query_and_key():
    built, moments, problems = derived(inputs_for("score-grid"))
    assert problems == []
    made = built.value("scores[0][0]")["derivation"]
    assert made["expression"] == "0.2309 · 0.3669 + 1.0966 · 0.7646 = 0.9231" and made["where"] == "page"
    assert [m["label"] for m in moments] == ["scores[0][0]", "scaled[0][0]"]
    assert "第一格是 Your 的查询与 Your 的键" in built.scene.narration[2]
    made = built.value("scaled[0][0]")["derivation"]
    assert made["expression"] == "0.9231 / 1.4142 = 0.6528" and made["with"] == ["scale"]
    assert "分数 0.9231 除以 1.4142，得到 0.6528" in built.scene.narration[3]


@pytest.mark.sampled(2)
@pytest.mark.parametrize("seed", SEEDS)
def test_derivations_show_their_sources_and_keep_the_contract_mid_motion(seed):
    inputs = generated("score-grid", 100 + seed)[1]
    built, moments, problems = derived(inputs, "en" if seed % 2 else "zh")
    assert problems == [], "\n".join(problems[:20])
    shown = sum("where" in r.get("derivation", {}) for r in built.manifest()["numbers"])
    assert len(moments) == shown


def test_planted_wrong_source_and_value_are_caught(monkeypatch):
    """The first cell takes K's second row (the next key): its sources are wrong; with K's second
    row's numbers under k[0]'s labels, the oracle names them."""
    from scenes.clips.score_grid import scene as clip
    first = clip.first_cell

    def next_key(book, r, grid):
        d = first(book, r, grid)
        for t in d.terms():
            if t.label.startswith("k[0]"):
                t.label, t.value = t.label.replace("k[0]", "k[1]"), float(r.k[1, int(t.label[5:-1])])
        return d
    monkeypatch.setattr(clip, "first_cell", next_key)
    _, _, problems = derived(inputs_for("score-grid"))
    assert any("which it is not made from" in p and "k[1][0]" in p for p in problems), problems

    def wrong_value(book, r, grid):
        d = first(book, r, grid)
        for t in d.terms():
            t.value = float(r.k[1, 0]) if t.label == "k[0][0]" else t.value
        return d
    monkeypatch.setattr(clip, "first_cell", wrong_value)
    _, _, problems = derived(inputs_for("score-grid"))
    assert any(p.startswith("k[0][0] shows") for p in problems), problems
