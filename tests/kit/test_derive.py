"""Derivations (scenes/kit/motion/derive.py, scenes/kit/motion/expressions.py): a test clip of Q, K and QKᵀ makes
one cell from a row of Q and a row of K. The expression's numbers are the book's records of the
sources' labels; the layout keeps the contract at the expression's widest moment, in the band the
page reserved for it or in the strip above the caption line, and where neither has room the
derivation is left out and its record says so. Planted: an expression drawn where no room was
reserved is caught mid-motion."""
import numpy as np
import pytest
from manim import DOWN, RIGHT, Mobject, Square, VGroup, tempconfig

from conftest import WORKER_MEDIA
from support.contract import layout_problems, oracle_problems, precision_problems, structure_problems
from scenes.compute.scores import dot_scores
from scenes.kit.motion import derive, expressions as ex
from scenes.kit.text import style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.motion.derive import Band
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.scene.inputs import matrix
from scenes.kit.page.page import Area, Page, phrase, turn

AREA = Area(bottom=-2.5, most=2.0)    # a page that fills its area, which ends above the caption line
SHORT, LONG = "一个格子由一行 Q 与一行 K 得来", "一个格子由一行 Q 与一行 K 得来：" + "逐项相乘再相加，" * 6 + "其余同样。"


def rules(raw):
    return {"q": matrix(raw["q"], "q"), "k": matrix(raw["k"], "k")}


class Dots(ClipScene):
    """Q and K beside QKᵀ; cell `at` made from row i of Q and row j of K (a test clip, unregistered)."""
    spec = Clip(name="dots", section="4.10", title="点积", summary="one cell of QKᵀ derived", rules=rules,
                defaults={"q": "1 2; 3 4", "k": "5 6; 7 8"}, options=(Option("q", "Q"), Option("k", "K")))
    at, room, caption = (0, 1), "page", SHORT      # room: "page" (a band), "strip"; "nowhere": planted

    def compute(self):
        return dot_scores(self.inputs["q"], self.inputs["k"])

    def construct(self):
        book, q, k, s = self.book, self.inputs["q"], self.inputs["k"], self.result
        gq, gk = MatrixGrid(book, "q", q, 0, header="Q"), MatrixGrid(book, "k", k, 0, header="K")
        gs = MatrixGrid(book, "scores", s, 0, header="S = QKᵀ")
        i, j = self.at
        pairs = [(ex.cell(book, gq, i, r), ex.cell(book, gk, j, r)) for r in range(q.shape[1])]
        d = ex.dot(gs, (i, j), ex.cell(book, gs, i, j), pairs, ex.room_for(gs))
        band = Band([d])
        page = VGroup(VGroup(gq, gk, gs).arrange(RIGHT, buff=0.6), *([band] if self.room == "page" else []))
        page.arrange(DOWN, buff=0.3)

        def reveal():
            self.play(Appear(gq), Appear(gk))
            room = {"page": band, "nowhere": Band([d]).move_to(gk)}.get(self.room)
            room = room if room is not None else derive.strip(self, page, [d])
            shell, rest = derive.split(book, gs, [d.cell] if room is not None else [])
            self.play(Appear(shell))
            if room is not None:
                derive.derive(self, d, room)
            else:
                derive.skip(book, d, "no room")
            self.play(Appear(rest))
            return []
        turn(self, [Page(phrase(self.caption), page, reveal)], AREA)
        self.end()


def built(q, k, **kind):
    from scenes.kit.text.layout import frame
    cls = type("Dots", (Dots,), kind)
    settings = {"format": "none", "disable_caching": True, "media_dir": WORKER_MEDIA,
                "verbosity": "ERROR", "progress_bar": "none"}
    with tempconfig(settings), derive.watch() as moments:
        scene = cls(inputs=rules({"q": q, "k": k}), skip_animations=True)
        scene.render()
        shape = frame()
    m = scene.book.manifest("dots", {})
    m["frame"], m["layout"] = shape, scene.layout
    return scene, m, list(moments)


def oracle(q, k):
    """Every label the test clip draws, in numpy written here."""
    q, k = (np.array([[float(x) for x in row.split()] for row in a.split(";")]) for a in (q, k))
    out = {"section": "4.10"}
    for name, a in (("q", q), ("k", k), ("scores", q @ k.T)):
        out.update({f"{name}[{i}][{j}]": a[i, j] for i, j in np.ndindex(*a.shape)})
    return out


def problems(m, moments, expected):
    at = {**m, "layout": moments}
    return (layout_problems(m) + layout_problems(at) + structure_problems(m)
            + structure_problems(at, expected) + precision_problems(at, expected)
            + oracle_problems(m["numbers"], expected))


TALL = "; ".join(f"{n} {n + 1}" for n in range(8)), "; ".join(f"{n} {-n}" for n in range(8))


def test_one_cell_is_made_from_a_row_of_q_and_a_row_of_k():
    scene, m, moments = built("1 2; 3 4", "5 6; 7 8")
    assert problems(m, moments, oracle("1 2; 3 4", "5 6; 7 8")) == []
    made = dict(next(r for r in m["numbers"] if r["label"] == "scores[0][1]")["derivation"])
    flights = made.pop("flights")        # each copy leaves from the number its term names
    assert sorted(made.pop("lit")) == sorted(made["shows"]) and made.pop("lit_texts") == []   # lit as it lands
    assert [(f["term"], f["from"], f["kind"]) for f in flights] == [(t, t, "number") for t in made["shows"]]
    assert made == {"step": 1, "op": "dot", "shows": ["q[0][0]", "k[1][0]", "q[0][1]", "k[1][1]"], "with": [],
                    "expression": "1 · 7 + 2 · 8 = 23", "where": "page", "shorter": False}
    (moment,) = moments
    lit = sorted(c for it in moment["items"] if it.get("mark") == "source" for c in it["covers"])
    assert lit == ["k[1][0]", "k[1][1]", "q[0][0]", "q[0][1]"]
    under = min(b["cell"][1] for b in moment["items"] if "cell" in b)
    texts = [it["text"] for it in sorted(moment["items"], key=lambda it: it["box"][0])
             if it["kind"] in ("number", "label") and it["box"][3] < under]
    assert texts == ["1", "·", "7", "+", "2", "·", "8", "=", "23"]          # the expression, under the grids
    assert scene.renderer.time > style.DERIVE_LEAST + style.DERIVE_HOLD


def test_no_band_in_the_page_the_strip_above_the_caption_line_or_nothing():
    q, k = TALL
    _, m, moments = built(q, k, room="strip", at=(7, 0))
    assert problems(m, moments, oracle(q, k)) == []
    made = next(r for r in m["numbers"] if r["label"] == "scores[7][0]")["derivation"]
    assert made["where"] == "caption line"
    _, m, moments = built(q, k, room="strip", at=(7, 0), caption=LONG)     # a two-line caption: no room
    assert moments == [] and problems(m, moments, oracle(q, k)) == []
    assert next(r for r in m["numbers"] if r["label"] == "scores[7][0]")["derivation"] == \
        {"step": 1, "op": "dot", "skipped": "no room"}
    assert {"k[0][0]", "scores[7][0]"} <= {it["label"] for it in m["layout"][0]["items"]}   # with the rest


def test_planted_expression_without_reserved_room_is_caught():
    """A band the page never laid out (left where K is): the expression is drawn over K's numbers."""
    q, k = TALL
    _, m, moments = built(q, k, room="nowhere", at=(7, 0))
    assert any("overlaps" in p for p in layout_problems({**m, "layout": moments}))


def test_long_sums_are_left_shorter_first_terms_and_last():
    terms = [ex.Term(f"a[{n}]", 1 / 3, 4) for n in range(8)]
    grid = type("G", (), {})()
    whole = ex.dot(grid, (0, 0), ex.Term("r", 2.0, 4), [(t, t) for t in terms], room=100.0)
    short = ex.dot(grid, (0, 0), ex.Term("r", 2.0, 4), [(t, t) for t in terms], room=8.0)
    assert not whole.shorter and whole.shows() == [f"a[{n}]" for n in range(8)]
    assert short.shorter and "…" in short.pieces and short.width() <= 8.0
    assert short.shows()[0] == "a[0]" and short.shows()[-1] == "a[7]" and len(short.shows()) < 8
    assert short.text().startswith("0.3333 · 0.3333 + ") and short.text().endswith(" = 2.0000")


def test_the_motion_is_paced_per_term_with_a_floor_and_a_cap():
    assert derive.seconds(1) == style.DERIVE_LEAST
    assert derive.seconds(4) == pytest.approx(4 * style.DERIVE_PER_TERM)
    assert derive.seconds(40) == style.DERIVE_MOST
    assert derive.seconds(4, "slow") == pytest.approx(4 * style.DERIVE_PER_TERM * style.PACES["slow"])


def test_fly_moves_a_mobject_from_its_start_without_copying_it():
    start, mob = Square(0.5).shift(RIGHT * 3), Square(1.0)
    fly = derive.Fly(mob, start, match=True)
    fly.begin()
    assert np.allclose(mob.get_center(), start.get_center()) and mob.height == pytest.approx(0.5)
    fly.interpolate(1.0)
    assert np.allclose(mob.get_center(), 0) and mob.height == pytest.approx(1.0)
    assert type(fly.starting_mobject) is Mobject             # no copy of the mobject was made
