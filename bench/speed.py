"""Today's way and the new, side by side in one run (bench/run.py --only speed --against DIR):

  - a clip (dropout) at 1080p60: `render.py dropout` in DIR (an older checkout sharing this
    .venv) and here, in turn: wall and user+system CPU seconds per second of video;
  - the same clip here with Manim's encoder (OVERLAP=off: each play joined at its end) and ours;
  - the chapter at 1080p60 (`render.py chapter`), DIR's and ours, into fresh folders: wall, CPU,
    and the idle core-seconds at its end (the cores no render process used, from the last moment
    every core had one to the last render's end: render processes counted every 0.2 s);
  - with --cold, `bash run.sh chapter` in a new checkout of this commit with no .cache (cold,
    the .venv linked) and then again into a fresh folder (warm).

Every pair runs one after the other, so that both see the same load (uptime before and after
is kept: this machine is shared)."""
import datetime
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RENDERS = ("render.py", "scenes.pipeline.run.steps")


def load() -> list[float]:
    """The load averages (1, 5, 15 minutes)."""
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def warm(root, quality, scratch):
    """Every clip's dry run at `quality` in `root` (its text, TeX and compute caches filled, its
    files read once), so that neither side of a pair pays a first run."""
    from scenes.pipeline.jobs.registry import specs
    for clip in specs():
        subprocess.run([sys.executable, "render.py", clip, "--dry-run", "--quality", quality, "--out",
                        str(scratch / "warm")], cwd=root, check=True, capture_output=True)


def packets(path):
    import av
    with av.open(str(path)) as box:
        return [bytes(p) for p in box.demux(video=0) if p.size]


def differences(ours, theirs, joined="chapter04.mp4"):
    """What differs between two chapter folders: manifests, subtitles, scripts, step videos and
    title cards byte for byte, the joined chapter's video packets (the html pages name their folder)."""
    found = []
    for mine in sorted(ours.rglob("*")):
        rel = mine.relative_to(ours)
        if (not mine.is_file() or rel.parts[0].startswith((".stamps", ".course")) or mine.suffix == ".html"
                or mine.name == joined):
            continue
        other = theirs / rel
        if not other.exists() or other.read_bytes() != mine.read_bytes():
            found.append(str(rel))
    if packets(ours / joined) != packets(theirs / joined):
        found.append(f"{joined} (video packets)")
    return found


def renders_under(pid: int) -> int:
    """Render processes (render.py or a step job) below `pid`, the chapter's own not counted."""
    children: dict[int, list[int]] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = 0, list(children.get(pid, []))
    while todo:
        p = todo.pop()
        found += any(r in commands.get(p, "") for r in RENDERS)
        todo += children.get(p, [])
    return found


def run_counted(cmd, cwd, cores, env=None):
    """Wall and user+system CPU seconds of `cmd`, and its idle core-seconds at the end."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    samples: list[tuple[float, int]] = []
    stop = threading.Event()

    def watch():
        while not stop.wait(0.2):
            samples.append((time.monotonic() - start, renders_under(proc.pid)))
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    stop.set()
    watcher.join()
    if status:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {proc.stderr.read().decode()[-800:]}")
    return wall, usage.ru_utime + usage.ru_stime, idle_at_end(samples, cores)


def idle_at_end(samples, cores):
    """Core-seconds without a render from the last sample with every core busy to the last with any."""
    busy = [t for t, n in samples if n >= cores]
    working = [t for t, n in samples if n > 0]
    if not working:
        return 0.0
    begin = busy[-1] if busy else working[0]
    idle, last = 0.0, begin
    for t, n in samples:
        if begin < t <= working[-1]:
            idle += (t - last) * max(0, cores - n)
            last = t
    return round(idle, 1)


def side_by_side(against, quality, scratch, duration, cores, clip="dropout", chapter=True, cold=False,
                 save=lambda found: None):
    """The chapter, the clip, the clip's encoder both ways, the first run: each part saved as it is done."""
    out: dict = {"load_before": load()}
    trees = {"today": Path(against).resolve(), "new": ROOT}
    common = ["--quality", quality]
    for root in trees.values():
        warm(root, quality, scratch)
    if chapter:
        for tree, root in trees.items():
            folder = scratch / f"chapter-{tree}"
            wall, cpu, idle = run_counted([sys.executable, "render.py", "chapter", *common, "--out", str(folder)],
                                          root, cores)
            length = duration(folder / "chapter04.mp4")
            out.setdefault("chapter", {"seconds_of_video": round(length, 2)})[tree] = {
                "wall": round(wall, 1), "cpu": round(cpu, 1), "wall_ratio": round(wall / length, 3),
                "cpu_per_second": round(cpu / length, 3), "idle_core_seconds_at_end": idle, "load_after": load()}
        ours, theirs = out["chapter"]["new"], out["chapter"]["today"]
        out["chapter"]["wall_new_over_today"] = round(ours["wall"] / theirs["wall"], 3)
        out["chapter"]["cpu_new_over_today"] = round(ours["cpu"] / theirs["cpu"], 3)
        out["chapter"]["differences"] = differences(scratch / "chapter-new", scratch / "chapter-today")
        save(out)
    for tree, root in trees.items():
        folder = scratch / f"{clip}-{tree}"
        wall, cpu, _ = run_counted([sys.executable, "render.py", clip, *common, "--out", str(folder)], root, cores)
        length = duration(folder / f"{clip}.mp4")
        out.setdefault("clip", {"name": clip, "seconds_of_video": round(length, 2)})[tree] = {
            "wall_ratio": round(wall / length, 3), "cpu_per_second": round(cpu / length, 3),
            "wall": round(wall, 1), "cpu": round(cpu, 1), "load_after": load()}
    out["clip"]["wall_new_over_today"] = round(out["clip"]["new"]["wall"] / out["clip"]["today"]["wall"], 3)
    out["clip"]["cpu_new_over_today"] = round(out["clip"]["new"]["cpu"] / out["clip"]["today"]["cpu"], 3)
    out["clip"]["differences"] = differences(scratch / f"{clip}-new", scratch / f"{clip}-today", f"{clip}.mp4")
    save(out)
    for way in ("off", "on"):
        folder = scratch / f"{clip}-overlap-{way}"
        wall, cpu, _ = run_counted([sys.executable, "render.py", clip, *common, "--out", str(folder)], ROOT, cores,
                                   env={"OVERLAP": way})
        length = duration(folder / f"{clip}.mp4")
        out.setdefault("overlap", {})[way] = {"wall": round(wall, 1), "cpu": round(cpu, 1),
                                              "wall_ratio": round(wall / length, 3), "load_after": load()}
    out["overlap"]["differences"] = differences(scratch / f"{clip}-overlap-on", scratch / f"{clip}-overlap-off",
                                                f"{clip}.mp4")
    save(out)
    if cold:
        out["first_run"] = first_run(scratch, duration, cores)
        out["load_after_first_run"] = load()
    return out


def first_run(scratch, duration, cores):
    """`bash run.sh chapter` in a new checkout (no .cache), then again into a fresh folder."""
    import hashlib
    want = hashlib.sha256((ROOT / "requirements.txt").read_bytes() + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if (ROOT / ".venv" / ".requirements.sha256").read_text().strip() != want:
        return {"skipped": "the shared .venv was set up from other requirements (run.sh would install into it)"}
    clone = scratch / "clone"
    subprocess.run(["git", "worktree", "add", "--detach", str(clone), "HEAD"], cwd=ROOT, check=True,
                   capture_output=True)
    try:
        os.symlink(ROOT / ".venv", clone / ".venv")
        out = {}
        for run in ("cold", "warm"):
            wall, cpu, idle = run_counted(["bash", "run.sh", "chapter", "--out", str(scratch / f"first-{run}")],
                                          clone, cores)
            length = duration(scratch / f"first-{run}" / "chapter04.mp4")
            out[run] = {"wall": round(wall, 1), "cpu": round(cpu, 1), "wall_ratio": round(wall / length, 3),
                        "idle_core_seconds_at_end": idle}
        out["cold_over_warm"] = round(out["cold"]["wall"] / out["warm"]["wall"], 3)
        return out
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(clone)], cwd=ROOT, capture_output=True)


def write(args, scratch, duration, machine):
    """--only speed: side_by_side into --out's "speed" (the cores: as many renders as the chapter runs)."""
    from scenes.pipeline.run.executor import job_count
    path = Path(args.out)
    begun = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="minutes")

    def save(found):
        results = json.loads(path.read_text()) if path.exists() else {}
        results["speed"] = {"date": begun, "machine": machine, "quality": args.quality,
                            "against": args.against, **found}
        path.write_text(json.dumps(results, indent=1) + "\n")
        return results["speed"]
    try:
        found = side_by_side(args.against, args.quality, scratch, duration, job_count(), args.clip,
                             not args.no_chapter, args.cold, save)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(save(found), indent=1))
