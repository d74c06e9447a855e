"""Baseline for bench/run.py: the same three 6x6 grids (X Xᵀ, softmax by rows, by
columns, of the ch03 example) drawn the naive way and our way, same timing.

  python bench/naive.py NaiveGrids|OurGrids low|high OUTDIR
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from manim import RIGHT, DecimalMatrix, FadeIn, Scene, VGroup, tempconfig  # noqa: E402

from scenes.compute import average as compute  # noqa: E402
from scenes.kit.draw.anim import Appear  # noqa: E402
from scenes.pipeline.jobs.inputs import check, raw_inputs  # noqa: E402
from scenes.kit.draw.grids import MatrixGrid  # noqa: E402
from scenes.kit.text.layout import fit  # noqa: E402
from scenes.kit.text.numbers import NumberBook  # noqa: E402
from scenes.pipeline.jobs.registry import specs  # noqa: E402
from scenes.pipeline.run.runner import manim_settings  # noqa: E402


def grids():
    first = next(iter(specs()))          # the chapter's first clip (4.1): its journey preset
    x = check(first, raw_inputs(first, f"journey-{first}"))["x"]
    r = compute.lesson(x, 1)
    return [r.gram, r.rows, r.cols]


class NaiveGrids(Scene):
    """Matrix + DecimalNumber, each step re-adds everything already on screen."""

    def construct(self):
        shown = []
        mats = [DecimalMatrix(g, element_to_mobject_config={"num_decimal_places": 4}) for g in grids()]
        fit(VGroup(*mats).arrange(RIGHT, buff=0.3), 13.5, 6)
        for m in mats:
            self.remove(*shown)
            self.add(*shown)
            self.play(FadeIn(m), run_time=1.0)
            shown.append(m)
            self.wait(1.0)


class OurGrids(Scene):
    """MatrixGrid of glyph-set numbers, faded in place; what is shown stays static."""

    def construct(self):
        book = NumberBook()
        mats = [MatrixGrid(book, f"g{n}", g, 4) for n, g in enumerate(grids())]
        fit(VGroup(*mats).arrange(RIGHT, buff=0.3), 13.5, 6)
        for m in mats:
            self.play(Appear(m), run_time=1.0)
            self.wait(1.0)


if __name__ == "__main__":
    name, quality, out = sys.argv[1:4]
    with tempconfig(manim_settings(Path(out), name, quality, "mp4")):
        {"NaiveGrids": NaiveGrids, "OurGrids": OurGrids}[name]().render()
