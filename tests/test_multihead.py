"""4.7: one element followed through reshape, transpose and the merge, with torch as the oracle.

`oracle(inputs)` computes every label the clip can draw from torch's own reshape/transpose
on an arange tensor (never from scenes.compute); `legal_inputs(rng)` draws inputs at the
limits of the rules. tests/test_contract.py runs both over the default, the presets and
generated inputs; here: the book's coordinates, the largest shapes, the captions the data
chooses, the error card and the input rules.
"""
import random
from functools import lru_cache
from itertools import product

import numpy as np
import pytest
import torch

from conftest import assert_refused, assert_video_with_captions, build, cli, inputs_for, manifest
from derivations import derivation_problems
from contract import layout_problems, oracle_problems
from pixels import number_problems
from scenes.compute import heads as compute
from scenes.compute.provenance import Source
from scenes.pipeline.inputs import InputError
from test_contract import generated

STEPS = ("start", "split", "transposed", "back", "merged", "wrong")
SWAP = (1, 2)        # the axes T and H of [B, T, H, d], as the test's own transpose calls name them
LEGAL = [(b, t, d, h) for b, t, d, h in product((1, 2), range(1, 5), range(1, 13), range(1, 5))
         if d % h == 0]


def tensors(b, t, d, h):
    """Each step's id tensor, made by torch's own reshape/transpose calls."""
    start = torch.arange(b * t * d).reshape(b, t, d)
    split = start.reshape(b, t, h, d // h)
    transposed = split.transpose(*SWAP)
    back = transposed.transpose(*SWAP)
    return {"start": start, "split": split, "transposed": transposed, "back": back,
            "merged": back.reshape(b, t, d), "wrong": transposed.reshape(b, t, d)}


def where(tensor, e):
    """The coordinate of id e in `tensor`."""
    return tuple(int(i) for i in (tensor == e).nonzero()[0])


def oracle(inputs):
    """Every label the clip can draw: ids at every index of every layout, their group headers,
    shapes, the tracked element's coordinates, d, counts, the error example's numbers."""
    (b, t, d), h, e = inputs["shape"], inputs["heads"], inputs["track"]
    steps = tensors(b, t, d, h)
    out = {"section": "4.7", "track": e, "heads": h, "head_dim": d // h, "count": b * t * d}
    for name, x in steps.items():
        out.update({f"{name}.shape[{k}]": n for k, n in enumerate(x.shape)})
        for idx in np.ndindex(tuple(x.shape)):
            out[name + "".join(f"[{i}]" for i in idx)] = int(x[idx])
        for i0, i1 in np.ndindex(tuple(x.shape[:2])):
            out[f"{name}.group[{i0}][{i1}][0]"], out[f"{name}.group[{i0}][{i1}][1]"] = i0, i1
        out.update({f"track.{name}[{k}]": v for k, v in enumerate(where(x, e))})
    q = steps["transposed"].float()                       # per-head scores: Q Kᵀ over [B, H, T, d]
    out.update({f"score_shape[{k}]": n for k, n in enumerate((q @ q.transpose(-2, -1)).shape)})
    out.update({f"transpose.dims[{k}]": v for k, v in enumerate(SWAP)})
    out["misplaced"] = int((steps["wrong"] != steps["merged"]).sum())
    ed, eh = inputs["error_d"], inputs["error_heads"]
    out.update({f"error.shape[{k}]": v for k, v in enumerate((b, t, ed))})
    out.update({"error.heads": eh, "error.split[0]": ed // eh, "error.split[1]": ed - eh * (ed // eh)})
    return out


def legal_inputs(rng):
    """Raw options at the limits: the largest shapes most often, every H that divides D,
    the first, last or any element (written eN, EN or N), the flag, any error example."""
    b = rng.choice((1, 2, 2))
    t = rng.choice((1, 4, 4, rng.randint(1, 4)))
    d = rng.choice((12, 12, rng.randint(1, 12)))
    h = rng.choice([k for k in range(1, 5) if d % k == 0])
    n = b * t * d
    e = rng.choice((0, n - 1, rng.randrange(n)))
    eh = rng.randint(2, 4)
    ed = rng.choice([x for x in range(1, 13) if x % eh])
    return {"shape": f"{b},{t},{d}", "heads": h, "track": rng.choice((f"e{e}", f"E{e}", str(e))),
            "wrong_merge": rng.random() < 0.5, "error_d": ed, "error_heads": eh}


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
@pytest.mark.parametrize("heads, track", [(1, "e95"), (2, "e53"), (3, "e53"), (4, "e95")])
def test_largest_shape_keeps_the_contract_and_the_oracle(heads, track):
    """[2, 4, 12] with every H, the wrong merge emphasised, an element at the end or among
    neighbours on every side (whose ids the tracking frame must not touch), pixels read back."""
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


@pytest.mark.parametrize("given, field", [
    ({"error_d": 4}, "error_d"),              # 4 splits evenly into 2 heads: no error to show
    ({"error_d": 13}, "error_d"),
    ({"error_heads": 1}, "error_heads"),
    ({"error_heads": 5}, "error_heads"),
])
def test_error_example_must_be_an_error(given, field):
    with pytest.raises(InputError) as err:
        inputs_for("multihead", **given)
    assert err.value.field == field


# -- the rules and the maths, without Manim
def test_legal_space_is_what_the_rules_allow():
    assert len(LEGAL) == 200
    for b, t, d, h in LEGAL:
        assert inputs_for("multihead", shape=f"{b},{t},{d}", heads=h, track=0)["shape"] == (b, t, d)


def test_legal_inputs_are_legal_and_reach_the_limits():
    drawn = [inputs_for("multihead", **legal_inputs(random.Random(k))) for k in range(200)]
    assert {x["shape"] for x in drawn} >= {(2, 4, 12), (1, 1, 12)}
    assert {x["heads"] for x in drawn if x["shape"] == (2, 4, 12)} == {1, 2, 3, 4}
    assert {x["wrong_merge"] for x in drawn} == {True, False}
    assert any(x["track"] == 95 for x in drawn) and any(x["track"] == 0 for x in drawn)


def test_every_element_of_every_legal_shape_matches_torch():
    """The compute module (used by the clip) against torch, for all 5220 (shape, H, element)."""
    for b, t, d, h in LEGAL:
        steps = tensors(b, t, d, h)
        layouts = compute.head_layouts((b, t, d), h)
        for name in STEPS:
            assert np.array_equal(layouts[name], steps[name].numpy()), (b, t, d, h, name)
        wrong = steps["wrong"][steps["wrong"] != steps["merged"]]
        assert compute.misplaced_by_wrong_merge((b, t, d), h).tolist() == sorted(wrong.tolist())
        for e in range(b * t * d):
            track = compute.track_element((b, t, d), h, e)
            assert [getattr(track, s) for s in STEPS] == [where(steps[s], e) for s in STEPS], (b, t, d, h, e)


@pytest.mark.parametrize("args, option", [
    (["--shape", "1,3,5"], "--heads"),                     # D = 5 not divisible by H = 2
    (["--shape", "2,4,10", "--heads", "4"], "--heads"),
    (["--heads", "3"], "--heads"),                         # D = 4, H = 3
    (["--heads", "5", "--shape", "1,3,10"], "--heads"),    # H > 4
    (["--heads", "0"], "--heads"),
    (["--heads", "two"], "--heads"),
    (["--shape", "3,3,4"], "--shape"),                     # B > 2
    (["--shape", "1,5,4"], "--shape"),                     # T > 4
    (["--shape", "1,3,14"], "--shape"),                    # D > 12
    (["--shape", "0,3,4"], "--shape"),
    (["--shape", "1,3"], "--shape"),                       # malformed
    (["--shape", "1,3,4,2"], "--shape"),
    (["--shape", "a,b,c"], "--shape"),
    (["--shape", "1.5,3,4"], "--shape"),
    (["--shape", ""], "--shape"),
    (["--track", "e12"], "--track"),                       # 12 elements: e0 .. e11
    (["--track", "12"], "--track"),
    (["--track", "-1"], "--track"),
    (["--track", "x3"], "--track"),
    (["--track", "e"], "--track"),
    (["--shape", "2,4,12", "--heads", "4", "--track", "e96"], "--track"),
    (["--error-d", "6"], "--error-d"),                     # 6 splits into 2 heads
    (["--error-d", "0"], "--error-d"),
    (["--error-heads", "1"], "--error-heads"),
    (["--error-heads", "5"], "--error-heads"),
    (["--preset", "nope"], "--preset"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, option):
    assert_refused(tmp_path, "multihead", args, option)


def test_tiny_real_render_reads_back(tiny_render):
    out = tiny_render("multihead")
    said = assert_video_with_captions(out, "multihead", 6)
    assert said[1][2].startswith("reshape") and "[0, 1, 2]" in said[4][2]


def marks(inputs):
    """The tracked element's frame sits on the id of the element followed, at every layout:
    its coordinates there are where torch's view/transpose put that id."""
    (b, t, d), h, e = inputs["shape"], inputs["heads"], inputs["track"]
    labels = set()
    for name, x in tensors(b, t, d, h).items():
        labels.update(name + "".join(f"[{i}]" for i in idx) for idx in zip(*np.nonzero(x.numpy() == e)))
    return {"track": labels}


# -- where the tracked id comes from (issue 25): each layout's id from torch's own index maps
RESHAPE = lambda x, shape: x.reshape(shape)    # noqa: E731
TAKES = {"split": ("start", RESHAPE), "transposed": ("split", lambda x, _: x.transpose(*SWAP)),
         "merged": ("back", RESHAPE), "wrong": ("transposed", RESHAPE)}


def taken_from(inputs):
    """label -> {the label its id is taken from}: each op run by torch on a tensor of flat indices of
    the layout before it. The passing back layout (torch: equal to the split, id for id) is drawn
    under the split's labels, so the merge takes from a split label."""
    (b, t, d), h = inputs["shape"], inputs["heads"]
    steps = tensors(b, t, d, h)
    assert torch.equal(steps["back"], steps["split"])
    out = {}
    for after, (before, op) in TAKES.items():
        shape = tuple(steps[before].shape)
        taken = op(torch.arange(steps[before].numel()).reshape(shape), tuple(steps[after].shape))
        name = "split" if before == "back" else before
        for idx in np.ndindex(*taken.shape):
            src = np.unravel_index(int(taken[idx]), shape)
            out[after + "".join(f"[{i}]" for i in idx)] = {name + "".join(f"[{int(i)}]" for i in src)}
    return out


def provenance_problems(inputs, lang="zh"):
    """Every drawn id's `from` is where torch takes it from; the tracked id's record at each of the
    four layouts says it moved there from that label (derivation_problems, the test's own rule)."""
    m = build("multihead", inputs, lang=lang).manifest()
    deps = taken_from(inputs)
    out = [f"{r['label']}: from {r.get('from')}, torch {sorted(deps[r['label']])}" for r in m["numbers"]
           if r["label"] in deps and set(r.get("from") or ()) != deps[r["label"]]]
    out += derivation_problems(m, lambda label: deps.get(label, set()))
    made = [r for r in m["numbers"] if "derivation" in r]
    moved = sorted(r["label"].split("[")[0] for r in made)
    if moved != sorted(TAKES) or any(r["value"] != inputs["track"] for r in made):
        out.append(f"the tracked id's moves: {moved}")
    return out


@pytest.mark.parametrize("case", ["default", "wrong-merge-e6", "heads-2-4-12", 0, 1, 2, 3])
def test_each_drawn_id_comes_from_where_torch_takes_it(case):
    if isinstance(case, int):
        inputs, lang = generated("multihead", 200 + case)[1], "en" if case % 2 else "zh"
    else:
        inputs, lang = inputs_for("multihead", None if case == "default" else case), "zh"
    assert provenance_problems(inputs, lang) == []


def test_planted_wrong_provenance_is_caught(monkeypatch):
    """A transposed id said to come from its neighbour's split place; the tracked id's move said to
    come from the neighbour: both are named."""
    from scenes.clips import multihead as clip
    real = compute.drawn_sources

    def off_by_one(layouts):
        out = dict(real(layouts))
        out["transposed[0][1][0][0]"] = Source("move", ("split[0][0][0][0]",))
        return out
    monkeypatch.setattr(compute, "drawn_sources", off_by_one)
    problems = provenance_problems(inputs_for("multihead"))
    assert any(p.startswith("transposed[0][1][0][0]: from") for p in problems), problems
    monkeypatch.undo()
    real_moved = clip.moved

    def neighbour(book, old, new, n):
        real_moved(book, old, new, n)
        next(r for r in book.records if r["label"] == new.label_of[n])["derivation"]["shows"] = \
            [old.label_of[(n + 1) % len(old.texts)]]
    monkeypatch.setattr(clip, "moved", neighbour)
    assert any("which it is not made from" in p for p in provenance_problems(inputs_for("multihead")))


# This clip's contract cases: every preset and generated inputs at the limits (tests/test_contract.py).
from test_contract import contract_cases  # noqa: E402

test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("multihead")
