"""The suite proves its own strength: each test plants a bug of the kind a scene could really
have — a number off its cell, an axis reversed, a frame on the neighbour, a cell drawn invisible,
the neighbour of the tracked element painted its yellow, a query named in the key's colour, the
query's block drawn in the key's colour and the value's tag in the query's, dropout's mean bars
a sample behind, future-check's prefix line a row low, a heat scale backwards, 4.1's arrows in reverse order, a
masked cell's red on its neighbour, a precision drop on large inputs, a number typed past the
book, a translation with its slots swapped — and shows that the suite's checks name it. (The
animated path that ends short, and a colour changed at the same brightness: tests/pipeline/test_video.py.)"""
import pytest
from manim import RIGHT, DecimalNumber, ImageMobject, SVGMobject, Text
import numpy as np

from conftest import build, inputs_for
from support.contract import oracle_problems
from support.cases import proof_problems
from scenes.kit.draw import grids
from scenes.kit.text import style
from scenes.kit.text.glyphs import NumberText
from scenes.kit.text.numbers import NumberBook, Shown, TypedNumberError

BIG = {"q": "5 3; 4 6; 2 5", "k": "5 4; 3 6; 6 2", "v": "50/3 2; 3 -100/7; 5 1/3"}   # scores 20-60


def problems_of(clip, inputs, lang="zh"):
    built = build(clip, inputs, lang=lang)
    return proof_problems(clip, inputs, built.manifest())


def after_grid(monkeypatch, change):
    """Every MatrixGrid, once built, is changed by `change(grid)` (a bug in a builder)."""
    original = grids.MatrixGrid.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        change(self)
    monkeypatch.setattr(grids.MatrixGrid, "__init__", init)


def named(problems, words):
    hits = [p for p in problems if words in p]
    assert hits, f"no problem mentions {words!r}:\n" + "\n".join(problems[:10])
    return hits


def test_the_checks_pass_on_the_planted_clips_unchanged():
    assert problems_of("causal-mask", inputs_for("causal-mask", **BIG)) == []
    assert problems_of("multihead", inputs_for("multihead")) == []


# -- place
def test_a_number_moved_off_its_cell_is_named(monkeypatch):
    def off(grid):
        if grid.n_cols > 1:
            grid.entries[0][1].shift(RIGHT * grid.cell_w * 0.6)
    after_grid(monkeypatch, off)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "lies outside its cell")


def test_two_columns_drawn_in_each_others_place_are_named(monkeypatch):
    def swap(grid):
        if grid.n_cols > 1 and grid.n_rows > 1:
            for i in range(grid.n_rows):
                a, b = grid.cell(i, 0), grid.cell(i, 1)
                shift = b.get_center() - a.get_center()
                a.shift(shift), b.shift(-shift)
    after_grid(monkeypatch, swap)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "out of order on screen")


def test_an_axis_labelled_in_reverse_is_named(monkeypatch):
    original = grids.MatrixGrid.__init__

    def init(self, *args, row_labels=None, **kwargs):
        original(self, *args, row_labels=list(reversed(row_labels)) if row_labels else None, **kwargs)
    monkeypatch.setattr(grids.MatrixGrid, "__init__", init)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "the oracle names it")


def test_a_frame_around_the_neighbour_of_the_tracked_element_is_named(monkeypatch):
    from scenes.kit.page.tensors import TensorView
    original = TensorView.frame

    def frame(self, n):
        return original(self, (n + 1) % len(self.texts))
    monkeypatch.setattr(TensorView, "frame", frame)
    inputs = inputs_for("multihead", shape="2,4,12", heads=4, track="e17")
    named(problems_of("multihead", inputs), "carries a track mark the oracle does not give it")


def test_a_mask_one_diagonal_off_is_named(monkeypatch):
    """The weights grid frames the diagonal as future (torch.triu with diagonal 0, not 1)."""
    from scenes.clips.causal_mask import scene as causal_mask
    original = causal_mask.grid

    def grid(book, name, values, *args, hidden=None, **kw):
        if isinstance(name, str) and name == "weights" and hidden is not None:
            values = np.where(np.eye(*np.shape(values), dtype=bool), 0.0, values)
            hidden = np.asarray(hidden) | np.eye(*np.shape(values), dtype=bool)
        return original(book, name, values, *args, hidden=hidden, **kw)
    monkeypatch.setattr(causal_mask, "grid", grid)
    problems = problems_of("causal-mask", inputs_for("causal-mask"))
    named(problems, "carries a hidden mark the oracle does not give it")


# -- colour and every cell
def test_a_grid_entry_drawn_at_opacity_zero_is_named(monkeypatch):
    """The first entry of every grid is drawn invisible: the layout keeps only what is visible, so
    the grid's record (its rows and columns) names the empty cell."""
    after_grid(monkeypatch, lambda grid: grid.entries[0][0].set_opacity(0))
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "shows no entry in 1 cell(s): row 0 col 0")


def test_the_neighbour_of_the_tracked_element_painted_yellow_is_named(monkeypatch):
    """The tracked id keeps its yellow and its double frame; the id after it is yellow too."""
    from scenes.kit.page.tensors import TensorView
    original = TensorView.__init__

    def init(self, book, name, ids, track=None, *args, **kwargs):
        original(self, book, name, ids, track, *args, **kwargs)
        if track is not None:
            self.texts[(track + 1) % len(self.texts)].set_color(style.TRACK)
    monkeypatch.setattr(TensorView, "__init__", init)
    hits = named(problems_of("multihead", inputs_for("multihead")), "'e3' is drawn in track, the oracle says text")
    assert len(hits) == 5           # once at each of the five layouts


def test_a_query_label_in_the_keys_colour_is_named(monkeypatch):
    original = grids.MatrixGrid.__init__

    def init(self, *args, row_color=style.TEXT, **kwargs):
        original(self, *args, row_color=style.KEY if row_color == style.QUERY else row_color, **kwargs)
    monkeypatch.setattr(grids.MatrixGrid, "__init__", init)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "is drawn in key, the oracle says query")


def test_the_query_block_drawn_in_the_keys_colour_is_named(monkeypatch):
    """4.2's Q and W_Q (frames, name tag, shape tag) drawn in the key's orange like K's, while the
    caption and the names still say Q: the clip declares block q a query (BLOCKS)."""
    from scenes.clips.score_grid import scene as score_grid
    monkeypatch.setattr(score_grid, "ROLES", {"Q": "key", "K": "key", "V": "value"})
    problems = problems_of("score-grid", inputs_for("score-grid"))
    named(problems, "'Q' of block 'q' is drawn in key, the block is declared query")
    named(problems, "'[6, 2]' of block 'q' is drawn in key, the block is declared query")
    named(problems, "q[0][0]'s frame in block 'q' is drawn in key, the block is declared query")
    named(problems, "'W_Q' of block 'wq' is drawn in key")


def test_the_value_tag_in_the_querys_colour_is_named(monkeypatch):
    """V's name tag alone drawn in the query's blue (its frames stay the value's green)."""
    from scenes.kit.compose import boards
    original = boards.name_tag

    def name_tag(book, tex, name, shape, color):
        return original(book, tex, name, shape, style.QUERY if name == "v" else color)
    monkeypatch.setattr(boards, "name_tag", name_tag)
    problems = problems_of("score-grid", inputs_for("score-grid"))
    hits = named(problems, "of block 'v' is drawn in query, the block is declared value")
    assert not any("frame in block 'v'" in p for p in problems), problems


def test_a_masked_cells_red_on_its_neighbour_is_named(monkeypatch):
    """Each −∞ cell's red fill is drawn on the cell before it (its own frame stays red)."""
    def moved(grid):
        for i, j in zip(*np.nonzero(np.isneginf(grid.values))):
            if j > 0 and not np.isneginf(grid.values[i, j - 1]):
                grid.boxes[i][j].set_fill(opacity=0)
                grid.boxes[i][j - 1].set_fill(style.MASK, opacity=0.9)
    after_grid(monkeypatch, moved)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "its cell is drawn in the mask colour")


# -- pictures that stand for numbers
def test_the_running_mean_bars_one_sample_behind_are_named(monkeypatch):
    """Dropout's sampling step grows its running-mean bars to the previous checkpoint's means as the
    pointer moves to each row (the numbers above them stay right): read at each landing."""
    from scenes.clips.dropout import scene as dropout
    original, before = dropout.regrown, []

    def behind(bars, drawn, values, unit):
        before.append(values)
        return original(bars, drawn, before[-2] if len(before) > 1 else values, unit)
    monkeypatch.setattr(dropout, "regrown", behind)
    problems = problems_of("dropout", inputs_for("dropout"))
    named(problems, "(landing 2): the bar for running_mean@")
    named(problems, "step 4: the bar for running_mean@")          # and at the step's end


def test_the_prefix_line_one_row_low_is_named(monkeypatch):
    """Future-check's dashed line between the kept prefix and the changed future, drawn a row low
    (the prefix looks one longer)."""
    from manim import DOWN, DashedLine
    from scenes.kit.draw import pictures
    original = pictures.Board.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for part in self.submobjects:
            if isinstance(part, DashedLine):
                part.shift(DOWN * pictures.ROW_H)
    monkeypatch.setattr(pictures.Board, "__init__", init)
    named(problems_of("future-check", inputs_for("future-check")), "the divider for prefix lies at y =")


def test_the_weighted_arrows_drawn_in_reverse_order_are_named(monkeypatch):
    """4.1's plane: the head-to-tail arrows αⱼxⱼ drawn last first, each still standing for its own."""
    from scenes.kit.compose import boards
    original = boards.head_to_tail
    monkeypatch.setattr(boards, "head_to_tail", lambda plane, steps, color, labels=None:
                        original(plane, steps[::-1], color, labels))
    named(problems_of("weighted-average", inputs_for("weighted-average")), "the arrow for parts[0] is drawn as")


def test_a_heat_scale_drawn_backwards_is_named(monkeypatch):
    """QKᵀ's cells coloured from the high end for its least score (the legend unchanged)."""
    original = grids.heat_color
    monkeypatch.setattr(grids, "heat_color", lambda value, low=0.0, high=1.0:
                        original(low + high - value, low, high))
    named(problems_of("score-grid", inputs_for("score-grid")), "of the heat scale in scores")


# -- precision
def test_two_decimals_for_large_numbers_in_the_formatter_are_named(monkeypatch):
    original = style.format_number

    def short(value, decimals=4):
        big = not isinstance(value, int) and abs(float(value)) >= 20 and np.isfinite(float(value))
        return original(value, min(decimals, 2) if big else decimals)
    monkeypatch.setattr(style, "format_number", short)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "decimals the oracle's")


def test_two_decimals_for_large_numbers_in_a_scene_are_named(monkeypatch):
    original = NumberBook.fmt

    def fmt(self, label, value, decimals=4):
        big = not isinstance(value, int) and abs(float(value)) >= 20 and np.isfinite(float(value))
        return original(self, label, value, min(decimals, 2) if big else decimals)
    monkeypatch.setattr(NumberBook, "fmt", fmt)
    named(problems_of("causal-mask", inputs_for("causal-mask", **BIG)), "mixes")


def test_a_tiny_number_drawn_as_zero_is_named(monkeypatch):
    def fixed(value, decimals=4):
        if isinstance(value, int):
            return str(value).replace("-", "\u2212")
        value = float(value)
        if not np.isfinite(value):
            return {True: "NaN"}.get(np.isnan(value), "\u2212\u221e" if value < 0 else "\u221e")
        return f"{value:.{decimals}f}".replace("-", "\u2212")
    monkeypatch.setattr(style, "format_number", fixed)
    expected = {"a": 0.00001}
    rec = {"label": "a", "value": 0.00001, "text": fixed(0.00001), "decimals": 4}
    assert oracle_problems([rec], expected) and rec["text"] == "0.0000"


# -- ways around the book
@pytest.mark.parametrize("typed", [
    lambda book: Text("0.5"),
    lambda book: NumberText("0.5"),
    lambda book: DecimalNumber(0.5),
], ids=["Text", "NumberText", "DecimalNumber"])
def test_a_typed_number_fails_the_build(monkeypatch, typed):
    from scenes.clips.multihead import Multihead
    original = Multihead.show

    def show(self, *args, **kwargs):
        view = original(self, *args, **kwargs)
        self.add(typed(self.book))
        return view
    monkeypatch.setattr(Multihead, "show", show)
    with pytest.raises(TypedNumberError, match="not made by the NumberBook"):
        build("multihead")


def test_an_image_or_svg_of_unknown_content_fails_the_build(monkeypatch, tmp_path):
    from scenes.clips.multihead import Multihead
    svg = tmp_path / "n.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                   '<rect width="10" height="10" fill="white"/></svg>')
    original = Multihead.show

    def show(self, *args, **kwargs):
        view = original(self, *args, **kwargs)
        self.add(SVGMobject(str(svg)), ImageMobject(np.full((4, 4, 3), 255, np.uint8)))
        return view
    monkeypatch.setattr(Multihead, "show", show)
    with pytest.raises(TypedNumberError):
        build("multihead")


def test_a_translation_with_two_places_swapped_and_no_equals_sign_is_named():
    """4.7's wrong merge in English with its two places swapped: every slot keeps its name, there
    is no "SYMBOL = {}" to hold it, and the sentence now says the tracked id moves from its wrong
    place to its correct one."""
    from scenes.kit.text import lang
    from support.meaning import meaning_problems, swapped
    source = "错误合并：不换回就 reshape，{track} 从正确的 {merged} 错到 {wrong}。"
    said = lang.catalogue("en")[source]
    assert "=" not in said and meaning_problems(source, said) == []
    planted = swapped(said, "merged", "wrong")
    assert "correct {wrong} to {merged}" in planted
    named(meaning_problems(source, planted), "are tied to no word of theirs")


def test_the_book_refuses_texts_it_did_not_make():
    book = NumberBook()
    with pytest.raises(TypedNumberError):
        book.register(Text("0.5"), "number", "0.5")             # a plain string
    with pytest.raises(TypedNumberError):
        book.text(Shown("0.5"))                                   # a Shown made outside the book
    with pytest.raises(TypedNumberError):
        book.compose("第 {} 行", Shown("3"))
    with pytest.raises(TypedNumberError):
        book.rewrap(book.compose("{} 行", book.index("n", 3)), "4 行")   # rewrapping may not change a digit
    with pytest.raises(TypedNumberError):
        book.term("e17")


def test_a_number_passed_off_as_user_text_is_named(monkeypatch):
    """user_text names its option: a number drawn as a 'token' is not one of the user's tokens."""
    from scenes.clips.causal_mask.scene import CausalMask
    original = CausalMask.compute

    def compute(self):
        r = original(self)
        self.keys[0] = self.book.user_text("0.5")
        return r
    monkeypatch.setattr(CausalMask, "compute", compute)
    named(problems_of("causal-mask", inputs_for("causal-mask", tokens="a b c")), "is not in --tokens")


def test_the_escape_hatches_are_closed_in_the_source():
    """Only the book seals a Shown, and nothing outside it calls its private recorder."""
    import subprocess
    from conftest import ROOT
    hits = subprocess.run(["grep", "-rnE", r"by=self|\._record\(|Shown\(", "scenes"], cwd=ROOT,
                          capture_output=True, text=True).stdout.splitlines()
    assert [h for h in hits if not h.startswith("scenes/kit/text/numbers.py")] == []
