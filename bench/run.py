#!/usr/bin/env python3
"""Render-speed benchmark: medians (with min and max) over repeated runs, one JSON.

  .venv/bin/python bench/run.py [--repeats 3] [--qualities low,high] [--out bench/results.json]
  .venv/bin/python bench/run.py --only holds [--holds weighted-average,causal-mask] [--quality high]
  .venv/bin/python bench/run.py --only textcache [--still causal-mask:2]
  .venv/bin/python bench/run.py --only frames [--frames implementation,exercises] [--quality high]
  .venv/bin/python bench/run.py --only dry [--against DIR]     dry runs and last-step stills, every clip
  .venv/bin/python bench/run.py --only split [--split dropout,chapter] [--quality high]   one process vs step jobs
  .venv/bin/python bench/run.py --only speed --against DIR [--clip dropout] [--no-chapter] [--cold]
                                                     today's (DIR) and ours side by side (bench/speed.py)

Measures, on this machine:
  - each clip and the whole chapter: wall time / video duration, at 480p15 and 1080p60;
  - the naive baseline (bench/naive.py): the same grids drawn with Manim's Matrix and
    DecimalNumber, faded in and re-added, against ours (MatrixGrid, glyph-set numbers, Appear);
  - the encode floor: re-encoding a clip's own frames alone (decode+encode minus decode);
  - --dry-run per clip (start-up included) and an unchanged re-render of the chapter;
  - a still of each clip's last step at 1080p (start-up included); --only dry --against DIR
    runs the same commands in another checkout DIR (an older commit) in turn with ours;
  - peak memory (max RSS of the render and its children);
  - holds before/after (scenes/pipeline/video/holds.py): each clip rendered with Manim's per-frame
    holds (HOLDS_MODE=frames) and with ours, one after the other in every repeat;
  - the text cache (bench/caches.py): dry runs and a still with it off, cold and warm;
  - kept glyph paths (bench/caches.py): clips with Manim's path building and with ours.
Timing is measured here only; tests never assert on time.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import av

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
sys.path.insert(0, str(ROOT))
from scenes.pipeline.jobs.registry import specs  # noqa: E402
import caches  # noqa: E402  (bench/caches.py)
import dry  # noqa: E402  (bench/dry.py)
import speed  # noqa: E402  (bench/speed.py)

CLIPS = list(specs())
FIRST = CLIPS[0]          # the encode floor and the naive baseline use the chapter's first clip


def timed(cmd, env=None, cpu=False, cwd=ROOT):
    """Wall seconds and peak RSS (MiB, the process and its children) of one command
    (and, with cpu=True, its user+system CPU seconds); env: variables added to ours."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if status:
        raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.read().decode()[-500:]}")
    if cpu:
        return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024


def duration(path):
    with av.open(str(path)) as box:
        s = box.streams.video[0]
        return float(s.duration * s.time_base)


def summary(values):
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3), "runs": len(values)}


def render_ratios(quality, repeats, scratch):
    """Per clip (one at a time) and the chapter (fresh, two at a time)."""
    out = {}
    for clip in CLIPS:
        ratios, mem = [], []
        for _ in range(repeats):
            folder = Path(tempfile.mkdtemp(dir=scratch))
            wall, rss = timed([PY, "render.py", clip, "--quality", quality, "--out", str(folder)])
            ratios.append(wall / duration(folder / f"{clip}.mp4"))
            mem.append(rss)
        out[clip] = {"ratio": summary(ratios), "peak_mib": round(max(mem))}
    ratios, mem, rerun = [], [], []
    for _ in range(repeats):
        folder = Path(tempfile.mkdtemp(dir=scratch))
        wall, rss = timed([PY, "render.py", "chapter", "--quality", quality, "--out", str(folder)])
        length = duration(folder / "chapter04.mp4")
        ratios.append(wall / length)
        mem.append(rss)
        again, _ = timed([PY, "render.py", "chapter", "--quality", quality, "--out", str(folder)])
        rerun.append(again / length)
    out["chapter"] = {"ratio": summary(ratios), "peak_mib": round(max(mem)),
                      "seconds_of_video": round(length, 2), "unchanged_rerun_ratio": summary(rerun)}
    return out


def encode_floor(video, repeats):
    """Seconds to encode a video's frames alone (decode+encode minus decode), with the
    project's encoder settings; packets are discarded (muxing is not the cost)."""
    from scenes.pipeline.run.runner import ENCODER
    floors = []
    for _ in range(repeats):
        times = []
        for encode in (False, True):
            with av.open(str(video)) as src:
                s = src.streams.video[0]
                ctx = av.CodecContext.create("libx264", "w")
                ctx.width, ctx.height, ctx.pix_fmt = s.width, s.height, "yuv420p"
                ctx.framerate, ctx.time_base = s.average_rate, 1 / s.average_rate
                ctx.options = dict(ENCODER)
                start = time.monotonic()
                for n, frame in enumerate(src.decode(s)):
                    if encode:
                        frame.pts = n
                        ctx.encode(frame)
                if encode:
                    ctx.encode(None)
                times.append(time.monotonic() - start)
        floors.append(times[1] - times[0])
    return statistics.median(floors)


def naive_vs_ours(quality, repeats, scratch):
    """bench/naive.py: the same three grids, Manim's naive way and ours."""
    out = {}
    for scene in ("NaiveGrids", "OurGrids"):
        walls = []
        for _ in range(repeats):
            folder = Path(tempfile.mkdtemp(dir=scratch))
            wall, _ = timed([PY, "bench/naive.py", scene, quality, str(folder)])
            walls.append(wall / duration(next(folder.rglob("*.mp4"))))
        out[scene] = summary(walls)
    out["naive_over_ours"] = round(out["NaiveGrids"]["median"] / out["OurGrids"]["median"], 2)
    return out


def holds_before_after(clips, quality, repeats, scratch):
    """Render time / video duration with Manim's holds (every held frame converted and
    encoded: HOLDS_MODE=frames) and with ours (drawn once, 12 frames encoded, the rest copies),
    the two one after the other in each repeat so that both see the same machine; `speedup`
    is the median of the per-repeat ratios before/after (wall and CPU)."""
    out = {}
    for clip in clips:
        runs = {"frames": [], "copy": []}
        for _ in range(repeats):
            for hold in runs:
                folder = Path(tempfile.mkdtemp(dir=scratch))
                wall, rss, cpu = timed([PY, "render.py", clip, "--quality", quality, "--out", str(folder)],
                                       env={"HOLDS_MODE": hold}, cpu=True)
                length = duration(folder / f"{clip}.mp4")
                runs[hold].append((wall / length, cpu / length, rss))
                shutil.rmtree(folder, ignore_errors=True)
        pairs = list(zip(runs["frames"], runs["copy"]))
        out[clip] = {"seconds_of_video": round(length, 2),
                     "before": {"ratio": summary([r[0] for r in runs["frames"]]),
                                "cpu_ratio": summary([r[1] for r in runs["frames"]]),
                                "peak_mib": round(max(r[2] for r in runs["frames"]))},
                     "after": {"ratio": summary([r[0] for r in runs["copy"]]),
                               "cpu_ratio": summary([r[1] for r in runs["copy"]]),
                               "peak_mib": round(max(r[2] for r in runs["copy"]))},
                     "speedup": round(statistics.median(b[0] / a[0] for b, a in pairs), 2),
                     "cpu_speedup": round(statistics.median(b[1] / a[1] for b, a in pairs), 2)}
    return out


def dry_runs(repeats, scratch):
    found = dry.dry_and_still(CLIPS, repeats, scratch, timed, summary, stills=False)
    return {clip: f["wall"] for clip, f in found["dry"].items()}


def only_caches(args, scratch):
    """--only textcache or --only frames (bench/caches.py)."""
    try:
        if args.only == "textcache":
            clip, step = args.still.split(":")
            return {"dry_run_seconds": caches.dry_runs(CLIPS, args.repeats, scratch, timed),
                    "still": caches.still(clip, int(step), args.quality, args.repeats, scratch, timed)}
        return {"quality": args.quality, "clips": caches.frames(
            args.frames.split(","), args.quality, args.repeats, scratch, timed, duration, encode_floor)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def split_before_after(clips, quality, repeats, scratch):
    """Each clip rendered in one process (STEP_JOBS=off) and as step jobs on every core, one
    after the other in each repeat ("chapter": the chapter both ways). Ratios: wall (and user+system
    CPU) seconds per second of video."""
    out = {}
    for clip in clips:
        runs = {"whole": [], "steps": []}
        for _ in range(repeats):
            for way in runs:
                folder = Path(tempfile.mkdtemp(dir=scratch))
                wall, rss, cpu = timed([PY, "render.py", clip, "--quality", quality, "--out", str(folder)],
                                       env={"STEP_JOBS": "off" if way == "whole" else "on"}, cpu=True)
                length = duration(folder / f"{'chapter04' if clip == 'chapter' else clip}.mp4")
                runs[way].append((wall / length, cpu / length))
                shutil.rmtree(folder, ignore_errors=True)
        out[clip] = {"seconds_of_video": round(length, 2), **{
            way: {"ratio": summary([r[0] for r in got]), "cpu_ratio": summary([r[1] for r in got])}
            for way, got in runs.items()}}
    return out


def machine():
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    import manim
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "manim": manim.__version__, "pyav": av.__version__}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--qualities", default="low,high")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results.json"))
    parser.add_argument("--only", choices=["holds", "textcache", "frames", "dry", "split", "speed"],
                        help="only that measurement, written into --out beside the other figures")
    parser.add_argument("--still", default="causal-mask:2", help="CLIP:STEP of the textcache still")
    parser.add_argument("--frames", default="implementation,exercises", help="clips for --only frames")
    parser.add_argument("--holds", default="weighted-average,causal-mask", help="clips for the holds before/after")
    parser.add_argument("--quality", default="high", help="quality of the holds (and split) before/after")
    parser.add_argument("--split", default="dropout,chapter", help="clips for --only split (chapter: the chapter)")
    parser.add_argument("--against", default=None, help="--only dry, speed: a checkout timed in turn with ours")
    parser.add_argument("--clip", default="dropout", help="--only speed: the clip rendered both ways")
    parser.add_argument("--no-chapter", action="store_true", help="--only speed: the clip only")
    parser.add_argument("--cold", action="store_true", help="--only speed: and a first run in a new checkout")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    scratch = Path(tempfile.mkdtemp(prefix="bench-"))
    if args.only in ("textcache", "frames"):
        part = only_caches(args, scratch)
        path = Path(args.out)
        results = json.loads(path.read_text()) if path.exists() else {}
        results[args.only] = {"date": datetime.date.today().isoformat(), "machine": machine(),
                              "repeats": args.repeats, **part}
        path.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps(results[args.only], indent=1))
        return
    if args.only == "dry":
        try:
            found = dry.dry_and_still(CLIPS, args.repeats, scratch, timed, summary, against=args.against)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        dry.write(Path(args.out), found, {"date": datetime.date.today().isoformat(), "machine": machine(),
                                          "repeats": args.repeats, "against": args.against})
        return
    if args.only == "speed":
        return speed.write(args, scratch, duration, machine())
    if args.only in ("split", "holds"):
        measure = split_before_after if args.only == "split" else holds_before_after
        try:
            found = measure(getattr(args, args.only).split(","), args.quality, args.repeats, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        path = Path(args.out)
        results = json.loads(path.read_text()) if path.exists() else {}
        results.setdefault(args.only, {})[args.quality] = {
            "date": datetime.date.today().isoformat(), "machine": machine(), "repeats": args.repeats,
            "clips": found}
        path.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps(results[args.only][args.quality], indent=1))
        return
    results = {"date": datetime.date.today().isoformat(), "machine": machine(),
               "repeats": args.repeats, "render": {}, "encode_floor": {}, "naive": {}}
    try:
        for quality in args.qualities.split(","):
            print(f"rendering at {quality} ...", file=sys.stderr)
            results["render"][quality] = render_ratios(quality, args.repeats, scratch)
            sample = next(scratch.rglob(f"{FIRST}.mp4"))
            floor = encode_floor(sample, args.repeats)
            clip = results["render"][quality][FIRST]["ratio"]["median"]
            results["encode_floor"][quality] = {
                "clip": FIRST, "floor_ratio": round(floor / duration(sample), 3),
                "render_over_floor": round(clip * duration(sample) / floor, 2)}
            results["naive"][quality] = naive_vs_ours(quality, args.repeats, scratch)
            results.setdefault("holds", {})[quality] = {"clips": holds_before_after(
                args.holds.split(","), quality, args.repeats, scratch)}
            for old in scratch.iterdir():
                shutil.rmtree(old, ignore_errors=True)
            Path(args.out).write_text(json.dumps(results, indent=1) + "\n")   # keep what is done
        results["dry_run_seconds"] = dry_runs(args.repeats, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
