"""Every clip's default in the light theme keeps the contract: `render.py NAME --theme light` (a
process of its own, as a user runs it) records every step's layout, which keeps the layout contract
and says every number, mark and cell in a colour of the palette the oracle names (the light one:
a dark colour left behind is recorded as its hex); a still of one step, read back, shows every
number's recorded text in its box, on the light background; and the real light mp4 ends each step
on the light fast path's frame (planted by hand: the dark mp4 against the light frames, 12
problems, every step's frame far off).

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


def test_the_real_light_mp4_ends_every_step_on_the_light_fast_paths_frame(tmp_path):
    """The real video in the light theme (the cheapest clip at tiny quality, as `render.py`
    makes it) ends each step on the frame the light fast path draws, every number legible
    (tests/support/video.py); the fast path is built in a process started in the light theme."""
    import os
    import subprocess
    import sys
    from conftest import ROOT
    from support.video import video_problems
    clip, size = "weighted-average", (256, 144)
    m = light(clip, tmp_path / "video", "--quality", "tiny")
    target = tmp_path / "fast.npz"
    code = ("import sys, numpy; sys.path[:0] = ['tests', '.']; from conftest import build; "
            f"f = build({clip!r}, frames=True, frame_size={size!r}).frames; "
            f"numpy.savez_compressed({str(target)!r}, *f)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, style.THEME_VARIABLE: "light"})
    with np.load(target) as saved:
        frames = [saved[f"arr_{n}"] for n in range(len(saved.files))]
    assert frames and all(f[2, 2].mean() > 200 for f in frames)            # drawn on white
    assert video_problems(tmp_path / "video" / f"{clip}.mp4", m, frames) == []
