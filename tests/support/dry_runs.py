"""Dry runs shared by every test worker of a session: `render.py CLIP --dry-run` once for each
clip, preset and language, its manifest kept in the session's shared folder (a file a key, made
under a lock by the first test that asks), as tests/support/shared_builds.py keeps builds.

    manifest = dry_manifest("causal-mask", "causal_mask_negatives", "en")    # copy.deepcopy() to change it
"""
import fcntl
import json
import os
import tempfile
from pathlib import Path

from conftest import cli
from support.shared_builds import FOLDER

_read: dict[tuple, dict] = {}       # this worker's copies, read once


def dry_manifest(clip, preset=None, lang="zh"):
    """The manifest `render.py` writes for a dry run of `clip` (its defaults, or `preset`) in `lang`:
    one object a worker, shared by the tests that read it (a test that changes it copies it first)."""
    key = (clip, preset, lang)
    if key not in _read:
        path = FOLDER[0] / f"dry-{clip}-{preset or 'default'}-{lang}.json"
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                with tempfile.TemporaryDirectory(dir=FOLDER[0]) as out:
                    args = [clip, "--dry-run", "--out", out, "--lang", lang] + (["--preset", preset] if preset else [])
                    code, said = cli(*args)
                    assert code == 0, said
                    made = next(Path(out).glob("*.numbers.json"))
                    part = path.with_suffix(f".{os.getpid()}.part")
                    part.write_bytes(made.read_bytes())
                    part.rename(path)
            _read[key] = json.loads(path.read_text("utf-8"))
    return _read[key]
