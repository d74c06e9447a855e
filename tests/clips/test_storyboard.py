"""A still of step N builds nothing past step N: a clip's construct is its storyboard, and a render
that stops after step N stops before the first step method begun past it. (The lab's still of
causal-mask's step 1 built the mask's whole page before stopping: 0.43 s a still, 0.27 s without.)
The still itself is unchanged: test_pixels reads a still against the whole build's frame."""
from unittest.mock import patch

import pytest
from manim import tempconfig

from conftest import WORKER_MEDIA, inputs_for, scene_class
from scenes.kit.scene.base import ClipScene

CLIPS = ["causal-mask", "dropout", "multihead", "score-grid", "implementation", "future-check"]


def begun_past(clip, stop, storyboard=ClipScene.storyboard):
    """The step methods of `clip` begun once `stop` steps were already shown, in a render that
    stops after step `stop` (as a still does); `storyboard`: the one under test."""
    begun = []

    def watched(scene, step):
        def run():
            begun.append((getattr(step, "__name__", "?"), len(scene.captions)))
            step()
        return run

    def spy(scene, *steps):
        storyboard(scene, *[watched(scene, s) for s in steps])

    settings = {"format": "none", "disable_caching": True, "media_dir": WORKER_MEDIA, "verbosity": "ERROR",
                "progress_bar": "none"}
    with patch.object(ClipScene, "storyboard", spy), tempconfig(settings):
        scene = scene_class(clip)(inputs=inputs_for(clip), stop_after_step=stop, skip_animations=True)
        scene.render()
    assert len(scene.captions) == stop
    return [name for name, shown in begun if shown >= stop]


@pytest.mark.parametrize("clip", CLIPS)
def test_a_still_of_step_one_begins_no_later_step(clip):
    assert begun_past(clip, 1) == []


def test_the_last_steps_still_begins_nothing_past_it():
    assert begun_past("causal-mask", 6) == []


def test_a_storyboard_that_begins_every_step_is_caught():
    def every_step(scene, *steps):          # planted: the old construct, which stopped inside the next step
        for step in steps:
            step()
        scene.end()
    assert begun_past("causal-mask", 1, every_step) == ["mask_before_softmax"]
