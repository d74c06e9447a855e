"""The suite's sample of its costly cases (renders, frames read back, browsers, audio).

A test marked `@pytest.mark.sampled(k)` runs k of its parametrised cases in a run: always its
first (the book's inputs, where the list starts with them) and k - 1 others drawn by the run's
seed; the rest are deselected. Tests marked `@pytest.mark.sampled(k, group=NAME)` are one list
(costly checks of one thing, in several files): k of them run, all drawn by the seed. The seed is TEST_SAMPLE when it is a number, else the commit
checked out, so each commit on CI checks other cases and a failing one is rerun with the seed the
header prints (`TEST_SAMPLE=SEED bash run.sh test`); `TEST_SAMPLE=all` runs every case.
"""
import os
import random
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def seed():
    """'all', or the run's seed: TEST_SAMPLE, else the commit, else 0."""
    given = os.environ.get("TEST_SAMPLE", "").strip()
    if given:
        return given
    try:
        done = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10)
        return done.stdout.strip() or "0"
    except (OSError, subprocess.SubprocessError):
        return "0"


def chosen(names, k, run_seed, test):
    """The indices of the k cases of `test` (of len(names)) this run keeps: the first, and k - 1
    drawn from the rest by (run_seed, test)."""
    n = len(names)
    if run_seed == "all" or k >= n:
        return list(range(n))
    rng = random.Random(f"{run_seed}:{test}")
    return [0] + sorted(rng.sample(range(1, n), k - 1)) if k > 0 else []


def drawn(names, k, run_seed, group):
    """The indices of the k members of `group` this run keeps, all drawn by (run_seed, group)."""
    if run_seed == "all" or k >= len(names):
        return list(range(len(names)))
    return sorted(random.Random(f"{run_seed}:{group}").sample(range(len(names)), k))


def split(items, run_seed):
    """(kept, deselected) of pytest's items: each marked test's cases sampled, others kept."""
    groups = {}
    for item in items:
        mark = item.get_closest_marker("sampled")
        if mark is not None:
            key = ("group", mark.kwargs["group"]) if "group" in mark.kwargs else (str(item.path), item.originalname)
            groups.setdefault(key, (mark.args[0], []))[1].append(item)
    dropped = set()
    for (path, name), (k, cases) in groups.items():
        if path == "group":                      # sorted by id: every worker draws from one order
            cases.sort(key=lambda c: c.nodeid)
            keep = set(drawn(cases, k, run_seed, name))
        else:
            keep = set(chosen(cases, k, run_seed, f"{Path(path).name}::{name}"))
        dropped |= {id(c) for i, c in enumerate(cases) if i not in keep}
    return [i for i in items if id(i) not in dropped], [i for i in items if id(i) in dropped]
