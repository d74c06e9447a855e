"""Every motion arrives: in a real render (the frames drawn, tiny quality, in this process), each
Transform's mover (a carried number's flight, 4.7's element moves, dropout's bar, an arrow grown, a
board shifted) is at its landing when its play ends, so no mover stops short and jumps into place
when the next piece is drawn (tests/support/motion.py). The step ends, which the video read-back
compares, do not show it: a mover that jumps lands before the step ends.

Planted: every plain Transform ending at 80% of its way (which the step ends' read-back passes);
each mover is named with clip, step and label.
"""
import pytest
from manim import Transform
from manim.animation.animation import Animation

from conftest import inputs_for
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.run.runner import render_clip
from support.motion import landings

CHEAPEST = "weighted-average"


@pytest.mark.sampled(2)
@pytest.mark.parametrize("clip", list(specs()))
def test_every_mover_lands_where_its_transform_takes_it(clip, tmp_path):
    with landings() as seen:
        render_clip(clip, inputs_for(clip), quality="tiny", out=tmp_path)
    assert seen.checked > 0, "no Transform was played"
    assert seen.problems == [], "\n".join(seen.problems)


def test_transforms_that_end_at_80_percent_are_named(tmp_path, monkeypatch):
    """Planted: every plain Transform of the real path (not its kinds: fades, grown arrows) stops
    at 80% of its way. The step ends still read right (tests/support/video.py passes this render:
    the next piece puts each mover in place before the step ends); each mover is named."""
    def short(self, alpha):
        return Animation.interpolate(self, min(alpha, 0.8) if type(self) is Transform else alpha)
    monkeypatch.setattr(Transform, "interpolate", short)
    with landings() as seen:
        render_clip(CHEAPEST, inputs_for(CHEAPEST), quality="tiny", out=tmp_path)
    assert seen.problems and all("(Transform) stops" in p for p in seen.problems), seen.problems
    named = {p.split(" (")[0] for p in seen.problems}
    # step 2: the inputs' entries and names carried from X's rows to the dot products
    assert {f"{CHEAPEST} step 2: x[0][0]", f"{CHEAPEST} step 2: x[2][1]", f"{CHEAPEST} step 2: x1"} <= named, named
