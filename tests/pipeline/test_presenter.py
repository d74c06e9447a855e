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
    paused_on(browser, 0)                                            # its numbers explain themselves too
    k = explain_state(browser)
    assert k["attached"] and browser.execute_script("return steps[0].explain.items.length") > 0


# -- a number of the paused frame explains itself (explain.js over explain.py's notes)

def explain_state(driver):
    return driver.execute_script("return Explain.state()")


def paused_on(driver, index):
    """Step `index` of the page shown at its end, as ← shows it; its numbers' boxes attached."""
    driver.execute_script("show(arguments[0], true)", index)
    wait_until(driver, lambda s: s["index"] == index and s["paused"] and (s["duration"] or 0) > 0
               and s["time"] > s["duration"] - 0.05)              # (duration is NaN, null, until loaded)
    end = time.monotonic() + 10
    while not explain_state(driver)["attached"]:
        assert time.monotonic() < end, "no boxes over the paused frame"
        time.sleep(0.1)


def chapter_index(folder, clip, step):
    """The page's step index of CLIP's step (from 1): every section opens with its title card."""
    index = 0
    for s in json.loads((folder / "chapter04.chapters.json").read_text("utf-8")):
        if s["clip"] == clip:
            return index + step
        index += 1 + len(json.loads((folder / f"{s['clip']}.numbers.json").read_text("utf-8"))["steps"])
    raise KeyError(clip)


def layout_numbers(manifest, step):
    return [it for it in manifest["layout"][step - 1]["items"] if it.get("kind") == "number"]


def click_box(driver, box, click=True):
    """A click (or only the pointer moved there) at the middle of a layout box (frame units),
    mapped onto the picture the page shows."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    left, top, right, bottom = explain_state(driver)["picture"]
    w, h = FRAME
    x = left + ((box[0] + box[2]) / 2 + w / 2) / w * (right - left)
    y = top + (h / 2 - (box[1] + box[3]) / 2) / h * (bottom - top)
    builder = ActionBuilder(driver)
    builder.pointer_action.move_to_location(int(round(x)), int(round(y)))
    if click:
        builder.pointer_action.click()
    builder.perform()
    time.sleep(0.2)


FRAME = (14.222222222222221, 8.0)


def outlined(driver, manifest, step):
    """The layout items of the step whose boxes the page outlines as sources, read from the
    page's pixels: each outlined rectangle mapped back to frame units and matched to a box."""
    s = explain_state(driver)
    left, top, right, bottom = s["picture"]
    w, h = manifest["frame"]["width"], manifest["frame"]["height"]
    items = layout_numbers(manifest, step)
    found = []
    for r in s["lit"]:
        box = [(r[0] - left) / (right - left) * w - w / 2, h / 2 - (r[3] - top) / (bottom - top) * h,
               (r[2] - left) / (right - left) * w - w / 2, h / 2 - (r[1] - top) / (bottom - top) * h]
        near = [it for it in items if max(abs(a - b) for a, b in zip(it["box"], box)) < 0.05]
        found.append((near[0]["label"], near[0]["box"]) if near else ("?", box))
    return sorted(found, key=str)


def sources_in_frame(manifest, step, label):
    rec = next(r for r in manifest["numbers"] if r["label"] == label and "from" in r) \
        if any(r["label"] == label and "from" in r for r in manifest["numbers"]) else {}
    return sorted(((it["label"], it["box"]) for it in layout_numbers(manifest, step)
                   if it["label"] in rec.get("from", [])), key=str)


def opened(driver, manifest, step, label):
    """Click the first box of `label` in the step's layout; (outlined items, the note's text)."""
    box = next(it["box"] for it in layout_numbers(manifest, step) if it["label"] == label)
    click_box(driver, box)
    s = explain_state(driver)
    assert s["open"] is not None, f"clicking {label} opened nothing"
    return outlined(driver, manifest, step), s["text"]


def test_a_clicked_number_outlines_its_sources_and_says_how_it_is_made(browser, tiny_chapter):
    from selenium.webdriver.common.keys import Keys
    browser.get((tiny_chapter / "chapter04.html").as_uri())
    wait_until(browser, lambda s: s["time"] > 0)
    wa = manifest_of(tiny_chapter, "weighted-average")
    softmax = next(n for n, st in enumerate(wa["layout"], 1)
                   if any(it["label"] == "weights[0][0]" for it in layout_numbers(wa, n)))
    at = chapter_index(tiny_chapter, "weighted-average", softmax)
    paused_on(browser, at)
    box = next(it["box"] for it in layout_numbers(wa, softmax) if it["label"] == "weights[0][0]")
    click_box(browser, box, click=False)                                              # hovering outlines it
    hovered = browser.execute_script("return [...document.querySelectorAll('.explain-layer .num:hover')].length")
    assert hovered == 1 and explain_state(browser)["open"] is None
    lit, text = opened(browser, wa, softmax, "weights[0][0]")
    assert lit == sources_in_frame(wa, softmax, "weights[0][0]") and len(lit) >= 2
    assert "1.0000 / 6.4366 = 0.1554" in text and "weights[0][0]" in text

    click_box(browser, next(it["box"] for it in layout_numbers(wa, softmax) if it["label"] == "weights[0][0]"))
    assert explain_state(browser)["open"] is None and state(browser)["index"] == at     # a second click closes
    opened(browser, wa, softmax, "weights[0][0]")
    press(browser, Keys.ESCAPE)                                                        # so does Esc
    assert explain_state(browser)["open"] is None and state(browser)["index"] == at

    browser.execute_script(                                                            # planted: the neighbour
        "steps[arguments[0]].explain.notes.forEach(n => { n.lit = n.lit.map(k => k + 1); });", at)
    paused_on(browser, at)
    lit, _ = opened(browser, wa, softmax, "weights[0][0]")
    assert lit != sources_in_frame(wa, softmax, "weights[0][0]")
    press(browser, Keys.ESCAPE)

    cm = manifest_of(tiny_chapter, "causal-mask")
    paused_on(browser, chapter_index(tiny_chapter, "causal-mask", 1))
    lit, text = opened(browser, cm, 1, "masked[1][2]")
    assert lit == [] and "masked[1][2] = −∞（掩码：键 2 在查询 1 之后）" in text
    lit, text = opened(browser, cm, 1, "weights[1][0]")                                # a click on another
    assert lit == sources_in_frame(cm, 1, "weights[1][0]") and len(lit) == 2
    assert "exp(0.0000) / (exp(0.0000) + exp(0.7071)) = 0.3302" in text

    mh = manifest_of(tiny_chapter, "multihead")
    step, tracked = next((s["step"], it["covers"][0]) for s in mh["layout"] for it in s["items"]
                         if it.get("mark") == "track" and it["covers"][0].startswith("transposed"))
    at = chapter_index(tiny_chapter, "multihead", step)
    paused_on(browser, at)
    lit, text = opened(browser, mh, step, tracked)
    assert lit == sources_in_frame(mh, step, tracked)
    assert "e2 → [0, 1, 0, 0] (transpose(1, 2))" in text and "split[0][0][1][0]" in text

    press(browser, Keys.PAGE_DOWN)                                  # a clicker's key: the next step,
    wait_until(browser, lambda s: s["index"] == at + 1)             # the note gone with its frame
    assert explain_state(browser)["open"] is None
    wait_until(browser, lambda s: s["ended"])
    click_box(browser, [-7, -4, -6.9, -3.9])                       # a click beside the numbers: forward
    wait_until(browser, lambda s: s["index"] == at + 2)
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []


def manifest_of(folder, clip, lang="zh"):
    name = clip if lang == "zh" else f"{clip}.{lang}"
    return json.loads((folder / f"{name}.numbers.json").read_text("utf-8"))


def test_the_english_page_explains_in_english(browser, tmp_path):
    from conftest import cli
    from scenes.kit.text.lang import has_cjk
    code, out = cli("weighted-average", "--quality", "tiny", "--sections", "--lang", "en", "--out", str(tmp_path))
    assert code == 0, out
    browser.get((tmp_path / "weighted-average.en.html").as_uri())
    wa = manifest_of(tmp_path, "weighted-average", "en")
    softmax = next(n for n, st in enumerate(wa["layout"], 1)
                   if any(it["label"] == "weights[0][0]" for it in layout_numbers(wa, n)))
    paused_on(browser, softmax - 1)
    lit, text = opened(browser, wa, softmax, "weights[0][0]")
    assert lit == sources_in_frame(wa, softmax, "weights[0][0]")
    assert "1.0000 / 6.4366 = 0.1554" in text and "Where this number comes from" in text and not has_cjk(text)


def page_data(path):
    """The page's own data (what the script reads: const DATA = ...;) and its html lang."""
    import re
    text = Path(path).read_text("utf-8")
    found = re.search(r"^const DATA = (.*);$", text, re.M)
    return json.loads(found.group(1).replace("<\\/", "</")), re.search(r'<html lang="([^"]+)"', text).group(1)


def title_problems(path, lang, clips):
    """The page's sections and title-card steps against each clip's heading in `lang` (the registry's
    words, not the page writer's); in English, no Chinese character anywhere in them."""
    import re
    data, said = page_data(path)
    out = [] if said == lang == data["lang"] else [f"the page says lang {said!r} / {data['lang']!r}, not {lang!r}"]
    titles = {s["section"]: s["title"] for s in data["sections"]}
    cards = {st["section"]: st["caption"] for st in data["steps"] if st["video"].startswith(".titles/")}
    for clip, spec in clips.items():
        want = spec.heading(lang)
        for where, got in (("section", titles.get(spec.section)), ("title card", cards.get(spec.section))):
            wanted = want if where == "section" else f"{spec.section} {want}"
            if got != wanted or (lang == "en" and re.search("[\u4e00-\u9fff]", got or "")):
                out.append(f"{spec.section} {where}: {got!r}, the {lang} heading is {wanted!r}")
    return out


def test_the_english_chapters_own_page_names_its_sections_in_english(tmp_path, monkeypatch, tiny_chapter):
    """chapter04.en.html as `render.py chapter --lang en` writes it (the chapter's own run, the
    cheapest clip), read for its sections' titles; the tiny chapter's chapter04.html keeps the
    Chinese ones. Planted: the English page written with the Chinese headings: every section named."""
    from scenes.kit.scene.clip import Clip
    from scenes.pipeline.run import chapter
    clips = {c: s for c, s in specs().items() if c == "weighted-average"}
    chapter.render_variants(["en"], ["tiny"], tmp_path, clips=list(clips))
    assert title_problems(tmp_path / "chapter04.en.html", "en", clips) == []
    assert title_problems(tiny_chapter / "chapter04.html", "zh", specs()) == []
    real = Clip.heading
    monkeypatch.setattr(Clip, "heading", lambda self, lang=None: real(self, "zh"))
    page = chapter.presenter_page(chapter.Variant("en", "tiny", tmp_path), clips, False)
    assert page.name == "chapter04.en.html"
    monkeypatch.undo()
    problems = title_problems(page, "en", clips)
    assert len(problems) == 2 * len(clips), problems
