#!/usr/bin/env python3
"""The lab's feedback time: open a clip's page in headless Chromium, change one input, see the
new numbers (the compute package's answer, no frame: the target is a median of at most 150 ms)
and the new still (at most 2 s with a warm worker, 5 s with a fresh one, on this 2-core machine).

  .venv/bin/python bench/lab.py [--repeats 5] [--clip causal-mask] [--out bench/out/lab.json]

Each run times, in the page (window.lab.state()):
  open: browser.get(page) until the still of the default inputs is shown;
  numbers: typing into a cell of Q (each run a different number, so nothing is cached) until the
        numbers panel shows the answer of POST /api/compute (the page waits 80 ms after the last key);
        key_to_numbers: the same in the page's own clock, from its last input event to the panel drawn;
  edit: the same typing until its still is shown (asked for as soon as the numbers are back);
  total = open + edit.
Beside the page, the two answers alone over HTTP on the warm server: POST /api/compute and
POST /api/still (a new Q each time), medians of --requests.
Warm: one server whose worker has drawn a still already (the defaults' still is then cached).
Cold: a fresh server and lab folder each run; the page opens as soon as the worker is ready
(Manim imported, nothing drawn yet); `start` is `render.py lab` to the worker ready.
Medians with [min-max]. Timing is measured here only; tests never assert on time.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from support.lab_client import get, post  # noqa: E402


def server(folder):
    folder.parent.mkdir(parents=True, exist_ok=True)
    log = folder.parent / "server.log"
    proc = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "lab", "--port", "0", "--out", str(folder)],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, cwd=folder.parent)
    began = time.monotonic()
    while not log.read_text().startswith("lab: "):
        time.sleep(0.02)
    url = log.read_text().split()[1]
    while not get(url + "health")[1].get("worker"):
        time.sleep(0.05)
    return proc, url, time.monotonic() - began


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,900", "--no-first-run",
                "--disable-background-networking", f"--user-data-dir={tempfile.mkdtemp(prefix='bench-chromium-')}"]:
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium")
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def wait(driver, check, limit=120):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        s = driver.execute_script("return window.lab ? window.lab.state() : null")
        if s and check(s):
            return s
        time.sleep(0.02)
    raise RuntimeError(f"the still did not come: {s}; page: {driver.page_source[:2000]}")


def one_run(driver, url, clip, q):
    """q: the number typed into Q's row 1, column 1."""
    from selenium.webdriver.common.keys import Keys
    t0 = time.monotonic()
    driver.get(f"{url}clip/{clip}")
    first = wait(driver, lambda s: s["stills"] >= 1 and not s["pending"] and not s["computing"])
    assert first["error"] is None, first
    t1 = time.monotonic()
    field = driver.find_element("id", "f-q-1-1")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(q)
    s = wait(driver, lambda s: s["computed"] >= 2 and not s["computing"])
    t_numbers = time.monotonic()
    in_page = (s["computedAt"] - s["editedAt"]) / 1000          # the last key to the numbers shown
    s = wait(driver, lambda s: s["stills"] >= 2 and not s["pending"] and s["still"] != first["still"])
    assert s["error"] is None, s
    t2 = time.monotonic()
    return {"open": t1 - t0, "numbers": t_numbers - t1, "key_to_numbers": in_page, "edit": t2 - t1, "total": t2 - t0}


def answers(url, clip, endpoint, values):
    """Seconds of each POST /api/ENDPOINT with Q's row 1 set to (v, v): the server's answer alone."""
    out = []
    for v in values:
        start = time.monotonic()
        status, body = post(f"{url}api/{endpoint}", {"clip": clip, "fields": {"q": f"1 0; {v} {v}; 1 1"}},
                            timeout=120)
        out.append(time.monotonic() - start)
        assert status == 200, body
    return out


def summary(runs, key):
    values = [r[key] for r in runs]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--clip", default="causal-mask")
    ap.add_argument("--requests", type=int, default=20, help="POST /api/compute answers timed (stills: a quarter)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "lab.json"))
    args = ap.parse_args()
    queries = [f"{0.5 * (n + 3):g}" for n in range(2 * args.repeats + 1)]   # a new Q each run
    driver = browser()
    work = Path(tempfile.mkdtemp(prefix="bench-lab-"))
    results = {"clip": args.clip, "repeats": args.repeats, "cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    try:
        proc, url, _ = server(work / "warm" / "lab")
        try:
            one_run(driver, url, args.clip, queries.pop())               # the worker's first still
            warm = [one_run(driver, url, args.clip, queries.pop()) for _ in range(args.repeats)]
            answers(url, args.clip, "compute", [-1])                       # the first answer imports nothing more
            compute = answers(url, args.clip, "compute", [0.01 * (n + 1) for n in range(args.requests)])
            still = answers(url, args.clip, "still", [-0.01 * (n + 1) for n in range(max(3, args.requests // 4))])
        finally:
            proc.terminate()
            proc.wait()
        cold = []
        for n in range(args.repeats):
            proc, url, start = server(work / f"cold{n}" / "lab")
            try:
                cold.append(dict(one_run(driver, url, args.clip, queries.pop()), start=start))
            finally:
                proc.terminate()
                proc.wait()
    except Exception:
        for log in sorted(work.glob("*/server.log")):         # what the servers said
            print(log, log.read_text()[-3000:], sep="\n", file=sys.stderr)
        raise
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    results["warm"] = {k: summary(warm, k) for k in ("open", "numbers", "key_to_numbers", "edit", "total")}
    results["cold"] = {k: summary(cold, k) for k in ("open", "numbers", "edit", "total", "start")}
    results["answers"] = {"compute": summary([{"t": t} for t in compute], "t"),
                          "still": summary([{"t": t} for t in still], "t")}
    results["runs"] = {"warm": warm, "cold": cold, "compute": compute, "still": still}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(f"| {args.clip}, medians of {args.repeats} [min-max], s | open | change Q → numbers | "
          "change Q → new still | total |")
    print("|---|---|---|---|---|")
    for name in ("warm", "cold"):
        cells = [f"{r['median']:.2f} [{r['min']:.2f}–{r['max']:.2f}]" for r in
                 (results[name][k] for k in ("open", "numbers", "edit", "total"))]
        print(f"| {name} worker | " + " | ".join(cells) + " |")
    k = results["warm"]["key_to_numbers"]
    print(f"\nwarm, in the page: last key to the numbers shown, median {1000 * k['median']:.0f} ms "
          f"[{1000 * k['min']:.0f}–{1000 * k['max']:.0f}] (80 ms of it the page's wait for the next key)", end="")
    for name, n in (("compute", len(compute)), ("still", len(still))):
        r = results["answers"][name]
        print(f"\nPOST /api/{name}, warm server, a new Q each ({n}): median {1000 * r['median']:.0f} ms "
              f"[{1000 * r['min']:.0f}–{1000 * r['max']:.0f}]", end="")
    print()
    s = results["cold"]["start"]
    print(f"\n`render.py lab` to the worker ready (cold): {s['median']:.2f} s [{s['min']:.2f}–{s['max']:.2f}]; "
          f"load average at the start {results['load']:.2f}")


if __name__ == "__main__":
    main()
