"""The id tensor on the page (scenes/kit/page/tensors.py): each id drawn in its own cell at the label
of its index, the layout inside its area and legible, the double frame on the tracked id, and
every id moved to its own new place. The oracle is numpy's own indexing (np.argwhere)."""
from types import SimpleNamespace

import numpy as np
import pytest
from manim import Mobject, ReplacementTransform, Transform

from scenes.kit.draw.anim import Appear
from scenes.kit.text import style
from scenes.kit.page import tensors
from scenes.kit.text.layout import content_width
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.tensors import Stage, TensorView, morph

# the multihead layouts of B, T, D = 1, 3, 4 with H = 2, and one with two batches
START = np.arange(12).reshape(1, 3, 4)
SPLIT = START.reshape(1, 3, 2, 2)
TRANSPOSED = SPLIT.transpose(0, 2, 1, 3).copy()
BATCHES = np.arange(24).reshape(2, 3, 2, 2).transpose(0, 2, 1, 3).copy()


def inside(inner: Mobject, outer: Mobject, slack: float = 1e-6) -> bool:
    (a0, b0), (a1, b1) = inner.get_corner([-1, -1, 0])[:2], inner.get_corner([1, 1, 0])[:2]
    (c0, d0), (c1, d1) = outer.get_corner([-1, -1, 0])[:2], outer.get_corner([1, 1, 0])[:2]
    return a0 >= c0 - slack and b0 >= d0 - slack and a1 <= c1 + slack and b1 <= d1 + slack


def problems(book: NumberBook, view: TensorView, name: str, ids: np.ndarray) -> list[str]:
    """Where the view disagrees with numpy: an id at another index's label, drawn as another id,
    outside its cell, or a cell outside the area."""
    found = []
    for n in ids.flat:
        where = tuple(int(k) for k in np.argwhere(ids == n)[0])
        label = name + "".join(f"[{k}]" for k in where)
        meta = book.meta[id(view.texts[n])]
        if view.label_of[n] != label or meta["label"] != label:
            found.append(f"e{n} is drawn at {meta['label']}, numpy has it at {label}")
        if meta["text"] != f"e{n}":
            found.append(f"{label} draws {meta['text']}, numpy has e{n} there")
        if not inside(view.texts[n], view.boxes[n]):
            found.append(f"e{n} is outside its cell")
    box = view.box_group
    if box.width > content_width() + 1e-6 or box.get_bottom()[1] < style.CONTENT_BOTTOM - 1e-6:
        found.append("the grids leave the content area")
    return found


@pytest.mark.parametrize("name, ids", [("start", START), ("split", SPLIT), ("transposed", TRANSPOSED),
                                       ("batches", BATCHES)])
def test_each_id_in_its_cell_at_numpys_index(name, ids):
    book = NumberBook()
    view = TensorView(book, name, ids, track=int(ids.flat[2]))
    assert problems(book, view, name, ids) == []
    assert view.scale >= tensors.LEGIBLE          # a tensor this small reads at 480p
    assert len(view.headers) == ids.shape[0] * ids.shape[1]      # one grid per fixed [b, t]


def test_the_double_frame_covers_the_tracked_id_only():
    book = NumberBook()
    view = TensorView(book, "split", SPLIT, track=5)
    frame = view.frame(5)
    label = "split" + "".join(f"[{k}]" for k in np.argwhere(SPLIT == 5)[0])      # split[0][1][0][1]
    assert book.meta[id(frame)] == {"kind": "mark", "mark": "track", "covers": [label]}
    assert inside(view.boxes[5], frame)
    lit = view.texts[5].get_color()
    assert lit == view.headers[1].get_color() != view.headers[0].get_color()     # the id and its header


@pytest.mark.parametrize("before, after", [(("start", START), ("split", SPLIT)),
                                           (("split", SPLIT), ("transposed", TRANSPOSED)),
                                           (("transposed", TRANSPOSED), ("wrong", TRANSPOSED.reshape(1, 3, 4)))])
def test_every_id_moves_to_its_own_new_place(before, after):
    """The reshape, the transpose and the (wrong) merge: each of the twelve ids, not only the tracked one."""
    book = NumberBook()
    old, new = TensorView(book, *before), TensorView(book, *after)
    pairs = [(a.mobject, a.target_mobject) for a in morph(old, new) if isinstance(a, ReplacementTransform)]
    ids = [p for p in pairs if p[0] in old.texts.values()]
    assert len(ids) == START.size
    for n in START.flat:
        assert (old.texts[n], new.texts[n]) in ids


def test_a_header_of_both_layouts_moves_the_others_fade():
    """split and transposed share the headers of their first axes' blocks: those move (carried), the
    one left over fades."""
    book = NumberBook()
    old, new = TensorView(book, "split", SPLIT), TensorView(book, "transposed", TRANSPOSED)
    label = lambda m: book.meta[id(m)]["label"]
    anims = morph(old, new)
    moved = [(label(a.mobject), label(a.target_mobject)) for a in anims
             if isinstance(a, ReplacementTransform) and a.mobject in old.headers]
    shared = {label(h) for h in old.headers} & {label(h) for h in new.headers}
    assert moved and all(a == b for a, b in moved) and {a for a, _ in moved} == shared


def test_headers_without_a_match_change_their_text_on_the_way():
    """start → split: no header label is on both, so each [0, t, :] header turns into [0, t, :, :]
    (its ', :' grows between ':' and ']'), which then stands in its place: nothing fades or appears."""
    book = NumberBook()
    old, new = TensorView(book, "start", START), TensorView(book, "split", SPLIT)
    olds, news = list(old.headers), list(new.headers)
    anims = morph(old, new)
    turned = [a for a in anims if type(a) is Transform and a.mobject in olds]
    assert [a.mobject for a in turned] == olds
    assert [tuple(np.round(a.target_mobject.get_center(), 6)) for a in turned] == \
        [tuple(np.round(n.get_center(), 6)) for n in news]
    assert all(len(a.mobject.submobjects) == len(a.target_mobject.submobjects) == 9 for a in turned)
    assert not [a for a in anims if isinstance(a, Appear) and (a.mobject in olds or a.mobject in news)]
    replaced = []
    for done in new.after:
        done(SimpleNamespace(replace=lambda a, b: replaced.append((a, b))))
    assert replaced == list(zip(olds, news)) and list(new.headers) == news


class Scene:
    """What Stage asks of a scene: its book, play, bring_to_front and replace."""

    def __init__(self) -> None:
        self.book, self.plays, self.front = NumberBook(), [], []

    def play(self, *anims, run_time=None):
        self.plays.append(anims)

    def bring_to_front(self, *mobs):
        self.front = list(mobs)

    def replace(self, old, new):
        self.front = [new if m is old else m for m in self.front]


def test_the_stage_brings_the_first_layout_in_then_moves_the_ids():
    scene = Scene()
    stage = Stage(scene)
    first = stage.show("split", SPLIT, 5, [("[B, T, H, d]", style.TEXT)])
    assert first.box_group.get_top()[1] < stage.info.get_bottom()[1]     # the lines above the grids
    second = stage.show("transposed", TRANSPOSED, 5, [("[B, H, T, d]", style.TEXT)])
    assert len(scene.plays) == 2 and stage.view is second
    assert scene.front[-1] is stage.frame and second.texts[5] in scene.front


def test_planted_ids_drawn_transposed_are_caught(monkeypatch):
    """Each small matrix drawn with its rows and columns swapped: the right ids, the wrong places."""
    real = tensors.spelled_grid

    def swapped(book, template, labels, values, **options):
        return real(book, template, labels, np.asarray(values).T, **options)
    monkeypatch.setattr(tensors, "spelled_grid", swapped)
    book = NumberBook()
    view = TensorView(book, "split", SPLIT)
    assert any("numpy has" in p for p in problems(book, view, "split", SPLIT))


def headers_back(passing=True):
    """Step 4 ends on [B, T, D] (merged); step 5 passes through [B, H, T, d] to the wrong merge's
    [B, T, D]: which of step 5's last headers are step 4's, the same mobject with the same label."""
    scene = Scene()
    stage = Stage(scene)
    lines = [("[B, T, D]", style.TEXT)]
    scene.book.step = 4
    merged = stage.show("merged", START, 2, lines)
    label = lambda h: scene.book.meta[id(h)]["label"]
    before = {id(h): label(h) for h in merged.headers}
    scene.book.step = 5
    stage.show("transposed", TRANSPOSED, 2, lines, passing=passing)
    wrong = stage.show("wrong", TRANSPOSED.reshape(1, 3, 4), 2, lines)
    return [label(h) for h in wrong.headers if before.get(id(h)) == label(h)], [label(h) for h in wrong.headers]


def test_headers_that_come_back_in_a_step_are_the_ones_it_began_with():
    """Three row headers ride along over two head headers and each goes back to its own row."""
    kept, shown = headers_back()
    assert kept == shown == ["[0, 0, :]", "[0, 1, :]", "[0, 2, :]"]


def test_planted_a_passed_layout_that_drops_the_headers_left_over_is_caught():
    """Without `passing` the row headers are replaced by the head headers on the way (the second one,
    riding over head 0 with the first, fades): step 5 ends on headers drawn again, none of step 4's."""
    kept, shown = headers_back(passing=False)
    assert kept == [] and len(shown) == 3


def test_the_tracked_frame_goes_its_ids_way():
    """split -> transposed: e2's ids trade places, some on a bent way (kit/draw/paths.py); at every
    moment of the play the double frame stands around e2, as at the start and the end (planted: the
    frame in a straight line parts from its id mid-way)."""
    book = NumberBook()
    old, new = TensorView(book, "split", SPLIT, track=2), TensorView(book, "transposed", TRANSPOSED, track=2)
    ours = morph(old, new, [(old.frame(2), new.frame(2), 2)])
    straight = morph(old, new, [(old.frame(2), new.frame(2), 99)])          # planted: no id of that number
    for anims, keeps in ((ours, True), (straight, False)):
        element = next(a for a in anims if isinstance(a, ReplacementTransform) and a.mobject is old.texts[2])
        frame = anims[-1]
        bent = element.path_func is not None
        for a in (element, frame):
            a.begin()
        drift = []
        for alpha in np.linspace(0, 1, 21):
            for a in (element, frame):
                a.interpolate(alpha)
            drift.append(np.linalg.norm(frame.mobject.get_center() - element.mobject.get_center()))
        assert bent, "e2 goes straight here: the check would see nothing"
        assert bool(max(drift) < 0.02) == keeps, max(drift)
