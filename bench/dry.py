"""Dry runs and stills (bench/run.py --only dry): each clip's --dry-run and a still of its last
step at 1080p (--format png --step N), wall and CPU seconds, start-up included. With --against
DIR (a checkout of an older commit, sharing this .venv), the same commands run there, each
repeat ours then its, and the median of its time over ours is kept beside ours."""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def dry_and_still(clips, repeats, scratch, timed, summary, stills=True, against=None):
    trees = {"ours": ROOT, **({"against": Path(against).resolve()} if against else {})}
    kinds = ["dry", "still"] if stills else ["dry"]
    out: dict = {kind: {} for kind in kinds}
    for clip in clips:
        runs: dict = {(kind, tree): [] for kind in kinds for tree in trees}
        steps = 0
        for _ in range(repeats):
            for tree, root in trees.items():
                folder = scratch / tree
                dry = [PY, "render.py", clip, "--dry-run", "--out", str(folder / "dry")]
                runs["dry", tree].append(timed(dry, cpu=True, cwd=root))
                if stills:
                    manifest = json.loads((folder / "dry" / f"{clip}.numbers.json").read_text("utf-8"))
                    steps = len(manifest["steps"])
                    still = [PY, "render.py", clip, "--format", "png", "--step", str(steps),
                             "--out", str(folder / "png")]
                    runs["still", tree].append(timed(still, cpu=True, cwd=root))
        for kind in kinds:
            out[kind][clip] = figures(runs[kind, "ours"], summary)
            if kind == "still":
                out[kind][clip]["step"] = steps
            if against:
                theirs, ours = runs[kind, "against"], runs[kind, "ours"]
                out[kind][clip]["against"] = {
                    **figures(theirs, summary),
                    "wall_ratio": round(statistics.median(t[0] / o[0] for t, o in zip(theirs, ours)), 2),
                    "cpu_ratio": round(statistics.median(t[2] / o[2] for t, o in zip(theirs, ours)), 2)}
    return out


def figures(runs, summary):
    """timed()'s (wall, peak MiB, CPU) runs as medians."""
    return {"wall": summary([r[0] for r in runs]), "cpu": summary([r[2] for r in runs])}


def write(path, found, about):
    """Into results.json beside the other figures: dry_and_still, and dry_run_seconds (walls)."""
    results = json.loads(path.read_text()) if path.exists() else {}
    results["dry_and_still"] = {**about, **found}
    results["dry_run_seconds"] = {clip: f["wall"] for clip, f in found["dry"].items()}
    path.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results["dry_and_still"], indent=1))
