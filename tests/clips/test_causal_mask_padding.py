"""4.4's last paragraph, step 5 of causal-mask: the padding mask and the causal mask side by side,
their sum (pads framed as padding, the future as masked, both −∞), the keys each row sees, the NaN
rows, the book's check in its words, the other side in one line. The numbers against the torch
oracle (tests/support/causal_mask_oracle.py padding), the captions chosen by the data in zh and en,
the largest inputs; planted: the padding frame drawn over the future instead, the pads' words of the
other side, a count of hidden keys in the visible column.
"""
import pytest

from conftest import build, inputs_for
from support.cases import proof_problems
from support.causal_mask_oracle import CLIP

STEP = 5
BIG = "; ".join(["100 -100 100 -100 100 -100 100 -100", "-100 100 -100 100 -100 100 -100 100"] * 4)
TOKENS = " ".join(["abcdefghijkl", "注意力机制因果掩码自回归"] * 4)


def step_caption(built):
    return [c for _, _, c in built.scene.captions][STEP - 1]


def texts(built, prefix):
    return [built.value(f"{prefix}[{r}]")["text"] for r in range(len(built.scene.inputs["q"]))]


@pytest.fixture(scope="module")
def default_built():
    return build(CLIP)


def test_book_three_positions_two_left_pads(default_built):
    """N = 2 (the default): rows 0 and 1 have no visible key (NaN), row 2 sees only itself; with the
    pads on the right no row is empty (1, 1, 1)."""
    built = default_built
    assert texts(built, "pad_visible") == ["0", "0", "1"]
    assert [built.value(f"pad_weights[{r}][0]")["text"] for r in range(3)] == ["NaN", "NaN", "0"]
    assert built.value("pad_weights[2][2]")["text"] == "1.0000"
    assert built.value("pad_union[2][0]")["text"] == built.value("pad_padding[0][1]")["text"] == "\u2212\u221e"
    assert texts(built, "pad_other_visible") == ["1", "1", "1"]
    assert step_caption(built) == "左 padding：前 2 个键是 pad；叠加因果掩码后第 0 到 1 行没有可见的键，softmax 得到 NaN。"
    said = built.scene.narration[STEP]
    assert "确认每一行是否还留有允许访问的位置" in said and "保留对角线也救不了它们" in said
    assert proof_problems(CLIP, built.scene.inputs, built.manifest()) == []


def test_padding_and_future_marks_are_distinct(default_built):
    """The pads' cells carry a padding mark (muted); the future's only the masked mark (red)."""
    items = next(s["items"] for s in default_built.manifest()["layout"] if s["step"] == STEP)
    padding = {lab for it in items if it["kind"] == "mark" and it["mark"] == "padding" for lab in it["covers"]}
    assert {"pad_union[0][0]", "pad_union[2][1]"} <= padding and "pad_union[0][2]" not in padding
    assert all(it["role"] == "muted" for it in items if it["kind"] == "mark" and it["mark"] == "padding")
    masked = {lab for it in items if it["kind"] == "mark" and it["mark"] == "masked" for lab in it["covers"]}
    assert "pad_union[0][2]" in masked and "pad_union[0][0]" in masked      # both −∞


@pytest.mark.parametrize("options, caption", [
    ({"pad_side": "right"}, "右 padding：后 2 个键是 pad；叠加因果掩码后每行仍有可见的键，没有 NaN。"),
    ({"pad": 1}, "左 padding：1 个 pad，是最前面的键；叠加因果掩码后第 0 行没有可见的键，softmax 得到 NaN。"),
    ({"pad": 0}, "不加 padding（pad = 0）；叠加因果掩码后每行仍有可见的键，没有 NaN。"),
    ({"no_causal": True, "track": 0}, "左 padding：前 2 个键是 pad；因果掩码关闭，只有 padding 掩码：每行仍有可见的键。"),
])
def test_caption_chosen_by_the_data(options, caption):
    built = build(CLIP, inputs_for(CLIP, **options))
    assert step_caption(built) == caption
    assert proof_problems(CLIP, built.scene.inputs, built.manifest()) == []


def test_left_padding_preset_in_english():
    i = inputs_for(CLIP, "left-padding")
    built = build(CLIP, i, lang="en")
    assert step_caption(built) == ("Left padding: the first 2 keys are pads; with the causal mask added, rows 0 to 1 "
                                   "have no visible key and softmax gives NaN.")
    assert proof_problems(CLIP, i, built.manifest()) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_largest_inputs_keep_the_contract(lang):
    """T = 8, P = 7, ±100, long and CJK tokens: seven empty rows; the pages keep every number legible."""
    i = inputs_for(CLIP, q=BIG, k=BIG, v=BIG, tokens=TOKENS, track=7, pad=7)
    built = build(CLIP, i, lang=lang)
    assert texts(built, "pad_visible") == ["0"] * 7 + ["1"]
    assert proof_problems(CLIP, i, built.manifest()) == []


# ---------------------------------------------------------------- planted
def test_planted_padding_frame_over_the_future_is_caught(monkeypatch):
    from scenes.clips.causal_mask import padding
    real = padding.framed
    monkeypatch.setattr(padding, "framed", lambda g, keys: real(g, [not k for k in keys]))
    i = inputs_for(CLIP)
    problems = proof_problems(CLIP, i, build(CLIP, i).manifest())
    assert any("padding mark the oracle does not give" in p for p in problems), problems[:5]


def padding_planted(monkeypatch, change):
    """The proof's problems with the padding lesson changed by `change(padding) -> padding`."""
    import dataclasses
    from scenes.compute import masking
    real = masking.causal_lesson

    def planted(*args, **kwargs):
        r = real(*args, **kwargs)
        return dataclasses.replace(r, padding=change(r.padding))
    monkeypatch.setattr(masking, "causal_lesson", planted)
    i = inputs_for(CLIP)
    return proof_problems(CLIP, i, build(CLIP, i).manifest())


def test_planted_visible_count_of_hidden_keys_is_caught(monkeypatch):
    import dataclasses
    problems = padding_planted(monkeypatch, lambda p: dataclasses.replace(
        p, shown=dataclasses.replace(p.shown, visible=p.shown.hidden.sum(-1))))
    assert any("pad_visible" in p for p in problems), problems[:5]


def test_planted_other_side_words_are_caught(monkeypatch):
    """The contrast line says the shown side's counts: the oracle's other side disagrees."""
    import dataclasses
    problems = padding_planted(monkeypatch, lambda p: dataclasses.replace(p, other=p.shown))
    assert any("pad_other" in p for p in problems), problems[:5]
