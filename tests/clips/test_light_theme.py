"""Every clip's default in the light theme keeps the contract: `render.py NAME --theme light` (a
process of its own, as a user runs it) records every step's layout, which keeps the layout contract
and says every number, mark and cell in a colour of the palette the oracle names (the light one:
a dark colour left behind is recorded as its hex); a still of one step, read back, shows every
number's recorded text in its box, on the light background.

Sampled like the suite's other costly cases: two clips a run (the first, and one drawn by the run's
seed; TEST_SAMPLE=all reads every clip, tests/support/sample.py).
"""
import json

import numpy as np
import pytest
from PIL import Image

from conftest import inputs_for, run_cli
from scenes.kit.text import style
from scenes.pipeline.jobs.registry import specs
from support.cases import proof_problems
from support.pixels import number_problems



def light(clip, tmp_path, *args):
    done = run_cli(clip, "--theme", "light", "--out", str(tmp_path), *args)
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / f"{clip}.numbers.json").read_text("utf-8"))


@pytest.mark.sampled(2)
@pytest.mark.parametrize("clip", list(specs()))
def test_a_clips_default_keeps_the_contract_in_the_light_theme(clip, tmp_path):
    whole = light(clip, tmp_path / "dry", "--dry-run")
    assert proof_problems(clip, inputs_for(clip), whole) == []
    step = (len(whole["steps"]) + 1) // 2          # a still of the middle step, read back
    still = light(clip, tmp_path / "still", "--format", "png", "--quality", "low", "--step", str(step))
    frame = np.asarray(Image.open(tmp_path / "still" / f"{clip}.png").convert("RGB"))
    assert frame.shape[:2] == (480, 854)
    assert "#%02X%02X%02X" % tuple(frame[2, 2]) == style.THEMES["light"]["background"]
    assert number_problems(frame, still["layout"][step - 1], still["frame"]) == []


def test_a_dark_colour_left_in_a_light_render_is_caught(tmp_path):
    """Planted: a light render whose captions keep the dark theme's text colour."""
    whole = light("weighted-average", tmp_path, "--dry-run")
    for st in whole["layout"]:
        for it in st["items"]:
            if it["kind"] == "caption":
                it["role"] = style.THEMES["dark"]["text"]       # what role_of records off the palette
    assert any("not a colour of the palette" in p
               for p in proof_problems("weighted-average", inputs_for("weighted-average"), whole))
