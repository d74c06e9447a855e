"""Abbreviated labels keep their whole text: a long token drawn as its start and "…" on a grid
(causal-mask, score-grid) is at most 7 half-widths and is listed in the layout with `full`, the
token itself (kit: NumberBook.abbreviated, one width rule for every clip). The rule is the
contract's user_problems, which every contract case runs; here: cases that cut, and the planted
bugs it must name."""
import pytest

from conftest import build, inputs_for
from support.contract import user_problems
from scenes.kit.text import style
from scenes.kit.text.numbers import NumberBook, half_widths

TOKENS = ["Transformers", "自注意力机制很重要", "x", "因果掩码", "abcdefghijkl", "seq"]
CASES = {
    "causal-mask": dict(tokens=" ".join(TOKENS[:3])),       # the book's three rows
    "score-grid": dict(q="1 0; 0 1; 1 1; 2 0; 0 2; 1 2", k="1 0; 0 1; 1 1; 2 0; 0 2; 1 2",
                       tokens=" ".join(TOKENS)),
}


def abbreviated_items(manifest):
    return [it for st in manifest["layout"] for it in st["items"] if it["text"].endswith("…")
            and it.get("users")]


@pytest.mark.parametrize("clip", sorted(CASES))
def test_abbreviated_labels_keep_the_token(clip):
    m = build(clip, inputs_for(clip, **CASES[clip])).manifest()
    assert abbreviated_items(m), "no label was cut: the case tests nothing"
    assert user_problems(m, CASES[clip]) == []


def test_the_check_fails_on_a_dropped_or_wrong_full_text():
    """Planted bugs on a real manifest: the full text dropped, another token's, a whole token
    listing one."""
    m = build("causal-mask", inputs_for("causal-mask", **CASES["causal-mask"])).manifest()
    items = abbreviated_items(m)
    del items[0]["full"]
    assert any("full text None is not the token" in p for p in user_problems(m, CASES["causal-mask"]))
    items[0]["full"] = "x"
    assert any("full text 'x' is not the token" in p for p in user_problems(m, CASES["causal-mask"]))
    whole = next(it for st in m["layout"] for it in st["items"] if it.get("users") and it["text"] == "x")
    whole["full"] = "x"
    assert any("'x' is whole but lists full" in p for p in user_problems(m, CASES["causal-mask"]))


def test_the_check_fails_on_a_label_cut_too_wide(monkeypatch):
    """Planted: the cut width one half-width wider than the rule."""
    monkeypatch.setattr(style, "LABEL_CUT", style.LABEL_CUT + 1)
    m = build("causal-mask", inputs_for("causal-mask", **CASES["causal-mask"])).manifest()
    assert any("cut wider than 7 half-widths" in p for p in user_problems(m, CASES["causal-mask"]))


def test_one_width_rule_for_cjk():
    """Wide and fullwidth characters count two (UAX #11), the ellipsis and Latin one; a label that
    fits is returned as it is."""
    book = NumberBook()
    assert half_widths("因果ab…") == 7 and half_widths("ｱＡ") == 3      # halfwidth katakana, fullwidth A
    cut = book.abbreviated("自注意力机制很重要", 8)
    assert str(cut) == "自注意…" and cut.full == "自注意力机制很重要" and cut.users == (("tokens", "自注意…"),)
    assert str(book.abbreviated("Transformers", 7)) == "Transf…"
    whole = book.user_text("因果掩码")
    assert book.abbreviated(whole, 8) is whole and whole.full is None
