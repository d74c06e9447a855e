"""The lab for a class: stills on a pool of warm workers (a worker killed mid-still: its still is
drawn again, another page's arrives unaffected), every page in turn (one page's burst of edits
delays another page's edit by at most one still a worker), the class code beyond loopback (over
HTTP and in Chromium: a student who opens the address works on), stills and videos on a dask
cluster, and
the faults a network found mended: a cancel while a video starts, a lone surrogate in a request,
sockets that stall half-way through a request line. Each mend beside its fault planted back
(tests/support/plants: the same server process with the old code)."""
import asyncio
import io
import os
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from scenes.pipeline.lab.door import HEADER_SECONDS
from scenes.pipeline.lab.jobs import Job, Store
from scenes.pipeline.lab.work import videos as pool_of_videos
from scenes.pipeline.lab.work.queue import Stills
from support.browser import wait_for as wait
from support.lab_client import get, lab_server, post

CLIP = "causal-mask"


def edit(n):
    """A page's edit: the tracked query's row changed (each n its own still)."""
    return {"clip": CLIP, "step": 1, "fields": {"q": f"1 0; 0 1; {n} 1"}}


# every page in turn ------------------------------------------------------------------------------

def burst_delay(tmp_path, capacity=2):
    """One page sends twenty edits at once, then another page one: how many stills the pool takes
    after the other page's edit arrives and before its own (a stand-in pool of `capacity`
    workers), and what the burst's edits were answered."""
    async def go():
        started = []

        class Workers:
            async def draw(self, request, folder):
                started.append(request["n"])
                await asyncio.sleep(0.01)
                return {"drawn": request["n"]}
        Workers.capacity = capacity
        stills = Stills(Workers(), Store(tmp_path, 10 ** 9))
        burst = [asyncio.create_task(stills.get(f"{n:032x}", {"n": n}, "a", made=None)) for n in range(20)]
        await asyncio.sleep(0)
        arrived = stills.served                                 # taken from the queue by then
        other = asyncio.create_task(stills.get(f"{99:032x}", {"n": 99}, "b", made=None))
        answers = await asyncio.gather(*burst)
        await other
        return started.index(99) - arrived, answers
    return asyncio.run(go())


def test_a_burst_of_one_page_delays_another_page_by_at_most_one_still_a_worker(tmp_path, monkeypatch):
    delay, answers = burst_delay(tmp_path)
    assert delay <= 2
    assert answers[-1] == {"drawn": 19}                         # the burst's last edit is drawn
    assert all(a == {"superseded": True} for a in answers[2:-1])   # its older waiting ones gave way
    # planted: every edit queued (a newer edit does not take its own older one's place)
    monkeypatch.setattr(Stills, "leave", lambda self, session, key: None)
    assert burst_delay(tmp_path)[0] > 2


# a pool of warm workers --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    yield from lab_server(tmp_path_factory, "--workers", "2")


def kill_mid_still(url):
    """Two pages' stills at once on two workers, one worker killed as they draw: each page's answer."""
    pids = [w["pid"] for w in get(url + "health")[1]["workers"]]
    assert len(pids) == 2 and all(pids)
    answers = {}

    def ask(page, n):
        answers[page] = post(url + "api/still", dict(edit(n), session=page), timeout=200)
    threads = [threading.Thread(target=ask, args=(page, n)) for page, n in (("a", 7), ("b", 8))]
    for t in threads:
        t.start()
    end = time.monotonic() + 30
    while get(url + "health")[1]["stills"] < 2 and time.monotonic() < end:
        time.sleep(0.02)
    time.sleep(0.15)                                          # both drawing
    os.kill(pids[0], signal.SIGKILL)
    for t in threads:
        t.join(200)
    return answers, pids[0]


def test_a_worker_killed_mid_still_is_redrawn_and_the_other_still_arrives(pair, tmp_path_factory):
    url, folder, _ = pair
    answers, killed = kill_mid_still(url)
    assert {page: status for page, (status, _) in answers.items()} == {"a": 200, "b": 200}, answers
    for _, body in answers.values():
        with urllib.request.urlopen(url + body["png"].lstrip("/"), timeout=30) as r:
            assert r.headers["Content-Type"] == "image/png" and len(r.read()) > 10_000
    end = time.monotonic() + 60
    while time.monotonic() < end:                             # that worker alone, restarted
        pids = [w["pid"] for w in get(url + "health")[1]["workers"]]
        if all(pids) and killed not in pids:
            break
        time.sleep(0.3)
    assert len(pids) == 2 and all(pids) and killed not in pids
    # planted: a worker's request reported when its worker dies, not drawn again
    for url_, _, _ in lab_server(tmp_path_factory, "--workers", "2", plant="one-try"):
        answers, _ = kill_mid_still(url_)
        assert sorted(status for status, _ in answers.values()) == [200, 500], answers


# the class code --------------------------------------------------------------------------------

def door_problems(url, code):
    """What a lab beyond loopback lets through without its code, or keeps out with it."""
    def ask(path, cookie=None, body=None):
        request = urllib.request.Request(url + path, data=body, headers={
            "Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, r.headers.get_all("Set-Cookie") or []
        except urllib.error.HTTPError as err:
            return err.code, []
    compute = b'{"clip": "causal-mask"}'
    problems = []
    for path, body in (("", None), (f"clip/{CLIP}", None), ("api/compute", compute), ("api/still", compute)):
        if ask(path, body=body)[0] != 403:
            problems.append(f"/{path} without the code: not 403")
        if ask(path + "?code=wrong-code", body=body)[0] != 403:
            problems.append(f"/{path} with a wrong code: not 403")
    if ask("health")[0] != 200:
        problems.append("/health is not open")
    status, cookies = ask(f"?code={code}")
    if status != 200 or not any(c.startswith(f"lab_code={code}") and "HttpOnly" in c and "SameSite=Strict" in c
                                for c in cookies):
        problems.append(f"the code in the address: {status}, cookie {cookies}")
    if ask("api/compute", cookie=f"lab_code={code}", body=compute)[0] != 200:
        problems.append("the cookie does not open the API")
    return problems


def test_a_lab_beyond_loopback_asks_for_its_class_code(pair, tmp_path_factory, chromium):
    lines = []
    for url, _, _ in lab_server(tmp_path_factory, "--host", "0.0.0.0", "--code", "blue-lion-42", "--workers", "1",
                                seen=lines):
        assert "/?code=blue-lion-42 " in lines[0]
        assert door_problems(url, "blue-lion-42") == []
        browser = chromium(size=(1300, 900))                  # a student opens the address, then a clip
        browser.get(url + "clip/causal-mask")
        assert "class code" in browser.page_source
        browser.get(url + "?code=blue-lion-42")
        browser.get(url + "clip/causal-mask")
        state = wait(browser, "lab", lambda s: s["stills"] >= 1 and not s["pending"] and not s["computing"], 90)
        assert state["error"] is None and state["numbers"]
    for url, _, _ in lab_server(tmp_path_factory, "--host", "0.0.0.0", "--workers", "1", warm=False, seen=lines):
        code = lines[1].split("?code=")[1].split()[0]            # a new code, printed in the address
        assert len(code) >= 8 and door_problems(url, code) == []
    # planted: no code asked (the loopback lab's door, which is rightly open)
    assert "/ without the code: not 403" in door_problems(pair[0], "blue-lion-42")


# faults a network finds -------------------------------------------------------------------------

def surrogate_answers(url):
    """A lone UTF-16 surrogate as an option's name and as an option's value, to every JSON route."""
    bodies = [b'{"clip": "causal-mask", "fields": {"\\ud800": "1"}}',
              b'{"clip": "causal-mask", "fields": {"track": "\\udfff"}}',
              b'{"clip": "causal-mask", "session": "\\ud83d"}']
    out = []
    for route in ("api/compute", "api/still", "api/video", "api/script"):
        for body in bodies:
            status, answer = post(url + route, raw=body)
            out.append((route, status, answer.get("field"), answer.get("error", "")))
    return out


def test_a_lone_surrogate_anywhere_is_a_400_naming_its_field(pair, tmp_path_factory):
    for route, status, field, error in surrogate_answers(pair[0]):
        assert status == 400 and "text only" in error, (route, status, error)
        assert field in ("\\ud800", "track", "session"), (route, field)
    for url, _, _ in lab_server(tmp_path_factory, "--workers", "1", plant="any-text", warm=False):
        assert any(status == 500 for _, status, _, _ in surrogate_answers(url))


def status_of(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code
    except (urllib.error.URLError, OSError):
        return None


def stalled_lab_answers(url, sockets=300, wait=True):
    """`sockets` connections that send half a request line and stall: whether /health and an edit
    answer meanwhile, and (`wait`) how many the lab closes after its header limit."""
    port = int(url.rsplit(":", 1)[1].strip("/"))
    stalled = []
    try:
        for _ in range(sockets):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /hea")
            stalled.append(s)
        time.sleep(0.5)
        health = status_of(url + "health")
        numbers = post(url + "api/compute", edit(3), timeout=10)[0]
        time.sleep(HEADER_SECONDS + 2 if wait else 0)
        closed = 0
        for s in stalled:
            s.settimeout(0.01)
            try:
                closed += s.recv(1) == b""
            except ConnectionResetError:
                closed += 1
            except OSError:
                pass
        return health, numbers, closed
    finally:
        for s in stalled:
            s.close()


def test_stalled_sockets_never_lock_the_class_out(pair, tmp_path_factory):
    assert stalled_lab_answers(pair[0]) == (200, 200, 300)
    for url, _, _ in lab_server(tmp_path_factory, "--workers", "1", plant="no-deadline", warm=False):
        health, numbers, _ = stalled_lab_answers(url, wait=False)
        assert (health, numbers) != (200, 200)


def cancelled_while_starting(tmp_path, delay):
    """A video cancelled `delay` s after it was asked for, its process taking 0.1 s to start: the
    process left running (its pid) or None, and whether its slot is free."""
    async def go():
        procs = []

        async def slow_start(*args, **kwargs):
            await asyncio.sleep(0.1)
            proc = await asyncio.subprocess.create_subprocess_exec(
                "sleep", "30", start_new_session=True, stdin=asyncio.subprocess.DEVNULL)
            procs.append(proc)
            return proc

        class Workers:
            capacity = 1

            async def draw(self, request, folder):
                return {"plays": 3}
        store = Store(tmp_path / f"lab-{delay}", 10 ** 9)
        videos = pool_of_videos.Videos(store, Stills(Workers(), store), 1)
        real = pool_of_videos.asyncio.create_subprocess_exec
        pool_of_videos.asyncio.create_subprocess_exec = slow_start
        try:
            job = videos.submit(Job(f"{int(delay * 1000):032x}", CLIP, "zh", "tiny", {}, []), "a")
            await asyncio.sleep(delay)
            await videos.cancel(job.key)
            end = time.monotonic() + 5
            while videos.running and time.monotonic() < end:
                await asyncio.sleep(0.05)
        finally:
            pool_of_videos.asyncio.create_subprocess_exec = real
        alive = [p.pid for p in procs if p.returncode is None]
        for pid in alive:
            os.killpg(pid, signal.SIGKILL)
        return (alive or [None])[0], not videos.running and job.state == "cancelled"
    return asyncio.run(go())


def test_a_cancel_at_any_moment_of_a_videos_start_stops_it(tmp_path, monkeypatch):
    for delay in (0.0, 0.02, 0.05, 0.09, 0.15):
        assert cancelled_while_starting(tmp_path, delay) == (None, True), delay
    # planted: the cancel only kills a process it can already see
    monkeypatch.setattr(pool_of_videos.Videos, "started", lambda self, job: None)
    alive, free = cancelled_while_starting(tmp_path, 0.02)
    assert alive is not None and not free


def hours_of_silence(path, hours=1.0):
    """An Ogg Opus take of `hours` of silence (one packet muxed again and again: seconds to make,
    about a megabyte an hour)."""
    import av
    import numpy as np
    with av.open(str(path), "w", format="ogg") as box:
        stream = box.add_stream("libopus", rate=48000, layout="mono")
        frame = av.AudioFrame.from_ndarray(np.zeros((1, 960 * 10), dtype=np.int16), format="s16", layout="mono")
        frame.rate = 48000
        packet = list(stream.encode(frame))[3]
        for n in range(int(hours * 3600 * 50)):
            again = av.Packet(bytes(packet))
            again.pts = again.dts = n * 960
            again.time_base, again.stream = packet.time_base, stream
            box.mux(again)
    return path.read_bytes()


def take_refused_while_health_waits(url, take):
    """PUT a long take while /health is asked every 50 ms: the take's answer and /health's longest wait."""
    assert post(url + "api/script", {"clip": CLIP}, timeout=120)[0] == 200          # the set the page records
    waits, stop = [], threading.Event()

    def health():
        while not stop.is_set():
            t = time.monotonic()
            status_of(url + "health")
            waits.append(time.monotonic() - t)
            time.sleep(0.05)
    watcher = threading.Thread(target=health)
    watcher.start()
    try:
        request = urllib.request.Request(url + f"api/takes/zh/{CLIP}/1", data=take, method="PUT",
                                         headers={"Content-Type": "audio/ogg"})
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                answer = r.status, r.read()
        except urllib.error.HTTPError as err:
            answer = err.code, err.read()
        time.sleep(0.2)
    finally:
        stop.set()
        watcher.join()
    return answer, max(waits)


def test_a_take_of_hours_is_refused_without_holding_up_the_lab(pair, tmp_path, tmp_path_factory):
    take = hours_of_silence(tmp_path / "hours.ogg", hours=2.0)
    (status, body), longest = take_refused_while_health_waits(pair[0], take)
    assert status == 422 and b"at most 300 s" in body and longest < 1.0, (status, body, longest)
    # planted: the take decoded whole inside the server's loop
    for url, _, _ in lab_server(tmp_path_factory, "--workers", "1", plant="take-in-loop"):
        (status, body), longest = take_refused_while_health_waits(url, take)
        assert status == 422 and longest > 1.0, longest


# a dask cluster -----------------------------------------------------------------------------------

def test_a_two_worker_cluster_draws_on_both_its_stills_equal_the_local_ones_and_it_renders_videos(pair, tmp_path_factory):
    import logging
    import numpy as np
    from PIL import Image
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        for url, _, _ in lab_server(tmp_path_factory, "--scheduler", cluster.scheduler_address):
            answers = {}

            def ask(n):
                answers[n] = post(url + "api/still", dict(edit(n), session=f"p{n}"), timeout=200)
            threads = [threading.Thread(target=ask, args=(n,)) for n in range(10, 16)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(200)
            workers = get(url + "health")[1]["workers"]
            assert len(workers) == 2 and all(w["drawn"] > 0 for w in workers), workers
            for n, (status, body) in answers.items():
                assert status == 200, body
                here_status, here = post(pair[0] + "api/still", dict(edit(n), session="local"), timeout=200)
                assert here_status == 200
                pictures = []
                for base, answer in ((url, body), (pair[0], here)):
                    with urllib.request.urlopen(base + answer["png"].lstrip("/"), timeout=30) as r:
                        pictures.append(np.asarray(Image.open(r).convert("RGB")))
                assert np.array_equal(*pictures), n
                assert body["numbers"] == here["numbers"]
            video_on_the_cluster(url)


def cluster_renders():
    """render.py processes the cluster's workers run for the lab's videos (their folders lab-video-*)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and b"lab-video-" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def video_on_the_cluster(url):
    """A tiny video rendered on a dask worker comes back whole and plays; one cancelled mid-render
    leaves no render behind."""
    import av
    status, job = post(url + "api/video", {"clip": CLIP, "quality": "tiny", "session": "v"})
    assert status == 202
    end = time.monotonic() + 180
    while job["state"] not in ("done", "failed") and time.monotonic() < end:
        time.sleep(0.5)
        job = get(url + f"api/jobs/{job['key']}")[1]
    assert job["state"] == "done", job
    with urllib.request.urlopen(url + job["files"]["mp4"].lstrip("/"), timeout=30) as r:
        data = io.BytesIO(r.read())
    with av.open(data) as box:
        assert sum(1 for _ in box.decode(video=0)) > 10
    status, other = post(url + "api/video", {"clip": "dropout", "quality": "tiny", "session": "v"})
    end = time.monotonic() + 60
    while not cluster_renders() and time.monotonic() < end:
        time.sleep(0.2)
    assert cluster_renders()
    assert post(url + f"api/jobs/{other['key']}/cancel", raw=b"")[1]["state"] == "cancelled"
    end = time.monotonic() + 10
    while cluster_renders() and time.monotonic() < end:
        time.sleep(0.2)
    assert cluster_renders() == []


if sys.platform != "linux":                                   # process groups, /proc
    pytestmark = pytest.mark.skip("linux only")
