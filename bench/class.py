#!/usr/bin/env python3
"""What a class gets from one lab: N simulated students over loopback, each on one of the book's
three lab clips (causal-mask, dropout, multihead), each editing every T seconds with inputs of
their own — a preset, a cell of a matrix, a click on the picture — as the page does: the numbers
(POST /api/compute) at once, then the still (POST /api/still) of the new inputs, end to end.

  .venv/bin/python bench/class.py                       # the issue's run: about 20 minutes
  .venv/bin/python bench/class.py --minutes 1 --sizes 30 --labs workers-1,workers-2   # a quick look

Labs, side by side in one run (each a fresh `render.py lab` and lab folder, warm before the class):
  workers-1        render.py lab --workers 1
  workers-2        render.py lab --workers 2
  cluster-2        render.py lab --scheduler ADDR, a 2-worker dask LocalCluster started here
For each lab:
  throughput: 12 students who edit again as soon as their still is back, for --burst seconds, with
        cells and clicks only (a preset's still is drawn once for all): stills a second (the pool's capacity);
  class of N (--sizes): each student edits every --every seconds (first edits spread over one
        period) for --minutes: numbers and stills p50/p95/max, 429s, 5xx and other errors, each
        student's own median still wait (the largest over the class's median, and over the median of
        the students on the same clip: a causal-mask still costs about three of multihead's), and
        whether each student's last edit got its still.
A still superseded by the same student's newer edit (409) is not a loss: the newer one answers.
Everything stops by itself: every request has a timeout, every phase a deadline, servers are
stopped at the end. Only 127.0.0.1 is spoken to. Timing is measured here; tests never assert on time.
"""
import argparse
import json
import logging
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from support.lab_client import post, warmed, get  # noqa: E402

CLIPS = ["causal-mask", "dropout", "multihead"]


def student_edits(clip, rng, kinds=("preset", "cell", "click")):
    """An endless list of a student's edits on `clip`: fields as the page sends them."""
    def matrix(rows, cols):
        return "; ".join(" ".join(str(rng.randint(-3, 3)) for _ in range(cols)) for _ in range(rows))
    presets = {"causal-mask": [{"q": "1 0; 0 1; 1 1", "k": "1 0; 0 1; 1 1", "v": "1 0; 0 1; 1 1", "diagonal": "0"},
                               {"q": "1 0; 0 1; 1 1", "k": "1 0; 0 1; 1 1", "v": "1 0; 0 1; 1 1", "no_causal": True}],
               "dropout": [{"p": "0.2"}, {"mode": "eval"}],
               "multihead": [{"shape": "2,4,12", "heads": "4", "track": "e17"}, {"shape": "1,3,4", "heads": "2"}]}
    while True:
        kind = rng.choice(kinds)
        if clip == "causal-mask":
            base = {"q": matrix(3, 2), "k": matrix(3, 2), "v": matrix(3, 2)}
            if kind == "click":
                base["track"] = str(rng.randint(0, 2))
        elif clip == "dropout":
            a, b = sorted(rng.sample(range(5, 96, 5), 2))
            base = {"weights": f"{a / 100:.2f} {(b - a) / 100:.2f} {(100 - b) / 100:.2f}",
                    "seed": str(rng.randint(0, 10_000)), "p": f"{rng.choice([0.1, 0.3, 0.5, 0.7]):.1f}"}
            if kind == "click":
                base["masks"] = ",".join("".join(rng.choice("01") for _ in range(3)) for _ in range(2))
        else:
            heads = rng.choice([1, 2, 3, 4])
            b, t, d = rng.randint(1, 2), rng.randint(1, 4), heads * rng.randint(1, 12 // heads)
            base = {"shape": f"{b},{t},{d}", "heads": str(heads), "track": f"e{rng.randrange(b * t * d)}"}
        if kind == "preset":
            base = dict(rng.choice(presets[clip]), seed=str(rng.randint(0, 10_000))) if clip == "dropout" else \
                dict(rng.choice(presets[clip]))
        if clip == "causal-mask" and kind == "preset":
            base = dict(base, delta=str(rng.randint(1, 99)))
        if clip == "multihead":                  # its own inputs: the error example's D and H too
            error_heads = rng.randint(2, 4)
            base = dict(base, error_heads=str(error_heads),
                        error_d=str(rng.choice([n for n in range(1, 13) if n % error_heads])))
        yield base


class Student(threading.Thread):
    """Edits every `every` seconds until `until` (or at once when `every` is 0); records each answer."""

    def __init__(self, url, n, every, start, until, seed):
        super().__init__(daemon=True)
        self.url, self.n, self.every, self.start_at, self.until = url, n, every, start, until
        self.clip = CLIPS[n % len(CLIPS)]
        # at full speed (every 0: the pool's capacity) no presets, which students share (their stills drawn once)
        self.edits = student_edits(self.clip, random.Random(seed), ("cell", "click") if not every else
                                   ("preset", "cell", "click"))
        self.numbers, self.stills, self.codes = [], [], []
        self.last_ok = None

    def run(self):
        time.sleep(max(0.0, self.start_at - time.monotonic()))
        while time.monotonic() < self.until:
            began = time.monotonic()
            ask = {"clip": self.clip, "step": 1, "session": f"s{self.n}", "fields": next(self.edits)}
            t = time.monotonic()
            status, _ = post(self.url + "api/compute", ask, timeout=30)
            self.numbers.append(time.monotonic() - t)
            self.codes.append(("numbers", status))
            if status == 200:
                t = time.monotonic()
                status, _ = post(self.url + "api/still", ask, timeout=120)
                self.codes.append(("still", status))
                if status == 200:
                    self.stills.append(time.monotonic() - t)
                self.last_ok = status == 200
            if self.every:
                time.sleep(max(0.0, self.every - (time.monotonic() - began)))


def start_lab(folder, *options):
    proc = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "lab", "--port", "0", "--out", str(folder),
                             *options], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = "http://127.0.0.1:" + proc.stdout.readline().split()[1].split(":")[2].split("/")[0] + "/"
    end = time.monotonic() + 180
    while time.monotonic() < end and not warmed(get(url + "health")[1]):
        time.sleep(0.3)
    return proc, url


def quantile(values, q):
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else (values or [0])[0]


def summary(students, seconds):
    numbers = [x for s in students for x in s.numbers]
    stills = [x for s in students for x in s.stills]
    codes = [c for s in students for c in s.codes]
    medians = [statistics.median(s.stills) for s in students if s.stills]
    return {
        "students": len(students), "seconds": round(seconds, 1),
        "numbers": {"n": len(numbers), "p50_ms": round(1000 * quantile(numbers, 50)),
                    "p95_ms": round(1000 * quantile(numbers, 95)), "max_ms": round(1000 * max(numbers or [0]))},
        "stills": {"n": len(stills), "p50_s": round(quantile(stills, 50), 2), "p95_s": round(quantile(stills, 95), 2),
                   "max_s": round(max(stills or [0]), 2), "per_s": round(len(stills) / seconds, 2)},
        "stills_p50_s_by_clip": {c: round(statistics.median([x for s in students if s.clip == c for x in s.stills]), 2)
                                 for c in CLIPS if any(s.stills for s in students if s.clip == c)},
        "superseded_409": sum(c == 409 for _, c in codes), "busy_429": sum(c == 429 for _, c in codes),
        "5xx": sum((c or 0) >= 500 for _, c in codes), "other_errors": sum(c not in (200, 409, 429) and (c or 0) < 500
                                                                          for _, c in codes),
        "last_edit_answered": sum(bool(s.last_ok) for s in students),
        "student_median_max_over_class_median": round(max(medians) / statistics.median(medians), 2) if medians else None,
        "student_median_max_over_same_clip_median": round(max(
            statistics.median(s.stills) / statistics.median([statistics.median(o.stills) for o in students
                                                              if o.clip == s.clip and o.stills])
            for s in students if s.stills), 2) if medians else None,
    }


def run_class(url, size, every, seconds, seed):
    now = time.monotonic()
    spread = every or 0.0
    students = [Student(url, n, every, now + spread * n / size, now + seconds, seed * 1000 + n) for n in range(size)]
    for s in students:
        s.start()
    for s in students:
        s.join(seconds + spread + 150)
    return summary(students, seconds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--labs", default="workers-1,workers-2,cluster-2")
    parser.add_argument("--sizes", default="30,100")
    parser.add_argument("--every", type=float, default=15.0)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--burst", type=float, default=40.0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "class.json"))
    args = parser.parse_args()
    results = {}
    cluster = None
    for name in args.labs.split(","):
        options = ["--workers", name.split("-")[1]] if name.startswith("workers") else []
        if name.startswith("cluster"):
            from distributed import LocalCluster
            cluster = LocalCluster(n_workers=int(name.split("-")[1]), threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
            options = ["--scheduler", cluster.scheduler_address]
        with tempfile.TemporaryDirectory(prefix="lab-class-") as folder:
            proc, url = start_lab(Path(folder) / "lab", *options)
            try:
                out = {"throughput": run_class(url, 12, 0.0, args.burst, 1)}
                for size in (int(n) for n in args.sizes.split(",") if n):       # --sizes "": the throughput only
                    out[f"class-{size}"] = run_class(url, size, args.every, args.minutes * 60, size)
                results[name] = out
                print(name, json.dumps(out), flush=True)
            finally:
                proc.terminate()
                proc.wait(20)
                if cluster is not None:
                    cluster.close()
                    cluster = None
    if "workers-1" in results and "workers-2" in results:
        one, two = results["workers-1"]["throughput"], results["workers-2"]["throughput"]
        results["two_over_one_stills_per_s"] = round(two["stills"]["per_s"] / one["stills"]["per_s"], 2)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
