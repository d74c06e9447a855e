"""English: every word that reaches the screen has an entry in the English catalogue,
a missing one fails here (never the other language on screen), and each clip in English
shows no CJK character in its manifest, layout, captions, narration or script."""
import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from conftest import ROOT, build
from support.contract import layout_problems
from scenes.kit.text import lang
from scenes.kit.text.numbers import numerals
from scenes.pipeline.jobs.registry import specs

SLOT = re.compile(r"\{\d*\}")
NAMED = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def test_every_message_has_an_english_entry():
    assert lang.missing("en") == {}, "run: .venv/bin/python -m scenes.kit.text.lang en"


def test_the_catalogue_holds_no_stale_entries():
    used = {m for msgs in lang.source_messages().values() for m in msgs}
    assert sorted(set(lang.catalogue("en")) - used) == []


def test_each_translation_keeps_its_slots_and_numbers_and_has_no_cjk():
    problems = []
    for zh, en in lang.catalogue("en").items():
        if lang.has_cjk(en):
            problems.append(f"CJK in {en!r}")
        slots = SLOT.findall(en)
        numbered = [s for s in slots if s != "{}"]
        if len(slots) != zh.count("{}") or (numbered and sorted(numbered) != [f"{{{k}}}" for k in range(len(slots))]):
            problems.append(f"slots differ: {zh!r} -> {en!r}")
        if set(NAMED.findall(en)) != set(NAMED.findall(zh)):
            problems.append(f"named slots differ: {zh!r} -> {en!r}")
        if Counter(numerals(NAMED.sub("", SLOT.sub("", en)))) != Counter(numerals(NAMED.sub("", zh))):
            problems.append(f"digits differ: {zh!r} -> {en!r}")
    assert problems == [], "\n".join(problems[:20])


def english_texts(built):
    m = built.manifest()
    yield from (r["text"] for r in m["numbers"])
    yield from (item.get("text", "") for step in m["layout"] for item in step["items"])
    yield from (caption for _, _, caption in built.scene.captions)
    yield from built.scene.narration.values()


# What the lecturer says in English, one step of each clip's default, written here from the
# chapter (its numbers worked by hand: 4.4's output moves by 10.3876 once the mask is off; mask 101 keeps
# 0.2 · 2 = 0.4 and sums to 1.4; e2 lands at [0, 1, 2]; 4·768² + 768 = 2,360,064).
NARRATION = {
    "weighted-average": (5, "Multiply each input vector by its own weight, add these vectors up, and we get z1. "
                            "It blends the information of the input vectors by weight into a new representation of "
                            "the query position; attention does not just pick out one of the vectors. In the plane, "
                            "the weighted arrows are laid tip to tail, and they end at z1. The first component of "
                            "z1, 0.5777, is each weight times the first component of its vector, all added up."),
    "score-grid": (4, "Take the row of query journey and compare the softmax before and after scaling. Unscaled, "
                      "the scores are further apart and more weight lands on the high-scoring keys: the largest "
                      "weight is 0.2507. Scaled, it is 0.2264, a flatter distribution. When scores differ too much, "
                      "the weight piles onto a few positions and some gradients become small."),
    "causal-mask": (6, "Once the mask is written, how do we make sure the model doesn't peek at the future? We "
                       "change only the last row of K and V, row 2, adding 10 to each. With the mask, q1 cannot see "
                       "row 2: its weight there is exactly zero, and the output does not move at all. Switch the "
                       "mask off and it sees this row, and its output changes by 10.3876: a change in the future "
                       "has reached the past."),
    "future-check": (1, "This is the chapter's acceptance test. The batch size is 2, each sequence is 6 positions "
                        "long, and the embedding dimension is 12. On the left, each row is one position, and each "
                        "cell's colour is the value of one feature. Every position before position 4 stays as it "
                        "is; to the remaining 2 we add δ times u, a standard normal sample. The column on the right "
                        "shows how much each position was changed. If the causal mask is right, changes later in "
                        "the sequence must not affect any earlier output."),
    "dropout": (2, "Each bit of a mask stands for one position: 1 keeps it, 0 drops it. I picked these masks by "
                   "hand; they are not random samples. Kept entries are multiplied by 2, and on the right are each "
                   "row's sum and the mask's probability. The row sum changes from mask to mask, and drifting away "
                   "from 1 doesn't mean softmax went wrong. Take mask 101 at position 0: the kept bit 1 times the "
                   "weight 0.200000, times 2, gives 0.400000; adding up the row's entries gives its sum, 1.400000."),
    "multihead": (5, "Same shape, so the same elements? Skip the transpose back and reshape directly: the shape is "
                     "[B, T, D] all the same, but e2 moves from its correct place [0, 0, 2], in the dashed frame, to "
                     "[0, 1, 2]. Some rows now hold features from other positions, and the code raises no error. "
                     "Always transpose back before merging."),
    "implementation": (4, "The upstream book's first MultiHeadAttentionWrapper builds several independent heads and "
                          "concatenates them, so its d_out is the width of each head: 3 heads output width 4 each, "
                          "[2, 5, 12] after concatenation. In the later MultiHeadAttention, d_out is the total width "
                          "of all heads, 12, split into 3 heads after one projection. The two parameters share a name "
                          "but not a meaning: copy d_out = 12 straight into the Wrapper and the output becomes "
                          "[2, 5, 36], 3 times as wide."),
    "exercises": (8, "The output projection, out_proj, does have a bias: its weight adds 589,824, its bias 768. The "
                     "total is 4 times D to the power of 2, plus D: 2,360,064 parameters. Note that this counts one "
                     "attention module, not the whole model. Add the three: 1,769,472 plus 589,824 plus 768 gives "
                     "2,360,064."),
}


@pytest.mark.sampled(3)
@pytest.mark.parametrize("clip", list(specs()))
def test_each_clip_in_english_has_no_cjk_and_keeps_the_layout(clip):
    """And says, at one step of its default, what the chapter says there (NARRATION)."""
    built = build(clip, lang="en")
    cjk = sorted({t for t in english_texts(built) if lang.has_cjk(t)})
    assert cjk == [], cjk[:10]
    assert layout_problems(built.manifest()) == []
    step, said = NARRATION[clip]
    assert built.scene.narration[step] == said


def test_a_missing_entry_fails_rather_than_showing_chinese():
    lang.use("en")
    try:
        with pytest.raises(lang.MissingTranslation, match="不在目录里的句子"):
            lang.tr("不在目录里的句子")
        assert lang.tr("softmax({})") == "softmax({})"      # no words: the same in every language
    finally:
        lang.use("zh")


def test_english_files_sit_beside_the_chinese_ones(tmp_path):
    clip = next(iter(specs()))
    for extra in ([], ["--lang", "en"]):
        done = subprocess.run([sys.executable, "render.py", clip, "--dry-run", "--out", str(tmp_path), *extra],
                              cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / f"{clip}.numbers.json").exists() and (tmp_path / f"{clip}.en.numbers.json").exists()
    script = (tmp_path / f"{clip}.en.script.md").read_text("utf-8")
    assert not lang.has_cjk(script), script[:200]
    assert json.loads((tmp_path / f"{clip}.en.numbers.json").read_text("utf-8"))["lang"] == "en"
    listed = subprocess.run([sys.executable, "render.py", "list", "--lang", "en"], cwd=ROOT,
                            capture_output=True, text=True)
    assert listed.returncode == 0 and not lang.has_cjk(listed.stdout)


def test_an_english_chapter_joins_english_parts(tmp_path):
    """Two clips and their title cards in English at 144p, joined as the chapter is:
    chapter04.en.* beside nothing Chinese; the page says lang="en"."""
    from scenes.pipeline.run.chapter import join
    from scenes.pipeline.present.presenter import clip_steps, title_step, write_page
    from scenes.pipeline.run.runner import render_clip, render_title
    from conftest import inputs_for
    clips = {c: s for c, s in specs().items() if c in ("implementation", "future-check")}
    try:
        for clip in clips:
            render_clip(clip, inputs_for(clip), quality="tiny", out=tmp_path, sections=True, lang="en")
            render_title(clip, quality="tiny", out=tmp_path, lang="en")
        written = join(tmp_path, clips, "en")
        parts = [{"section": s.section, "title": lang.tr(s.title),
                  "steps": [title_step(tmp_path, f"{c}.en", s.section, lang.tr(s.title))]
                  + clip_steps(tmp_path, f"{c}.en", s.section, lang.tr(s.title))} for c, s in clips.items()]
        page = write_page(tmp_path, "chapter04.en", "Chapter", parts, lang="en")
    finally:
        lang.use("zh")
    assert [p.name for p in written] == ["chapter04.en.mp4", "chapter04.en.srt", "chapter04.en.chapters.json",
                                         "chapter04.en.script.md"]
    for path in written[1:] + [tmp_path / ".titles/implementation.en.numbers.json"]:
        assert not lang.has_cjk(path.read_text("utf-8")), path.name
    assert not list(tmp_path.glob("chapter04.mp4")) and 'lang="en"' in page.read_text("utf-8")


BOUND = re.compile(r"([A-Za-z][\w\u2080-\u209f\u1d00-\u1dbfₖ′]*)\s*[=:]\s*(\{(?:\d*|[a-z][a-z0-9_]*)\})")
ANY_SLOT = re.compile(r"\{(?:\d*|[a-z][a-z0-9_]*)\}")


def bindings(template):
    """Symbol -> the slots beside it, 'SYMBOL = {}' ({} counted in order, {k} as k, {name} by name)."""
    order = iter(range(100))
    numbered = [s[1:-1] if NAMED.fullmatch(s) else int(s[1:-1]) if s != "{}" else next(order)
                for s in ANY_SLOT.findall(template)]
    positions = {m.start(): n for m, n in zip(ANY_SLOT.finditer(template), numbered)}
    out = {}
    for m in BOUND.finditer(template):
        out.setdefault(m.group(1), set()).add(positions[m.start(2)])
    return out


def slot_problems(catalogue):
    """A translation's 'D_in = {…}' must fill the same slot as the source's 'D_in = {}'."""
    out = []
    for zh, en in catalogue.items():
        source, said = bindings(zh), bindings(en)
        for symbol in source.keys() & said.keys():
            if not said[symbol] <= source[symbol]:
                out.append(f"{symbol} takes slot {said[symbol]} in {en!r}, slot {source[symbol]} in {zh!r}")
    return out


def test_each_symbol_keeps_its_slot_in_translation():
    """The caption 'from width D_in = {} to width dₖ = {}' states both widths in English too: a
    translation with its slots swapped ({1} … {0}) would draw the wrong width beside each symbol."""
    assert slot_problems(lang.catalogue("en")) == []
    zh = "W_Q 把每行从 D_in = {} 维投影到 dₖ = {} 维。"
    assert bindings(zh) == {"D_in": {0}, "dₖ": {1}}
    swapped = {zh: "W_Q projects each row from width D_in = {1} to width dₖ = {0}."}
    assert len(slot_problems(swapped)) == 2
    named = {"从 D_in = {d_in} 到 dₖ = {d_k}": "from D_in = {d_k} to dₖ = {d_in}"}
    assert len(slot_problems(named)) == 2
