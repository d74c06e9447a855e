"""The session's shared builds (tests/support/shared_builds.py) are the builds: what a second test reads
back from disk equals a fresh build of the same inputs (manifest, moments, every frame), and a
different language or input is a different build."""
import json

import numpy as np

from conftest import build, inputs_for
from scenes.kit.motion import derive
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


def test_a_shared_build_reads_back_as_a_fresh_build_of_its_key():
    inputs = inputs_for(CLIP)
    shared_build(CLIP, inputs, "zh")
    again = shared_build(CLIP, inputs, "zh")             # from the file the first call wrote
    with derive.watch() as moments:
        fresh = build(CLIP, inputs, frames=True)
    assert same(again.manifest(), fresh.manifest()), differences(again.manifest(), fresh.manifest())
    assert same(again.moments, list(moments)), differences(again.moments, list(moments))
    assert len(again.frames) == len(fresh.frames) == len(fresh.manifest()["steps"])
    assert all(np.array_equal(a, b) for a, b in zip(again.frames, fresh.frames))
    assert same(again.scene.captions, fresh.scene.captions) and same(again.scene.layout, fresh.scene.layout)
    english = shared_build(CLIP, inputs, "en")
    assert not same(english.scene.captions, again.scene.captions)          # the English words
    other = shared_build(CLIP, inputs_for(CLIP, query=0), "zh")
    assert not same(other.manifest()["numbers"], again.manifest()["numbers"])
