"""The pixel read-back catches what the manifest alone cannot: a number drawn differently from
its record, covered by another mobject, or pushed off the frame; and a still written by
`--format png --step N` is the frame the check reads."""
import copy

import numpy as np
import pytest
from manim import Rectangle

from conftest import build, cli, inputs_for
from support.pixels import number_problems
from support.shared_builds import shared_build
from scenes.kit.text import style

CLIP = "weighted-average"


@pytest.fixture(scope="module")
def built():
    """The session's shared build of the book's inputs, with its frames (tests/support/shared_builds.py)."""
    return shared_build(CLIP, inputs_for(CLIP))


def numbers_of(built, step):
    return [it for it in built.manifest()["layout"][step - 1]["items"] if it["kind"] == "number"]


def test_every_number_reads_back(built):
    m = built.manifest()
    for image, step in zip(built.frames, m["layout"]):
        assert number_problems(image, step, m["frame"]) == []


def test_a_different_digit_is_caught(built):
    m = built.manifest()
    step = copy.deepcopy(m["layout"][3])
    for item in step["items"]:
        if item["kind"] == "number" and item["text"][-1].isdigit():
            item["text"] = item["text"][:-1] + ("8" if item["text"][-1] != "8" else "3")
            break
    problems = number_problems(built.frames[3], step, m["frame"])
    assert len(problems) == 1 and "does not read back" in problems[0]


def test_a_covered_number_is_caught(built):
    m = built.manifest()
    item = numbers_of(built, 4)[0]
    x0, y0, x1, y1 = item["box"]
    frame = built.frames[3].copy()
    h, w = frame.shape[:2]
    fw, fh = m["frame"]["width"], m["frame"]["height"]
    c0, c1 = int((x0 + fw / 2) / fw * w), int((x1 + fw / 2) / fw * w) + 1
    r0, r1 = int((fh / 2 - y1) / fh * h), int((fh / 2 - y0) / fh * h) + 1
    frame[r0:r1, c0:(c0 + c1) // 2 + 2] = [27, 42, 65, 255]        # half of it under a box
    problems = number_problems(frame, {"step": 4, "items": [item]}, m["frame"])
    assert problems and item["text"] in problems[0]


def test_a_number_moved_off_its_box_is_caught(built):
    m = built.manifest()
    item = copy.deepcopy(numbers_of(built, 4)[0])
    item["box"] = [item["box"][0] + 3.0, item["box"][1], item["box"][2] + 3.0, item["box"][3]]
    assert number_problems(built.frames[3], {"step": 4, "items": [item]}, m["frame"])


def test_a_scene_that_covers_a_number_fails(monkeypatch):
    """Planted in the scene itself: a filled rectangle over the first number of step 2."""
    from scenes.clips.weighted_average.scene import WeightedAverage
    original = WeightedAverage.dot_products

    def covered(self):
        original(self)
        target = next(m for m in self.mobjects for m in m.get_family()
                      if self.book.meta.get(id(m), {}).get("kind") == "number")
        self.add(Rectangle(width=target.width, height=target.height, fill_color=style.BACKGROUND,
                           fill_opacity=1, stroke_width=0).move_to(target))
    monkeypatch.setattr(WeightedAverage, "dot_products", covered)
    b = build(CLIP, frames=True)
    m = b.manifest()
    assert number_problems(b.frames[1], m["layout"][1], m["frame"])


def test_the_still_of_a_step_is_the_frame_that_is_read(built, tmp_path):
    from PIL import Image
    code, out = cli(CLIP, "--format", "png", "--quality", "low", "--step", "4", "--out", str(tmp_path))
    assert code == 0, out
    still = np.asarray(Image.open(tmp_path / f"{CLIP}.png").convert("RGB"), float)
    assert still.shape[:2] == built.frames[3].shape[:2]
    assert np.abs(still - built.frames[3][:, :, :3]).mean() < 2.0
