"""The session's shared builds (tests/support/shared_builds.py) are the builds: what a second test reads
back from disk equals a fresh build of the same inputs (manifest, moments, every frame), and a
different language or input is a different build."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from conftest import ROOT, inputs_for
from support.shared_builds import shared_build

CLIP = "weighted-average"      # the cheapest build


def same(a, b):
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def differences(a, b, where="", out=None):
    """Where two JSON-like values differ (the first 10 places), for the failure message."""
    out = [] if out is None else out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            differences(a.get(k), b.get(k), f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b)):
            differences(x, y, f"{where}[{n}]", out)
    elif not same(a, b):
        out.append(f"{where}: {str(a)[:120]} != {str(b)[:120]}")
    return "\n".join(out[:10])


FRESH = """
import json, sys, numpy
sys.path[:0] = ["tests", "."]
from conftest import build, inputs_for
from scenes.kit.motion import derive
with derive.watch() as moments:
    b = build({clip!r}, inputs_for({clip!r}), frames=True)
json.dump({{"manifest": b.manifest(), "moments": list(moments), "captions": b.scene.captions,
           "layout": b.scene.layout}}, open({out!r} + ".json", "w"), default=str)
numpy.savez_compressed({out!r} + ".npz", *b.frames)
"""


def fresh_build(tmp_path):
    """The build made in a process of its own: a long-lived worker's earlier tests do not shape it
    (a fresh build there once wrapped 4.1 step 3's caption otherwise, on CI, not reproduced here)."""
    out = str(tmp_path / "fresh")
    subprocess.run([sys.executable, "-c", FRESH.format(clip=CLIP, out=out)], cwd=ROOT, check=True,
                   capture_output=True)
    with np.load(out + ".npz") as saved:
        frames = [saved[f"arr_{n}"] for n in range(len(saved.files))]
    return json.loads(Path(out + ".json").read_text("utf-8")), frames


def test_a_shared_build_reads_back_as_a_fresh_build_of_its_key(tmp_path):
    inputs = inputs_for(CLIP)
    shared_build(CLIP, inputs, "zh")
    again = shared_build(CLIP, inputs, "zh")             # from the file the first call wrote
    fresh, frames = fresh_build(tmp_path)
    mine = json.loads(json.dumps({"manifest": again.manifest(), "moments": again.moments,
                                  "captions": again.scene.captions, "layout": again.scene.layout}, default=str))
    for part in fresh:
        assert same(mine[part], fresh[part]), differences(mine[part], fresh[part], part)
    assert len(again.frames) == len(frames) == len(fresh["manifest"]["steps"])
    assert all(np.array_equal(a, b) for a, b in zip(again.frames, frames))
    english = shared_build(CLIP, inputs, "en")
    assert not same(english.scene.captions, again.scene.captions)          # the English words
    other = shared_build(CLIP, inputs_for(CLIP, query=0), "zh")
    assert not same(other.manifest()["numbers"], again.manifest()["numbers"])
