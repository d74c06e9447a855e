"""The zoom on the tracked row (scenes/kit/page/zoom.py): a grid too big to read in its area is shown
whole and small in its colours only, its tracked row drawn again below it (or beside it, as a
column) at READABLE_H, the two linked by a frame; the copy is the grid's own records (labels
name[row][j], values, decimals), marked zoom_of. Checked on the layout record (layout.snapshot)
with the contract's own checks and an independent rounding of the values; planted: another row's
numbers, a copy drawn too small."""
import numpy as np
import pytest

from support.contract import layout_problems, structure_problems
from scenes.kit.text import style
from scenes.kit.page import zoom
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.text.layout import frame, snapshot
from scenes.kit.text.numbers import NumberBook
from scenes.kit.page.page import Area, Page, fits, plan

VALUES = np.round(np.random.default_rng(3).uniform(-99, 99, (8, 8)), 4)
ROW = 5


class Board:
    """What layout.snapshot reads of a scene: the mobjects on it."""

    def __init__(self, *mobjects):
        self.mobjects = list(mobjects)


def zoomed_layout(area, row=ROW, values=VALUES):
    """(the pages chosen, the snapshot, the whole grid): the whole grid, else the zoom on `row`, else
    the whole grid anyway."""
    book = NumberBook()
    grid = MatrixGrid(book, "scores", values, 4, heat="scores")
    option = zoom.zoom_page(book, ("z", (), {}), "scores", values, row, 4, area, heat="scores")
    pages = plan(book, [[Page(("a", (), {}), grid)], [Page(("b", (), {}), grid)]], area, zoom=option)
    placed = area.place(pages[0].laid_out(), pages[0].most)
    return pages, snapshot(Board(placed), book, 1), grid, book


def zoom_problems(items, row):
    """The copy: every entry of `row` (labels scores[row][j]) and nothing else, marked zoom_of, each
    text the value rounded to 4 places (independently), READABLE_H tall; no other number drawn."""
    out = []
    copies = [it for it in items if it.get("zoom_of") == "scores"]
    if sorted(it["label"] for it in copies) != sorted(f"scores[{row}][{j}]" for j in range(8)):
        out.append(f"the copy shows {sorted(it['label'] for it in copies)}")
    for it in copies:
        i, j = (int(n) for n in it["label"][7:-1].split("]["))
        if float(it["text"].replace("\u2212", "-")) != pytest.approx(VALUES[ROW, j], abs=5e-5):
            out.append(f"{it['label']}: {it['text']!r} framed as row {ROW}, which holds {VALUES[ROW, j]}")
        if it["box"][3] - it["box"][1] < style.READABLE_H - 1e-6:
            out.append(f"{it['label']} is {it['box'][3] - it['box'][1]:.3f} tall")
    out += [f"{it['label']} drawn besides the copy" for it in items
            if it["kind"] == "number" and it not in copies]
    return out


@pytest.mark.parametrize("area, column", [(Area(width=8.0, height=4.2), True),     # narrow: a column beside
                                          (Area(width=13.0, height=2.6), False)])  # low: a row below
def test_a_grid_too_big_to_read_is_shown_small_with_its_tracked_row_zoomed(area, column):
    pages, shot, grid, book = zoomed_layout(area)
    assert pages[0].caption[0] == "z"                     # neither the whole grid nor the fallback
    assert not fits(book, grid, area)                     # the grid alone would not read
    assert zoom_problems(shot["items"], ROW) == []
    copy = pages[0].copy
    assert (copy.n_cols == 1) == column
    m = {"layout": [shot], "frame": frame()}
    assert layout_problems(m) == [] and structure_problems(m) == []   # inside the frame, no overlap


def test_no_zoom_where_the_grid_reads_whole():
    area = Area(width=8.0, height=4.2)
    pages, _, _, _ = zoomed_layout(area, 1, VALUES[:3, :3])
    assert pages[0].caption[0] == "a"


def test_planted_wrong_row_and_small_copy_are_caught(monkeypatch):
    area = Area(width=8.0, height=4.2)
    _, shot, _, _ = zoomed_layout(area, ROW + 1)          # the frame on row 5 shows row 6's numbers
    problems = zoom_problems(shot["items"], ROW)
    assert any("the copy shows" in p for p in problems) and any("which holds" in p for p in problems)
    monkeypatch.setattr(zoom, "ROOM", 0.8)                # the copy drawn below READABLE_H:
    assert zoomed_layout(area)[0][0].caption[0] == "b"    # the engine refuses the zoom,
    monkeypatch.setattr(zoom, "needed", lambda *a, **k: 0.0)
    pages, shot, _, _ = zoomed_layout(area)               # and were it taken, the test sees it
    assert pages[0].caption[0] == "z" and any("tall" in p for p in zoom_problems(shot["items"], ROW))




def test_the_contract_knows_a_zoomed_copy():
    """structure_problems reads zoom_of: the copy's entries are that grid's, from one row. Planted:
    an entry of another row slipped into the copy, a copy marked as another grid's."""
    area = Area(width=13.0, height=2.6)
    _, shot, _, _ = zoomed_layout(area)
    m = {"layout": [shot], "frame": frame()}
    assert structure_problems(m) == []
    copies = [it for it in shot["items"] if it.get("zoom_of")]
    copies[3]["label"] = f"scores[{ROW + 1}][3]"
    assert any("neither one row nor one column" in p for p in structure_problems(m))
    copies[3]["label"], copies[0]["zoom_of"] = f"scores[{ROW}][3]", "keys"
    assert any("is not its entry" in p for p in structure_problems(m))
