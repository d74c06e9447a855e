"""Where the suite's time goes, from a run with `--durations=0`:

    .venv/bin/python -m pytest -n 2 --dist loadfile --durations=0 -q > run.log
    .venv/bin/python tests/support/suite_time.py run.log [BUILD_LOG_DIR]

prints the seconds of each test file (setup + call + teardown, summed over its tests), the sum, and
the wall time a perfect split over the workers would take. With TEST_BUILD_LOG=DIR set for the run
(tests/conftest.py), also each build or tiny render repeated with the same key, and its cost.
"""
import collections
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"^\s*([\d.]+)s (setup|call|teardown)\s+(\S+?)::")


def per_file(log):
    seconds = collections.Counter()
    for line in Path(log).read_text("utf-8", "replace").splitlines():
        hit = LINE.match(line)
        if hit:
            seconds[hit.group(3)] += float(hit.group(1))
    return seconds


def repeats(folder):
    """{key: [(seconds, test)]} of the builds made more than once."""
    seen = collections.defaultdict(list)
    for path in sorted(Path(folder).glob("builds-*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            seen[row["key"]].append((row["s"], row["test"]))
    return {k: v for k, v in seen.items() if len(v) > 1}


def main(log, builds=None, workers=2):
    seconds = per_file(log)
    for name, s in seconds.most_common():
        print(f"{s:8.1f} s  {name}")
    total = sum(seconds.values())
    print(f"{total:8.1f} s  in all; {total / workers:.0f} s of wall time on {workers} workers at best")
    if builds:
        again = repeats(builds)
        waste = sum(s for rows in again.values() for s, _ in rows[1:])
        print(f"\nbuilt again with the same key: {len(again)} keys, {waste:.0f} s")
        for key, rows in sorted(again.items(), key=lambda kv: -sum(s for s, _ in kv[1][1:]))[:20]:
            print(f"{len(rows)}x {sum(s for s, _ in rows[1:]):6.1f} s  {key[:90]}")
            for s, test in rows:
                print(f"      {s:6.1f} s  {test[:100]}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
