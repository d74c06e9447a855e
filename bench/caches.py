"""The text cache and the kept glyph paths, measured (bench/run.py --only textcache, --only frames).

textcache: each clip's --dry-run with the text cache off, cold (an empty cache folder) and
  warm (the folder the cold run filled), one after the other in every repeat; a still
  (--format png --step N) the same three ways, its PNGs compared pixel for pixel.
frames: clips rendered with Manim's own path building (DRAW_CACHE=off) and with kept paths,
  one after the other in every repeat; wall and CPU ratios, the encode floor beside them,
  and the two mp4s decoded and compared frame by frame.
Ratios are medians of the per-repeat ratios, so both sides of a ratio saw the same machine.
"""
import shutil
import statistics
import tempfile
from pathlib import Path

import av
import numpy as np
from PIL import Image

PY = ".venv/bin/python"


def summary(values):
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3), "runs": len(values)}


def ratio(over, under):
    return round(statistics.median(a / b for a, b in zip(over, under)), 2)


def three_ways(cmd, repeats, scratch, timed, keep=None):
    """Wall seconds of cmd with the text cache off, cold and warm, in each repeat; keep(out, way)
    is called with each run's output folder before it is removed."""
    runs = {"off": [], "cold": [], "warm": []}
    for _ in range(repeats):
        cache = Path(tempfile.mkdtemp(dir=scratch))
        for way in runs:
            out = Path(tempfile.mkdtemp(dir=scratch))
            env = {"TEXT_CACHE": "off"} if way == "off" else {"TEXT_CACHE_DIR": str(cache)}
            runs[way].append(timed([*cmd, "--out", str(out)], env=env)[0])
            if keep:
                keep(out, way)
            shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    return {**{way: summary(v) for way, v in runs.items()},
            "off_over_warm": ratio(runs["off"], runs["warm"]), "cold_over_warm": ratio(runs["cold"], runs["warm"])}


def dry_runs(clips, repeats, scratch, timed):
    return {clip: three_ways([PY, "render.py", clip, "--dry-run"], repeats, scratch, timed) for clip in clips}


def still(clip, step, quality, repeats, scratch, timed):
    pngs = {}

    def keep(out, way):
        pngs[way] = np.asarray(Image.open(next(out.glob("*.png"))))
    out = three_ways([PY, "render.py", clip, "--format", "png", "--step", str(step), "--quality", quality],
                     repeats, scratch, timed, keep)
    out.update(clip=clip, step=step, quality=quality,
               png_identical=all(np.array_equal(pngs["off"], pngs[w]) for w in ("cold", "warm")))
    return out


def decoded(path):
    with av.open(str(path)) as box:
        for frame in box.decode(video=0):
            yield frame.to_ndarray(format="rgb24")


def frames(clips, quality, repeats, scratch, timed, duration, floor):
    """Kept glyph paths (scenes/kit/text/drawcache.py) against Manim's own, per clip."""
    out = {}
    for clip in clips:
        runs, last = {"off": [], "on": []}, {}
        for _ in range(repeats):
            for way in runs:
                folder = Path(tempfile.mkdtemp(dir=scratch))
                wall, rss, cpu = timed([PY, "render.py", clip, "--quality", quality, "--out", str(folder)],
                                       env={"DRAW_CACHE": way}, cpu=True)
                runs[way].append((wall, cpu))
                if way in last:
                    shutil.rmtree(last[way], ignore_errors=True)
                last[way] = folder
        videos = [last[w] / f"{clip}.mp4" for w in ("off", "on")]
        length = duration(videos[1])
        count = differing = 0
        for a, b in zip(decoded(videos[0]), decoded(videos[1])):      # streamed: 6 MB a frame
            count, differing = count + 1, differing + (not np.array_equal(a, b))
        enc = floor(videos[1], 1)
        out[clip] = {
            "seconds_of_video": round(length, 2),
            "off": {"ratio": summary([w / length for w, _ in runs["off"]]),
                    "cpu_ratio": summary([c / length for _, c in runs["off"]])},
            "on": {"ratio": summary([w / length for w, _ in runs["on"]]),
                   "cpu_ratio": summary([c / length for _, c in runs["on"]])},
            "speedup": ratio([w for w, _ in runs["off"]], [w for w, _ in runs["on"]]),
            "cpu_speedup": ratio([c for _, c in runs["off"]], [c for _, c in runs["on"]]),
            "encode_floor_ratio": round(enc / length, 3),
            "on_over_floor": round(statistics.median(w for w, _ in runs["on"]) / enc, 2),
            "frames": count, "frames_differing": differing,
            "mp4_bytes_equal": videos[0].read_bytes() == videos[1].read_bytes()}
        for folder in last.values():
            shutil.rmtree(folder, ignore_errors=True)
    return out
