"""4.7: one element followed through reshape, transpose and the merge, with torch as the oracle
(tests/support/multihead_oracle.py): the book's coordinates, the largest shapes, the captions the data
chooses, the error card. The input rules: tests/clips/test_multihead_rules.py; where each drawn id comes
from: tests/clips/test_multihead_derivation.py.
"""
from functools import lru_cache

import numpy as np
import pytest

from conftest import assert_video_with_captions, build, cli, inputs_for, manifest
from support.contract import layout_problems, oracle_problems
from support.multihead_oracle import STEPS, legal_inputs, marks, oracle  # noqa: F401  (the contract reads them)
from support.pixels import number_problems


@lru_cache(maxsize=None)
def _built(given, frames):
    return build("multihead", inputs_for("multihead", **dict(given)), frames=frames)


def built_with(frames=False, **given):
    """The clip built from raw options (shared by the tests that ask for the same ones)."""
    return _built(tuple(sorted(given.items())), frames)


def proven(frames=False, preset=None, **given):
    """Build the clip; every frame keeps the contract and every number equals the oracle
    (frames: and each step's 480p frame shows every id it records)."""
    inputs = inputs_for("multihead", preset, **given)
    built = built_with(frames, **given) if preset is None else build("multihead", inputs)
    m = built.manifest()
    problems = layout_problems(m) + oracle_problems(m["numbers"], oracle(inputs))
    for image, step in zip(built.frames, m["layout"]):
        problems += number_problems(image, step, m["frame"])
    problems += [f"{r['label']} never on screen" for r in m["numbers"] if r["step"] is None]
    ids = {f"e{n}" for n in range(int(np.prod(inputs["shape"])))}
    for st in m["layout"][:5]:                   # every id drawn exactly once in steps 1-5
        drawn = [it["text"] for it in st["items"] if it["kind"] == "number"]
        if sorted(drawn) != sorted(ids):
            problems.append(f"step {st['step']}: ids drawn {len(drawn)}, not each of {len(ids)} once")
    assert problems == [], "\n".join(problems[:20])
    return built


def captions(built):
    return [c for _, _, c in built.scene.captions]


def chain(built, steps=STEPS):
    """The tracked element's coordinates as the clip recorded them."""
    shown = {r["label"]: r["value"] for r in built.numbers}
    return [[shown[f"track.{s}[{k}]"] for k in range(4 if s in ("split", "transposed", "back") else 3)]
            for s in steps]


# -- the book (SPEC 4.7, the lab "多头张量拆分与合并")
BOOK_E2 = [[0, 0, 2], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 2], [0, 1, 2]]


def test_the_oracle_gives_the_books_coordinates():
    e2 = oracle(inputs_for("multihead"))
    assert [[e2[f"track.{s}[{k}]"] for k in range(len(c))] for s, c in zip(STEPS, BOOK_E2)] == BOOK_E2
    e6 = oracle(inputs_for("multihead", "wrong-merge-e6"))
    assert [[e6[f"track.{s}[{k}]"] for k in range(3)] for s in ("merged", "wrong")] == [[0, 1, 2], [0, 2, 0]]
    big = oracle(inputs_for("multihead", "heads-2-4-12"))     # 4.9: Q split [2, 3, 4, 4], merged [2, 4, 12]
    assert [big[f"transposed.shape[{k}]"] for k in range(4)] == [2, 3, 4, 4]
    assert (big["error.split[0]"], big["error.split[1]"]) == (2, 1)   # D = 5, H = 2: 2 rest 1


def test_default_draws_the_books_numbers(tmp_path):
    """Through the command line, as a reader runs it: e2 [0,0,2] → … → [0,0,2], wrong [0,1,2]."""
    code, out = cli("multihead", "--dry-run", "--out", str(tmp_path / "a"))
    assert code == 0, out
    written = sorted(p.suffix for p in (tmp_path / "a").iterdir())
    assert ".json" in written and not {".mp4", ".png", ".srt"} & set(written)
    m = manifest(tmp_path / "a" / "multihead.numbers.json")
    shown = {r["label"]: r["value"] for r in m["numbers"]}
    assert [[shown[f"track.{s}[{k}]"] for k in range(len(c))] for s, c in zip(STEPS, BOOK_E2)] == BOOK_E2
    said = [s["caption"] for s in m["steps"]]
    assert len(said) == 6 and "e2" in said[0] and said[2].startswith("transpose(1, 2)")
    assert said[4] == "对照：不换回就直接 reshape，e2 会错到 [0, 1, 2]。"
    assert said[5] == "把 D 改为 5：无法均分成 2 个头，计算在拆头之前停止。"


def test_wrong_merge_preset_tracks_e6():
    built = proven(preset="wrong-merge-e6")
    assert chain(built, ("merged", "wrong")) == [[0, 1, 2], [0, 2, 0]]
    assert captions(built)[4] == "错误合并：不换回就 reshape，e6 从正确的 [0, 1, 2] 错到 [0, 2, 0]。"
    last = [it["text"] for it in built.scene.layout[4]["items"]]
    assert "红色：12 个元素中 8 个不在原位，同一行混入了别的位置的特征" in last


# -- any legal input: the largest shapes with every H, and the edges
@pytest.mark.sampled(2)
@pytest.mark.parametrize("heads, track", [(1, "e95"), (2, "e53"), (3, "e53"), (4, "e95")])
def test_largest_shape_keeps_the_contract_and_the_oracle(heads, track):
    """[2, 4, 12] with every H (H = 1 in every run, one other drawn by the run's seed: ~15 s a
    case), the wrong merge emphasised, an element at the end or among neighbours on every side
    (whose ids the tracking frame must not touch), pixels read back."""
    proven(True, shape="2,4,12", heads=heads, track=track, wrong_merge=True)


@pytest.mark.parametrize("shape, heads, track", [
    ("1,1,1", 1, "e0"),          # one element: nothing to reorder, not even the shape
    ("2,4,4", 4, "e13"),         # d = 1
    ("2,1,12", 3, "e20"),        # T = 1: transpose keeps the order
])
def test_edge_shapes_keep_the_contract_and_the_oracle(shape, heads, track):
    proven(shape=shape, heads=heads, track=track, wrong_merge=True, error_d=11, error_heads=4)


# -- captions and notes chosen by the data
def test_one_head_says_the_order_is_kept():
    built = built_with(shape="1,3,4", heads=1, track="e6")
    said = captions(built)
    assert said[4] == "对照：不换回就直接 reshape；这里 H = 1，顺序不变，碰巧不出错。"
    notes = [it["text"] for st in built.scene.layout for it in st["items"]]
    assert "H = 1：transpose 不改变元素的先后顺序，只改变分组" in notes
    assert "H = 1：transpose 不改变元素的先后顺序，这里碰巧不出错" in notes
    assert not any("红色" in n or "虚线框" in n for n in notes)


def test_an_element_that_stays_is_said_to_stay():
    """[2, 4, 12], H = 4: e95 lands in its own place even merged wrongly; 72 others do not.
    The book's shape: e11 stays too, and the plain comparison says the others move."""
    built = built_with(True, shape="2,4,12", heads=4, track="e95", wrong_merge=True)
    assert captions(built)[4] == "错误合并：不换回就 reshape，e95 碰巧不动，但有 72 个元素错了位。"
    notes = [it["text"] for it in built.scene.layout[4]["items"]]
    assert "e95：碰巧仍在 [1, 3, 11]" in notes and not any("虚线框" in n for n in notes)
    assert captions(built_with(track="e11"))[4] == "对照：不换回就直接 reshape，e11 碰巧不动，别的元素却错了位。"


def test_one_head_and_one_position_keep_even_the_shape():
    notes = [it["text"] for it in built_with(shape="1,1,1", heads=1, track="e0", wrong_merge=True, error_d=11,
                                             error_heads=4).scene.layout[2]["items"]]
    assert "H = 1、T = 1：transpose 不改变元素的先后顺序，形状也不变" in notes


def test_equal_t_and_h_are_said_to_keep_the_coordinates():
    built = built_with(track="e0")      # e0: t = h = 0
    notes = [it["text"] for it in built.scene.layout[2]["items"]]
    assert any("t 与 h 相等，互换后坐标不变" in n for n in notes)
    assert any("t 与 h 互换；" in it["text"] for it in built_with().scene.layout[2]["items"])


@pytest.mark.parametrize("given, caption", [
    ({}, "把 D 改为 5：无法均分成 2 个头，计算在拆头之前停止。"),
    ({"error_d": 4, "error_heads": 3}, "把 H 改为 3：D = 4 无法均分成 3 个头，计算在拆头之前停止。"),
    ({"error_d": 7, "error_heads": 3}, "把 D 改为 7、H 改为 3：无法均分，计算在拆头之前停止。"),
])
def test_the_error_step_names_what_changed(given, caption):
    assert captions(built_with(**given))[5] == caption


# -- the error card quotes the validator
def test_error_card_shows_the_validators_own_message():
    built = built_with()
    code, out = cli("multihead", "--shape", "1,3,5", "--heads", "2", "--dry-run", "--out", "/nonexistent/x")
    assert code == 2
    card = [it["text"] for it in built.scene.layout[5]["items"]]
    assert out.strip() in card, out
    assert "[B, T, D] = [1, 3, 5]，H = 2：D ÷ H = 2 余 1" in card
    assert "$ python render.py multihead --shape 1,3,5 --heads 2" in card
    other = built_with(shape="2,1,1", heads=1, track=0, error_d=10, error_heads=3)
    code, out = cli("multihead", "--shape", "2,1,10", "--heads", "3", "--dry-run", "--out", "/nonexistent/x")
    assert code == 2 and out.strip() in [it["text"] for it in other.scene.layout[5]["items"]]


def test_tiny_real_render_reads_back(tiny_chapter):
    """The chapter's tiny render of the book's inputs (the tiny chapter, shared: not rendered again here)."""
    said = assert_video_with_captions(tiny_chapter, "multihead", 6)
    assert said[1][2].startswith("reshape") and "[0, 1, 2]" in said[4][2]


# This clip's contract cases: every preset and generated inputs at the limits (tests/clips/test_contract.py).
from support.cases import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("multihead")
