"""The lab's recording page as a lecturer meets it: the real server process, the page in
headless Chromium with its fake microphone (--use-fake-device-for-media-stream
--use-fake-ui-for-media-stream, playing a steady tone), two steps recorded with MediaRecorder,
saved where `--voice DIR` reads them, the clip rendered with them through the page, and the
mp4's audio track read back with PyAV: each recorded step lasts max(planned, take + tail), its
sound is the take, the others are silent and keep their length. Hostile uploads (climbing in
the set, clip or step, a 10 MB body, a wrong type, bytes that are not audio) get a 4xx and
write nothing."""
import json
import time
import urllib.error
import urllib.request

import av
import numpy as np
import pytest

from support.browser import page_state as browser_state, wait_for as wait
from conftest import build
from support.lab_client import FAKE_MIC, get, lab_server, outside_files, post, too_large, write_tone
from scenes.kit.text.style import VOICE_TAIL

CLIP = "weighted-average"                # six steps of 8-15 s; a 144p render takes seconds
FRAME = 1 / 5                            # the tiny render's frame
LONGER = 1.2                             # step 1's take outlasts its planned length by this


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    yield from lab_server(tmp_path_factory)


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    tone = tmp_path_factory.mktemp("fake-mic") / "tone.wav"
    write_tone(tone, 120.0)
    return chromium(size=(1300, 900), extra=[*FAKE_MIC, f"--use-file-for-fake-audio-capture={tone}"])


def page_state(driver):
    return browser_state(driver, "recorder")


def wait_for(driver, check, seconds=90):
    return wait(driver, "recorder", check, seconds)


def record(driver, n, seconds):
    """Record, wait, stop: the take of step n, uploaded."""
    row = driver.find_element("css selector", f'.step[data-id="{CLIP}-{n}"]')
    row.find_element("css selector", ".rec").click()
    wait_for(driver, lambda s: s["recording"] == f"{CLIP}-{n}", 10)
    time.sleep(seconds)
    row.find_element("css selector", ".stop").click()
    return wait_for(driver, lambda s: s["recording"] is None and not s["clips"][0]["steps"][n - 1].get("saving")
                    and s["clips"][0]["steps"][n - 1]["take"] is not None, 30)


def decoded_seconds(path):
    """A file's sound length from its decoded samples (the test's own reading)."""
    with av.open(str(path)) as box:
        frames = list(box.decode(audio=0))
    return sum(f.samples for f in frames) / frames[0].sample_rate


def sound_spans(mp4, window=0.02, gap=0.1, level=0.02):
    """The mp4's audio track as [(start, end)] of sound, gaps under `gap` s closed. The tone is
    steady, so a gap is a silence between takes; the shortest is the tail less a frame's rounding
    (0.4 - 0.2 s), which a wider `gap` would close, joining two steps' sound into one."""
    with av.open(str(mp4)) as box:
        assert box.streams.audio and box.streams.audio[0].codec_context.name == "aac"
        frames = list(box.decode(audio=0))
    rate = frames[0].sample_rate
    samples = np.concatenate([np.abs(f.to_ndarray()).max(axis=0) for f in frames])
    n = int(rate * window)
    loud = samples[: len(samples) // n * n].reshape(-1, n).max(axis=1) > level
    spans = []
    for i in np.flatnonzero(loud):
        t = i * window
        if spans and t - spans[-1][1] <= gap:
            spans[-1][1] = t + window
        else:
            spans.append([t, t + window])
    return [tuple(s) for s in spans]


def voiced_problems(steps, planned, takes, spans):
    """What breaks `--voice DIR`'s rule: a recorded step lasts at least its take + the tail (and
    no longer, here, where the take outlasts the plan), its sound starts with the step and lasts
    the take; a step without a take keeps its planned length, silent."""
    problems = []
    for n, (step, plan) in enumerate(zip(steps, planned), 1):
        length = step["end"] - step["start"]
        want = max(plan, takes[n] + VOICE_TAIL) if n in takes else plan
        if not want - FRAME - 0.05 <= length <= want + FRAME + 0.05:
            problems.append(f"step {n} lasts {length:.2f} s, not {want:.2f} s")
        heard = [(a, b) for a, b in spans if step["start"] - 0.1 <= a < step["end"]]
        if n in takes and not (len(heard) == 1 and abs(heard[0][0] - step["start"]) < 0.15
                               and abs(heard[0][1] - heard[0][0] - takes[n]) < 0.25):
            problems.append(f"step {n}: sound {heard}, not its {takes[n]:.2f} s take from {step['start']:.2f} s")
        if n not in takes and heard:
            problems.append(f"step {n} has no take but sounds: {heard}")
    return problems


def test_two_steps_recorded_in_the_browser_set_their_lengths_in_the_video(lab, browser, tmp_path, tiny_render):
    from selenium.webdriver.support.ui import Select
    url, folder, root = lab
    before = outside_files(root, folder)
    browser.get(f"{url}clip/{CLIP}")                          # the clip's lab page links to it
    browser.find_element("id", "record").click()
    s = wait_for(browser, lambda s: s["clips"] and s["folder"])
    assert browser.current_url.startswith(f"{url}record/{CLIP}?")  # with the page's (the book's) inputs
    steps = s["clips"][0]["steps"]
    narration = build(CLIP).scene.narration                   # the dry build's own narration
    shown = browser.execute_script("return [...document.querySelectorAll('.narration')].map(d => d.textContent)")
    assert shown == [narration[n] for n in range(1, len(steps) + 1)]
    planned = [st["planned"] for st in steps]

    record(browser, 1, planned[0] + LONGER)                   # longer than planned: the step grows
    s = record(browser, 2, 1.5)                               # shorter: the step keeps its length
    takes_folder = folder / "voice" / "zh" / CLIP
    assert s["folder"] == str(takes_folder.parent)
    assert sorted(p.name for p in takes_folder.iterdir()) == ["01.webm", "02.webm"]
    takes = {n: decoded_seconds(takes_folder / f"{n:02d}.webm") for n in (1, 2)}
    assert takes[1] + VOICE_TAIL > planned[0] + 0.5 and takes[2] < planned[1] - 2
    for n in (1, 2):
        assert abs(s["clips"][0]["steps"][n - 1]["take"] - takes[n]) < 0.01
    grows = browser.execute_script("return [...document.querySelectorAll('.step')].map(d => !!d.querySelector('.grows'))")
    assert grows == [True] + [False] * (len(steps) - 1)

    Select(browser.find_element("id", "quality")).select_by_value("tiny")
    browser.find_element("id", "render").click()
    s = wait_for(browser, lambda s: s["job"] and s["job"]["state"] in ("done", "failed", "cancelled"), 240)
    assert s["job"]["state"] == "done", s["job"]
    mp4 = tmp_path / "voiced.mp4"
    with urllib.request.urlopen(url + s["job"]["files"]["mp4"].lstrip("/"), timeout=60) as r:
        mp4.write_bytes(r.read())
    with urllib.request.urlopen(url + s["job"]["files"]["numbers.json"].lstrip("/"), timeout=60) as r:
        voiced = json.loads(r.read())["steps"]
    spans = sound_spans(mp4)
    # The page plans from a dry run (exact times); a 5 fps render rounds each animation up to whole
    # frames, so a step whose animations outlast its reading time ends a few frames later. The
    # video is checked against the same render without takes, the page's plan against that.
    silent = json.loads((tiny_render(CLIP) / f"{CLIP}.numbers.json").read_text("utf-8"))["steps"]
    at_tiny = [st["end"] - st["start"] for st in silent]
    assert all(abs(a - b) < 1.0 for a, b in zip(at_tiny, planned)), (at_tiny, planned)
    assert voiced_problems(voiced, at_tiny, takes, spans) == []
    assert outside_files(root, folder) == before

    # planted bugs: the same check on the plan without the takes, and on sound a step late
    unvoiced = [{"start": sum(at_tiny[:i]), "end": sum(at_tiny[:i + 1])} for i in range(len(at_tiny))]
    assert any(p.startswith("step 1 lasts") for p in voiced_problems(unvoiced, at_tiny, takes, spans))
    late = [(a + voiced[1]["start"] - voiced[0]["start"], b + voiced[1]["start"] - voiced[0]["start"])
            for a, b in spans]
    assert any(p.startswith("step 1: sound") for p in voiced_problems(voiced, at_tiny, takes, late))


def webm_tone(path, seconds=1.0, rate=48000):
    """A real webm (Opus) take made here with PyAV."""
    box = av.open(str(path), "w", format="webm")
    stream = box.add_stream("libopus", rate=rate)
    stream.layout = "mono"
    x = (0.3 * np.sin(2 * np.pi * 440 * np.arange(int(seconds * rate)) / rate)).astype("float32")
    for i in range(0, len(x), 960):
        frame = av.AudioFrame.from_ndarray(x[None, i:i + 960], format="flt", layout="mono")
        frame.sample_rate = rate
        for packet in stream.encode(frame):
            box.mux(packet)
    for packet in stream.encode():
        box.mux(packet)
    box.close()
    return path.read_bytes()


def put(url, path, body, ctype="audio/webm"):
    request = urllib.request.Request(url + path.lstrip("/"), data=body, method="PUT",
                                     headers={"Content-Type": ctype} if ctype else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def snapshot(folder):
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and "voice" in p.relative_to(folder).parts}


def test_hostile_uploads_get_a_4xx_and_write_nothing(lab, tmp_path):
    url, folder, root = lab
    assert post(url + "api/script", {"clip": CLIP})[1]["set"] == "zh"     # the set the page opens
    good = webm_tone(tmp_path / "take.webm")
    before, takes = outside_files(root, folder), snapshot(folder)
    climbs = ["..%2f..%2f..%2fetc", "..", "%2e%2e", "zh%2f..", "zh-..%2f..%2f00", "de", "zh-00000000000g",
              "zh-000000000000"]
    for path in ([f"/api/takes/{c}/{CLIP}/3" for c in climbs] +
                 [f"/api/takes/zh/{c}/3" for c in climbs + ["causal-mask", "no-such-clip", CLIP.upper()]] +
                 [f"/api/takes/zh/{CLIP}/{c}" for c in climbs + ["0", "7", "99", "-1", "1e1", "03.webm", "%EF%BC%93", "%203"]] +
                 [f"/api/takes/zh/{CLIP}/3/..%2f..%2fx", f"/api/takes/zh/{CLIP}/../../3"]):
        status, body = put(url, path, good)
        assert 400 <= status < 500, (path, status, body)
    address = f"/api/takes/zh/{CLIP}/3"
    for ctype in ["text/plain", "application/json", "audio/wav", "video/webm", "multipart/form-data; boundary=x",
                  "application/x-www-form-urlencoded", None]:
        assert put(url, address, good, ctype)[0] == 415, ctype
    assert put(url, address, b"not audio at all" * 100)[0] == 422
    assert put(url, address, good, "audio/ogg")[0] == 422                  # webm bytes called ogg
    assert put(url, address, good[:200])[0] == 422                         # cut off before any sound
    assert put(url, address, b"")[0] == 400
    assert too_large(url, chunked=True, path=address, ctype="audio/webm") == 413      # 10 MB
    assert too_large(url, chunked=False, path=address, ctype="audio/webm") in (413, "closed")
    assert get(url + address.lstrip("/"))[0] == 404                         # no take there
    assert get(url + "health")[0] == 200
    assert outside_files(root, folder) == before and snapshot(folder) == takes

    status, body = put(url, address, good)                    # the same take, well addressed: saved
    assert status == 200 and abs(body["seconds"] - decoded_seconds(tmp_path / "take.webm")) < 0.01
    assert set(snapshot(folder)) - set(takes) == {folder / "voice" / "zh" / CLIP / "03.webm"}
    with urllib.request.urlopen(url + address.lstrip("/"), timeout=60) as r:
        assert r.headers["Content-Type"] == "audio/webm" and r.read() == good
