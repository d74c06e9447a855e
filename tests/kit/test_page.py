"""The page engine (scenes/kit/page/page.py): the book's arrangement while it is nearly as roomy,
the first split that keeps every number readable, and a new clip that only declares its
blocks: two grids beside each other and a note, one short module, legible for any input."""
import importlib.util
import sys

import numpy as np
import pytest
from manim import DOWN, RIGHT, Rectangle, VGroup, tempconfig

from conftest import WORKER_MEDIA
from support.contract import layout_problems, structure_problems
from scenes.kit.page import page as engine
from scenes.kit.text import style
from scenes.kit.page.page import Area, Page, choose, plan


def boxes(*sizes):
    return [Rectangle(width=w, height=h) for w, h in sizes]


def test_the_books_arrangement_while_it_is_nearly_as_roomy():
    area = Area(width=10, top=3, bottom=-3)
    a, b = boxes((4, 2), (4, 2))
    group = VGroup(a, b)
    beside, below = (lambda: group.arrange(RIGHT, buff=0.5)), (lambda: group.arrange(DOWN, buff=0.5))
    assert choose(group, [beside, below], area) == pytest.approx(1.0)        # both fit whole: the book's
    assert group.width > group.height
    a, b = boxes((7, 1), (7, 1))
    group = VGroup(a, b)
    beside, below = (lambda: group.arrange(RIGHT, buff=0.5)), (lambda: group.arrange(DOWN, buff=0.5))
    assert choose(group, [beside, below], area) == pytest.approx(1.0)        # beside would shrink to 0.69
    assert group.height > 1.5
    # Within PREFER of the roomiest, the book's way stays, unless it falls short of the need.
    a, b = boxes((5.5, 1), (5.5, 1))
    group = VGroup(a, b)
    ways = [lambda: group.arrange(RIGHT, buff=0.0), lambda: group.arrange(DOWN, buff=0.0)]
    assert choose(group, ways, area, prefer=1.1) == pytest.approx(10 / 11)
    assert choose(group, ways, area, need=0.95, prefer=1.1) == pytest.approx(1.0)
    assert group.height == pytest.approx(2.0)


def test_a_step_splits_only_when_one_board_would_be_too_small():
    area = Area(width=10, top=3, bottom=-3)
    small, wide = VGroup(*boxes((6, 2))), VGroup(*boxes((30, 2)))
    whole = [Page(("a", (), {}), small)]
    assert plan(None, [whole, [Page(("b", (), {}), small)] * 2], area, [0.6, 0.6]) == whole
    two = [Page(("b", (), {}), VGroup(*boxes((9, 2)))), Page(("c", (), {}), VGroup(*boxes((9, 2))))]
    assert plan(None, [[Page(("a", (), {}), wide)], two], area, [0.6, 0.6]) == two
    last = [Page(("d", (), {}), wide)]
    assert plan(None, [[Page(("a", (), {}), wide)], last], area, [0.6, 0.6]) == last   # none fits: the last



def test_the_chosen_option_keeps_its_own_arrangement_of_shared_blocks():
    """Two options show the same blocks arranged differently (one board: beside; two boards: each
    alone, a label under its block): each page's `lay` runs as it is measured, so the chosen
    option's arrangement is the one shown (planted: without it, the split option measures blocks
    still arranged for the board that did not fit)."""
    area = Area(width=10, top=3, bottom=-3)
    a, b, label = *boxes((9, 2), (9, 2)), Rectangle(width=12, height=0.5)
    both, alone = VGroup(a, b), VGroup(a, label)
    one = [Page(("a", (), {}), both, lay=lambda: both.arrange(RIGHT, buff=0.5))]
    two = [Page(("b", (), {}), alone, lay=lambda: alone.arrange(DOWN, buff=0.2)), Page(("c", (), {}), VGroup(b))]
    chosen = plan(None, [one, two], area, [0.6, 0.6])
    assert chosen == two and label.get_top()[1] < a.get_bottom()[1]
    assert chosen[0].scale == pytest.approx(10 / 12)       # measured as laid: the label's width


# A clip added by one module: two grids beside each other (or stacked, or on two boards) and a note.
NEW_CLIP = '''"""Scores and their softmax weights, side by side."""
from scenes.compute.average import softmax
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.page.blocks import pair, stack
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.scene.inputs import matrix
from scenes.kit.page.page import Area, Page, arrange, phrase, plan, turn

AREA = Area()


def rules(raw):
    return {"s": matrix(raw["s"], "s", rows=(1, 12), cols=(1, 12))}


class TwoGrids(ClipScene):
    spec = Clip(name="two-grids", section="4.10", title="分数与权重", summary="scores beside their softmax",
                rules=rules, defaults={"s": "1 2; 3 4"}, options=(Option("s", "scores, e.g. '1 2; 3 4'"),))

    def compute(self):
        return softmax(self.inputs["s"])

    def construct(self):
        book, s, a = self.book, self.inputs["s"], self.result
        scores = MatrixGrid(book, "s", s, style.decimals_for(s), header="S")
        weights = MatrixGrid(book, "a", a, heat="weights", header="A = softmax(S)")
        note = book.text("A 的每行和为 {}", book.const(1), size=style.LABEL_SIZE, color=style.MUTED)
        both, ways = pair(scores, weights)
        board = stack(both, note)
        whole = [Page(phrase("分数 S 与它每行的 softmax"), board, [[Appear(scores)], [Appear(weights), Appear(note)]])]
        if not arrange(book, board, [lambda w=w: (w(), board.arrange(DOWN, buff=0.4)) for w in ways], AREA):
            whole = [Page(phrase("分数 S"), scores, [[Appear(scores)]]),
                     Page(phrase("A = softmax(S)：每行和为 {}", book.const(1)), stack(weights, note),
                          [[Appear(weights), Appear(note)]])]
        turn(self, plan(book, [whole], AREA), AREA)
        self.end()
'''.replace("from scenes.kit.page.page", "from manim import DOWN\nfrom scenes.kit.page.page")


def new_clip(tmp_path):
    path = tmp_path / "two_grids.py"
    path.write_text(NEW_CLIP, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("two_grids", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["two_grids"] = module
    spec.loader.exec_module(module)
    return module.TwoGrids


def built(cls, s):
    from scenes.kit.text.layout import frame
    settings = {"format": "none", "disable_caching": True, "media_dir": WORKER_MEDIA,
                "verbosity": "ERROR", "progress_bar": "none"}
    with tempconfig(settings):
        scene = cls(inputs=cls.spec.rules({"s": s}), skip_animations=True)
        scene.render()
        shape = frame()
    m = scene.book.manifest("two-grids", {})
    m["frame"], m["layout"] = shape, scene.layout
    return m


def largest():
    rng = np.random.default_rng(0)
    return "; ".join(" ".join(f"{x:.4f}" for x in row) for row in rng.uniform(-100, 100, (12, 12)))


def test_a_new_clip_with_two_grids_and_a_note_is_one_short_module(tmp_path):
    assert len(NEW_CLIP.splitlines()) < 60
    cls = new_clip(tmp_path)
    small = built(cls, "1 2; 3 4")
    assert len(small["layout"]) == 1                         # the book's board: both grids and the note
    big = built(cls, largest())
    assert len(big["layout"]) == 2                           # too small together: S, then A with the note
    for m in (small, big):
        assert layout_problems(m) == [] and structure_problems(m) == []


def test_an_engine_that_forgets_legibility_is_caught(tmp_path, monkeypatch):
    """Planted bug: the engine no longer asks how small the numbers would be."""
    monkeypatch.setattr(engine, "needed", lambda *a, **k: 0.0)
    big = built(new_clip(tmp_path), largest())
    assert len(big["layout"]) == 1
    assert any(f"< {style.LEGIBLE_H}" in p for p in layout_problems(big))
