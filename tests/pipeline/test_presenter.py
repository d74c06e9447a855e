"""The presenter page in a real browser (Debian's Chromium, headless, driven by Selenium with
the system chromedriver; nothing downloaded): keys step through the tiny chapter offline,
each step's video plays and holds at its end, back/jump/captions/speaker work, no request
leaves the page's folder and the console stays clean. A screenshot is kept."""
import json
import shutil
import time
from pathlib import Path

import pytest

from support.browser import page_state as browser_state, wait_for as wait
from scenes.pipeline.jobs.registry import specs



@pytest.fixture(scope="module")
def browser(chromium):
    return chromium(size=(1280, 760), logs=True)


def state(driver):
    return browser_state(driver, "presenter")


def press(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains
    for key in keys:
        ActionChains(driver).send_keys(key).perform()
        time.sleep(0.15)


def wait_until(driver, check, seconds=20):
    return wait(driver, "presenter", check, seconds)


def test_the_chapter_page_steps_through_every_section_offline(browser, tiny_chapter, tmp_path):
    from selenium.webdriver.common.keys import Keys
    page = tiny_chapter / "chapter04.html"
    browser.get(page.as_uri())
    sections = json.loads((tiny_chapter / "chapter04.chapters.json").read_text("utf-8"))
    total = len(sections) + sum(len(json.loads((tiny_chapter / f"{s['clip']}.numbers.json")
                                                .read_text("utf-8"))["steps"]) for s in sections)
    first = wait_until(browser, lambda s: s["time"] > 0.2)          # the title card plays
    assert first["index"] == 0 and first["steps"] == total and first["src"].startswith(".titles/")
    done = wait_until(browser, lambda s: s["ended"])                # and holds on its last frame
    assert done["paused"] and abs(done["time"] - done["duration"]) < 0.25

    press(browser, Keys.ARROW_RIGHT)                                # → the first step of 4.1
    s = wait_until(browser, lambda s: s["index"] == 1 and s["time"] > 0.2 and not s["paused"])
    clip = next(iter(specs()))
    assert s["src"].startswith(f"{clip}.sections/")
    press(browser, " ")                                             # Space while playing: to its end
    s = wait_until(browser, lambda s: s["paused"])
    assert s["index"] == 1 and s["time"] > s["duration"] - 0.25
    press(browser, Keys.PAGE_DOWN)                                  # a clicker's PageDown: step 2
    wait_until(browser, lambda s: s["index"] == 2)
    press(browser, Keys.PAGE_UP)                                    # back: step 1 shown at its end
    s = wait_until(browser, lambda s: s["index"] == 1 and s["duration"] > 0)
    assert s["paused"] and s["time"] > s["duration"] - 0.25

    assert state(browser)["captions"] == "hidden"                   # the frame shows the caption already
    press(browser, "c")                                             # the text track on and off
    assert state(browser)["captions"] == "showing"
    press(browser, "c")
    assert state(browser)["captions"] == "hidden"
    press(browser, "3")                                             # the third section's title card
    third = sum(1 + len(json.loads((tiny_chapter / f"{s['clip']}.numbers.json").read_text("utf-8"))["steps"])
                for s in sections[:2])
    s = wait_until(browser, lambda s: s["index"] == third)
    assert s["src"] == f".titles/{sections[2]['clip']}.mp4"
    press(browser, "g", "2", Keys.ENTER)                            # G 2 Enter: the second section
    second = 1 + len(json.loads((tiny_chapter / f"{sections[0]['clip']}.numbers.json").read_text("utf-8"))["steps"])
    wait_until(browser, lambda s: s["index"] == second)
    press(browser, Keys.END)
    wait_until(browser, lambda s: s["index"] == total - 1)
    press(browser, "r")                                             # replay the last step
    wait_until(browser, lambda s: s["index"] == total - 1 and not s["paused"] and s["time"] < s["duration"])
    press(browser, Keys.HOME)
    wait_until(browser, lambda s: s["index"] == 0)

    wait_until(browser, lambda s: s["ended"])
    press(browser, "s")                                             # the speaker view, in sync
    assert state(browser)["speaker"]
    main = browser.current_window_handle
    browser.switch_to.window(next(h for h in browser.window_handles if h != main))
    press(browser, Keys.ARROW_RIGHT)                                # keys work in the speaker window too
    browser.switch_to.window(main)
    wait_until(browser, lambda s: s["index"] == 1)
    notes = browser.execute_script(
        "const d = window.presenter.speaker().document;"
        "return [d.getElementById('now').textContent, d.getElementById('next').textContent,"
        " d.getElementById('clock').textContent]")
    steps = json.loads((tiny_chapter / f"{clip}.numbers.json").read_text("utf-8"))["steps"]
    assert notes[0] == steps[0]["caption"] and notes[1] == steps[1]["caption"] and notes[2]

    shot = Path(tmp_path / "presenter.png")
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000

    folder = tiny_chapter.resolve().as_uri()
    requests = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = [m["params"]["request"]["url"] for m in requests if m["method"] == "Network.requestWillBeSent"]
    urls = [u for u in urls if not u.startswith(("chrome:", "chrome-search:"))]   # the browser's own pages
    outside = [u for u in urls if not (u.startswith(folder) or u.startswith(("data:", "blob:", "about:")))]
    assert urls and outside == []
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []


def test_a_clip_page_with_one_file_embeds_its_videos(browser, tmp_path):
    from conftest import cli
    clip = "multihead" if "multihead" in specs() else next(iter(specs()))
    code, out = cli(clip, "--quality", "tiny", "--sections", "--one-file", "--out", str(tmp_path / "o"))
    assert code == 0, out
    page = tmp_path / "o" / f"{clip}.html"
    alone = tmp_path / "mailed" / page.name                          # the page alone, elsewhere
    alone.parent.mkdir()
    shutil.copy(page, alone)
    browser.get(alone.as_uri())
    s = wait_until(browser, lambda s: s["time"] > 0.2)
    assert s["src"].startswith("data:video/mp4;base64,")
