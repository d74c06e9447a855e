"""Abbreviated labels keep their whole text: a long token drawn as its start and "…" on a grid
(causal-mask, score-grid) is listed in the layout with `full`, the token itself (kit:
NumberBook.abbreviated, one width rule for every clip)."""
import pytest

from conftest import build, inputs_for
from contract import user_problems
from scenes.kit.numbers import NumberBook, half_widths

TOKENS = ["Transformers", "自注意力机制很重要", "x", "因果掩码", "abcdefghijkl", "seq"]
WIDTH = 7         # the rule: a cut label is at most 7 half-widths, "…" included, in every clip


def abbreviated_items(manifest):
    return [it for st in manifest["layout"] for it in st["items"] if it["text"].endswith("…")
            and it.get("users")]


def full_problems(manifest, tokens, width):
    """Each drawn "…" label is a token's start within `width` half-widths, and `full` is that token."""
    out = []
    items = abbreviated_items(manifest)
    if not items:
        out.append("no abbreviated label drawn")
    for it in items:
        full = it.get("full")
        if full not in tokens:
            out.append(f"{it['text']!r}: full text {full!r} is not a token")
        elif not full.startswith(it["text"][:-1]) or half_widths(it["text"]) > width:
            out.append(f"{it['text']!r} is not {full!r} cut to {width} half-widths")
    for st in manifest["layout"]:
        for it in st["items"]:
            if "full" in it and not it["text"].endswith("…"):
                out.append(f"{it['text']!r} is whole but lists full {it['full']!r}")
    return out


CASES = {
    "causal-mask": dict(tokens=" ".join(TOKENS[:3])),       # the book's three rows
    "score-grid": dict(q="1 0; 0 1; 1 1; 2 0; 0 2; 1 2", k="1 0; 0 1; 1 1; 2 0; 0 2; 1 2",
                       tokens=" ".join(TOKENS)),
}


@pytest.mark.parametrize("clip", sorted(CASES))
def test_abbreviated_labels_keep_the_token(clip):
    m = build(clip, inputs_for(clip, **CASES[clip])).manifest()
    assert full_problems(m, TOKENS, WIDTH) == []


def test_the_check_fails_on_a_dropped_or_wrong_full_text():
    """Planted bugs on a real manifest: the full text dropped, or another token's (this file's
    check, and the contract's user_problems that every contract case runs)."""
    m = build("causal-mask", inputs_for("causal-mask", **CASES["causal-mask"])).manifest()
    items = abbreviated_items(m)
    assert user_problems(m, CASES["causal-mask"]) == []
    del items[0]["full"]
    assert any("full text None" in p for p in full_problems(m, TOKENS, WIDTH))
    assert any("full text None is not the token" in p for p in user_problems(m, CASES["causal-mask"]))
    items[0]["full"] = "x"
    assert any("is not" in p for p in full_problems(m, TOKENS, WIDTH))


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
