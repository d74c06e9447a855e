"""The lab (render.py lab) as a user meets it: the real server process on a free localhost port,
its causal-mask page in headless Chromium (Debian's chromium and chromedriver, through
Selenium): a number typed into a cell of Q changes the numbers panel at once (the compute
package's answer, agreeing with the torch oracle), then the still and the numbers it draws; a bad
cell shows the CLI's one-line message beside its grid, marks the cell and renders nothing; a
video renders through the page (progress to 100%, played, its duration read back with PyAV). Hostile requests over plain HTTP get a 4xx and write nothing outside the
lab's folder; 20 requests at once queue while the health check keeps answering."""
import http.client
import json
import math
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from support.browser import page_state as browser_state, wait_for as wait
from conftest import inputs_for, probe
from scenes.kit.text.lang import has_cjk
from scenes.pipeline.jobs.inputs import InputError, check, raw_inputs
from support.causal_mask_oracle import oracle
from support.lab_client import get, key_folders, lab_server, outside_files, post, raw_get, too_large

CLIP = "causal-mask"
NEW_Q = "1 0; 2 0; 1 1"                 # the tracked query (row 1) becomes (2, 0)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    yield from lab_server(tmp_path_factory)


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium(size=(1300, 900))


def lab_state(driver):
    return browser_state(driver, "lab")


def wait_for(driver, check, seconds=60):
    return wait(driver, "lab", check, seconds)


def type_into(driver, element_id, text):
    from selenium.webdriver.common.keys import Keys
    field = driver.find_element("id", element_id)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text)


def shown_numbers(driver, table="numbers"):
    return dict(driver.execute_script(
        f"return [...document.querySelectorAll('#{table} tr')].map(r => [r.dataset.label, r.cells[1].textContent])"))


def disagreeing(numbers, expected):
    return [(label, numbers[label], expected[label]) for label in numbers
            if label in expected and not agrees(numbers[label], expected[label])]


def agrees(text, value):
    """A drawn text agrees with the oracle's value at the precision it is drawn with."""
    if callable(value):                     # the oracle's "rounding noise" rule
        return value(float(text.replace("\u2212", "-")))
    t = text.replace("\u2212", "-").replace(",", "")
    if t == "NaN":
        return math.isnan(value)
    if t.endswith("\u221e"):
        return math.isinf(value) and (value < 0) == t.startswith("-")
    mantissa, _, exp = t.partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return abs(float(t) - value) <= 0.5 * 10 ** (int(exp or 0) - decimals) * (1 + 1e-9) + 1e-12


def test_a_cell_of_q_changes_the_numbers_at_once_then_the_still_and_a_bad_cell_renders_nothing(lab, browser, tmp_path):
    url, folder, _ = lab
    browser.get(f"{url}clip/{CLIP}")
    first = wait_for(browser, lambda s: s["stills"] >= 1 and not s["pending"] and not s["computing"])
    assert first["error"] is None and first["numbers"] and first["computed"] == 1
    assert disagreeing(shown_numbers(browser), oracle(inputs_for(CLIP))) == []

    type_into(browser, "f-q-1-0", "2")                      # Q's row 1, column 0: (0, 1) -> (2, 1)
    wanted = "1 0; 2 1; 1 1"
    s = wait_for(browser, lambda s: s["computed"] >= 2 and not s["computing"], 10)
    assert s["error"] is None
    numbers = shown_numbers(browser)
    expected = oracle(inputs_for(CLIP, q=wanted))
    compared = [label for label in numbers if label in expected]
    assert len(compared) == len(numbers) >= 30
    assert disagreeing(numbers, expected) == []
    assert numbers != {n["label"]: n["text"] for n in first["numbers"]}     # the numbers did change
    assert s["command"] == f"python render.py {CLIP} --q '{wanted}'"

    s = wait_for(browser, lambda s: s["stills"] >= 2 and not s["pending"] and s["still"] != first["still"])
    good = s["still"]
    assert s["computedAt"] < s["drawnAt"]                   # the numbers came before the still
    drawn = shown_numbers(browser, "drawn")
    assert len(drawn) >= 10 and disagreeing(drawn, expected) == [] and all(label in expected for label in drawn)
    assert browser.execute_script("const i = document.getElementById('still'); return i.complete && i.naturalWidth") == 854

    shot = tmp_path / "lab.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000

    rendered, stills = key_folders(folder), s["stills"]
    type_into(browser, "f-q-0-1", "x")                      # not a number
    s = wait_for(browser, lambda s: s["error"] and not s["computing"], 10)
    with pytest.raises(InputError) as refused:
        check(CLIP, raw_inputs(CLIP, None, {"q": "1 x; 2 1; 1 1"}))
    message = browser.find_element("css selector", '.field[data-key="q"] .err').text
    assert message == str(refused.value) and "\n" not in message and s["field"] == "q" and s["cell"] == [0, 1]
    assert "bad" in browser.find_element("id", "f-q-0-1").get_attribute("class")
    time.sleep(1.0)
    s = lab_state(browser)
    assert s["still"] == good and s["stills"] == stills and not s["pending"]    # the last good still stays
    assert key_folders(folder) == rendered                                      # nothing rendered


def test_a_matrix_grows_and_shrinks_within_the_rules(lab, browser):
    url, _, _ = lab
    browser.get(f"{url}clip/{CLIP}")
    wait_for(browser, lambda s: s["computed"] >= 1 and not s["computing"])
    for grid in ("q", "k", "v"):
        browser.find_element("id", f"addrow-{grid}").click()
    s = wait_for(browser, lambda s: s["computed"] >= 2 and not s["computing"] and not s["error"], 10)
    assert "weights[3][3]" in {n["label"] for n in s["numbers"]}
    browser.find_element("id", "addcol-k").click()          # K wider than Q: the clip's rule, beside K
    s = wait_for(browser, lambda s: s["error"] and not s["computing"], 10)
    assert s["field"] == "k" and "as wide as --q" in s["error"]
    for _ in range(8):
        browser.find_element("id", "droprow-v").click() if browser.find_element("id", "droprow-v").is_enabled() else None
    assert not browser.find_element("id", "droprow-v").is_enabled()          # one row at least
    assert len(browser.find_elements("css selector", "#cells-v tr")) == 1


def test_a_video_renders_through_the_page_and_plays(lab, browser):
    from selenium.webdriver.support.ui import Select
    url, folder, _ = lab
    browser.get(f"{url}clip/{CLIP}?q={NEW_Q.replace(' ', '%20')}")
    wait_for(browser, lambda s: s["stills"] >= 1 and not s["pending"])
    Select(browser.find_element("id", "quality")).select_by_value("tiny")
    browser.find_element("id", "render").click()
    seen = []
    end = time.monotonic() + 150
    while time.monotonic() < end:
        job = lab_state(browser)["job"]
        if job:
            seen.append(job["progress"])
            if job["state"] in ("done", "failed", "cancelled"):
                break
        time.sleep(0.2)
    assert job["state"] == "done", job
    assert seen[-1] == 1.0 and sorted(seen) == seen           # the bar only moves forward, to 100%
    played = None
    for _ in range(100):
        played = browser.execute_script("const v = document.getElementById('video');"
                                        "return [v.readyState, v.duration, v.currentTime]")
        if played[0] >= 2 and played[2] > 0:
            break
        time.sleep(0.1)
    assert played[0] >= 2 and played[2] > 0, played
    links = browser.execute_script("return [...document.querySelectorAll('#links a')].map(a => a.href)")
    assert [link.rsplit("/", 1)[1] for link in links] == ["mp4", "srt", "numbers.json", "script.md"]
    mp4 = folder / "played.mp4"
    with urllib.request.urlopen(links[0], timeout=60) as r:
        mp4.write_bytes(r.read())
    with urllib.request.urlopen(links[2], timeout=60) as r:
        steps = json.loads(r.read())["steps"]
    mp4_seconds = probe(mp4)["duration"]
    mp4.unlink()
    assert abs(mp4_seconds - steps[-1]["end"]) < 0.5 and abs(played[1] - mp4_seconds) < 0.5


def test_hostile_requests_get_a_4xx_and_write_nothing_outside_the_lab(lab):
    url, folder, root = lab
    api = url + "api/still"
    before_outside, before_keys = outside_files(root, folder), key_folders(folder)
    climb = "../../../../../etc/passwd"
    from scenes.pipeline.jobs.registry import spec
    for opt, where in ((o, w) for o in spec(CLIP).options for w in (api, url + "api/compute")):
        status, body = post(where, {"clip": CLIP, "fields": {opt.key: True if not opt.flag else climb}})
        assert status in (400, 422), (opt.name, status, body)
        status, body = post(where, {"clip": CLIP, "fields": {opt.key: climb if not opt.flag else "yes"}})
        assert status in (400, 422) and body["error"], (opt.name, status, body)
    for bad in [{"clip": climb}, {"clip": CLIP, "lang": climb}, {"clip": CLIP, "step": climb},
                {"clip": CLIP, "step": 0}, {"clip": CLIP, "session": climb}, {"clip": CLIP, "fields": {climb: "1"}},
                {"clip": CLIP, "fields": {"no-such-option": "1"}}, {"clip": CLIP, "fields": [climb]}, [CLIP]]:
        status, body = post(api, bad)
        assert status in (400, 404) and body["error"], (bad, status, body)
    assert post(url + "api/video", {"clip": CLIP, "quality": climb})[0] == 400
    assert post(url + "api/video", {"clip": CLIP, "quality": "4k"})[0] == 400
    assert post(api, raw=b'{"clip": "causal-mask", "fields": {')[0] == 400            # malformed JSON
    assert post(api, raw=b'\xff\xfe{}')[0] == 400
    assert post(api, raw=b"clip=causal-mask&q=1", ctype="application/x-www-form-urlencoded")[0] == 415
    assert post(api, raw=b"--x\r\n", ctype="multipart/form-data; boundary=x")[0] == 415
    assert too_large(url, chunked=True) == 413                                          # 10 MB
    assert too_large(url, chunked=False) in (413, "closed")
    some = next(iter(before_keys), "0" * 32)
    for path in ["/files/../../../etc/passwd", f"/files/{some}/..%2f..%2fmeta.json", f"/files/{some}/meta.json",
                 f"/files/{some}/render.log", "/files/" + "0" * 32 + "/png", "/files/%2e%2e/png",
                 "/api/jobs/..%2f..%2f", "/clip/..%2f..%2frender", "/clip/no-such-clip", "/api/still"]:
        assert 400 <= raw_get(url, path) < 500, path
    host, port = url.split("//")[1].strip("/").split(":")
    rebound = http.client.HTTPConnection(host, int(port), timeout=10)
    rebound.request("GET", "/health", headers={"Host": f"evil.example:{port}"})      # DNS rebinding
    assert rebound.getresponse().status == 400
    rebound.close()
    assert get(url + "health")[0] == 200
    assert outside_files(root, folder) == before_outside and key_folders(folder) == before_keys


def test_twenty_requests_at_once_queue_while_the_health_check_answers(lab):
    url, folder, root = lab
    before_outside = outside_files(root, folder)
    stop, latencies, failures = threading.Event(), [], []

    def health():
        while not stop.is_set():
            start = time.monotonic()
            if get(url + "health", timeout=5)[0] != 200:
                failures.append(time.monotonic())
            latencies.append(time.monotonic() - start)
            time.sleep(0.02)
    watcher = threading.Thread(target=health)
    watcher.start()
    try:
        keys = twenty_at_once(url)
    finally:
        stop.set()
        watcher.join()
    assert failures == [] and latencies and max(latencies) < 2.0
    assert not any((folder / k).exists() for k in keys)
    assert outside_files(root, folder) == before_outside


def twenty_at_once(url):
    """Twenty video requests at once from twenty pages (ten inputs, each twice: identical requests
    share one render), a page's third waiting video refused, a client that leaves an event stream
    mid-render, then every render cancelled."""
    answers = [None] * 20

    def ask(n):
        answers[n] = post(url + "api/video", {"clip": CLIP, "quality": "tiny", "session": f"s{n}",
                                              "fields": {"delta": str(n % 10 + 1)}})
    threads = [threading.Thread(target=ask, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert all(status == 202 for status, _ in answers), answers
    keys = {body["key"] for _, body in answers}
    assert len(keys) == 10
    now = get(url + "health")[1]
    assert (now["queued"], now["running"]) == (9, 1)
    positions = sorted(get(f"{url}api/jobs/{k}")[1]["position"] or 0 for k in keys)
    assert positions == list(range(10))                   # the running one has none, then 1..9
    mine = [post(url + "api/video", {"clip": CLIP, "quality": "tiny", "session": "one",
                                     "fields": {"delta": str(d)}})[0] for d in (11, 12, 13)]
    assert mine == [202, 202, 429]                        # at most two waiting a page
    for d in (11, 12):
        key = post(url + "api/video", {"clip": CLIP, "quality": "tiny", "session": "one", "fields": {"delta": str(d)}})[1]["key"]
        assert post(f"{url}api/jobs/{key}/cancel", raw=b"")[1]["state"] == "cancelled"

    stream = http.client.HTTPConnection(*url.split("//")[1].strip("/").split(":"), timeout=10)
    stream.request("GET", f"/api/jobs/{next(iter(keys))}/events")
    assert stream.getresponse().readline().startswith(b"data: ")
    stream.close()                                        # a client that leaves mid-render
    for k in keys:
        assert post(f"{url}api/jobs/{k}/cancel", raw=b"")[1]["state"] == "cancelled"
    end = time.monotonic() + 20
    while get(url + "health")[1]["running"] and time.monotonic() < end:
        time.sleep(0.2)
    now = get(url + "health")[1]
    assert (now["queued"], now["running"]) == (0, 0)
    return keys


def test_a_still_in_english_and_a_worker_that_dies_is_replaced(lab):
    url, folder, _ = lab
    status, health = get(url + "health")
    os.kill(health["worker"], 9)                          # the still worker crashes
    status, body = post(url + "api/still", {"clip": CLIP, "lang": "en", "step": 2, "fields": {"q": NEW_Q}},
                        timeout=120)
    assert status == 200, body
    assert body["caption"] and not has_cjk(body["caption"]) and len(body["steps"]) == 2
    assert get(url + "health")[1]["worker"] not in (None, health["worker"])
    with urllib.request.urlopen(url + body["png"].lstrip("/"), timeout=60) as r:
        assert r.headers["Content-Type"] == "image/png" and len(r.read()) > 10_000


def test_the_lab_folder_keeps_its_cap_oldest_first(tmp_path):
    from scenes.pipeline.lab.jobs import Store
    store = Store(tmp_path, cap_bytes=2500)
    for n in range(4):
        key = f"{n:032x}"
        (tmp_path / key).mkdir()
        (tmp_path / key / "causal-mask.png").write_bytes(b"x" * 1000)
        store.register(key, CLIP, "zh", "still")
        os.utime(tmp_path / key, (1000 + n, 1000 + n))
    removed = store.trim(busy={f"{0:032x}"})              # the oldest is in use: the next ones go
    assert removed == [f"{1:032x}", f"{2:032x}"]
    assert key_folders(tmp_path) == {f"{0:032x}", f"{3:032x}"}
    assert store.file(f"{3:032x}", "png") and store.file(f"{1:032x}", "png") is None
    assert store.file("../" + f"{3:032x}", "png") is None and store.file(f"{3:032x}", "meta.json") is None
    assert Path(store.root) == tmp_path.resolve()


def test_the_presenter_links_each_section_to_its_lab_page(lab):
    from scenes.pipeline.present.presenter import LAB, lab_link
    from scenes.pipeline.jobs.registry import specs
    url = lab[0]
    for spec in specs().values():
        for lang in ("zh", "en"):
            link = lab_link(spec.section, lang)
            assert link.startswith(LAB + "/clip/" + spec.name)
            with urllib.request.urlopen(url + link[len(LAB) + 1:], timeout=60) as r:      # the same page on the test's port
                page = r.read().decode("utf-8")
            assert r.status == 200 and spec.heading(lang) in page
