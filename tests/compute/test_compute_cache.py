"""The stored results (scenes/compute/stored.py): a result read back is the one PyTorch computes
afresh, the key follows every input of it, a bad entry is computed again, two processes share a
folder, and a dry run of implementation with its check stored imports no torch and writes the
same manifest as one that ran torch."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from scenes.compute import implementation as compute, stored  # noqa: E402

CASES = [((2, 3, 5, 4), 123), ((1, 1, 1, 1), 0), ((2, 4, 7, 3), 7), ((2, 4, 7, 3), 8)]


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPUTE_CACHE_DIR", str(tmp_path / "compute"))
    monkeypatch.delenv("COMPUTE_CACHE", raising=False)
    return tmp_path / "compute"


def entries(folder):
    return sorted(folder.glob("*.json"))


def test_a_stored_result_is_the_one_torch_computes(folder):
    fresh = [compute.sdpa_check.uncached(shape, seed) for shape, seed in CASES]
    assert fresh[2] != fresh[3]                       # the seed matters: a key without it is caught
    assert [compute.sdpa_check(shape, seed) for shape, seed in CASES] == fresh      # computed, stored
    assert len(entries(folder)) == len(CASES)
    before = stored.stats["hits"]
    assert [compute.sdpa_check(shape, seed) for shape, seed in CASES] == fresh      # read back
    assert stored.stats["hits"] == before + len(CASES)
    assert all(isinstance(r.shape, tuple) for r in fresh)


def test_the_key_follows_arguments_source_packages_and_processor(monkeypatch):
    fn, base = compute.sdpa_check.uncached, ((2, 3, 5, 4), 123)
    first = stored.key(fn, base, ("torch",))
    assert stored.key(fn, base, ("torch",)) == first
    assert stored.key(fn, ((2, 3, 5, 4), 124), ("torch",)) != first
    assert stored.key(fn, ((2, 3, 4, 5), 123), ("torch",)) != first
    assert stored.key(fn, base, ("torch", "numpy")) != first
    real = Path.read_bytes
    edited = lambda p: real(p) + (b"#" if p.name == "implementation.py" else b"")    # noqa: E731
    monkeypatch.setattr(Path, "read_bytes", edited)
    assert stored.key(fn, base, ("torch",)) != first                   # the module's source
    monkeypatch.undo()
    for patch in ("version", "processor"):
        stored.environment.cache_clear()
        if patch == "version":
            monkeypatch.setattr(stored.importlib.metadata, "version", lambda name: "0.0-other")
        else:
            monkeypatch.setattr(stored, "processor", lambda: "another cpu")
        assert stored.key(fn, base, ("torch",)) != first, patch
        monkeypatch.undo()
    stored.environment.cache_clear()
    assert stored.key(fn, base, ("torch",)) == first
    import torch  # noqa: F401  (more references to shared constants: the key must not follow them)
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from scenes.compute import implementation as c, stored\n"
            "print(stored.key(c.sdpa_check.uncached, %r, ('torch',)))\n") % (str(ROOT), base)
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert other.stdout.strip() == stored.key(fn, base, ("torch",)) == first     # the same in every process


def test_a_function_or_constant_replaced_at_run_time_is_another_key(folder, monkeypatch):
    """A planted bug (tests/clips/test_implementation.py's attention without 1/sqrt(d)) is computed,
    not read from the entry of the right one."""
    shape, seed = CASES[0]
    right = compute.sdpa_check(shape, seed)
    hand = compute.hand_attention

    def unscaled(q, k, v):
        return hand(q * math.sqrt(q.shape[-1]), k, v)
    monkeypatch.setattr(compute, "hand_attention", unscaled)
    wrong = compute.sdpa_check(shape, seed)
    assert wrong == compute.sdpa_check.uncached(shape, seed) and wrong.forward > 1e-3
    monkeypatch.undo()
    fn = compute.sdpa_check.uncached
    first = stored.key(fn, (shape, seed), ("torch",))
    monkeypatch.setattr(compute, "DIAGONAL", 0)
    assert stored.key(fn, (shape, seed), ("torch",)) != first
    monkeypatch.undo()
    assert compute.sdpa_check(shape, seed) == right and stored.key(fn, (shape, seed), ("torch",)) == first


def test_a_bad_entry_is_computed_again(folder):
    shape, seed = CASES[0]
    right = compute.sdpa_check.uncached(shape, seed)
    compute.sdpa_check(shape, seed)
    (path,) = entries(folder)
    good = json.loads(path.read_text("utf-8"))
    for bad in ("", "{", "[]", json.dumps({**good, "extra": 1}), json.dumps({"forward": 0.0}),
                json.dumps({**good, "shape": {"a": 1}}), json.dumps({**good, "forward": "0"}),
                json.dumps({**good, "shape": 5}), "\x00\xff"):
        if bad == "\x00\xff":
            path.write_bytes(b"\x00\xff")
        else:
            path.write_text(bad, "utf-8")
        assert compute.sdpa_check(shape, seed) == right, bad
        assert json.loads(path.read_text("utf-8")) == good            # written over, whole
    assert not list(folder.glob(".part-*"))


def test_off_computes_and_writes_nothing(folder, monkeypatch):
    monkeypatch.setenv("COMPUTE_CACHE", "off")
    assert compute.sdpa_check(*CASES[1]) == compute.sdpa_check.uncached(*CASES[1])
    assert not folder.exists()


def test_two_processes_fill_one_folder(folder):
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from scenes.compute import implementation as c\n"
            "print(repr([c.sdpa_check(s, k) for s, k in %r]))\n") % (str(ROOT), CASES)
    env = {**os.environ, "COMPUTE_CACHE_DIR": str(folder)}
    runs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = [r.communicate(timeout=300)[0] for r in runs]
    assert all(r.returncode == 0 for r in runs)
    fresh = [compute.sdpa_check.uncached(s, k) for s, k in CASES]
    assert outs[0] == outs[1] == repr(fresh) + "\n"
    assert [compute.sdpa_check(s, k) for s, k in CASES] == fresh
    assert len(entries(folder)) == len(CASES) and not list(folder.glob(".part-*"))


DRY_RUN = ("import sys; sys.path.insert(0, %r); sys.argv = ['render.py']\n"
           "import render\n"
           "render.main(['implementation', '--dry-run', '--out', sys.argv_out])\n"
           "print('torch' in sys.modules)\n")


def test_a_dry_run_with_the_check_stored_imports_no_torch(folder, tmp_path):
    """Cold: torch runs and the result is stored; warm: the same manifest, no torch imported."""
    seen = []
    for run in ("cold", "warm"):
        code = DRY_RUN.replace("sys.argv_out", repr(str(tmp_path / run))) % str(ROOT)
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "COMPUTE_CACHE_DIR": str(folder)}, timeout=300)
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout.strip().splitlines()[-1])
    assert seen == ["True", "False"]
    cold, warm = ((tmp_path / run / "implementation.numbers.json").read_bytes() for run in ("cold", "warm"))
    assert cold == warm
