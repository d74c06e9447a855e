"""The lab in the light theme (`render.py lab --theme light`, the real server, headless Chromium):
the page is drawn in the theme's colours (the body on the light background, no element in a colour
only the dark theme has), the still its worker renders is light (the PNG's background pixel), a
number's note opens on a light panel with dark words, "Copy as command" says --theme light, and a
still's key is not the dark one's of the same inputs. explain.js's panel is the page's colours in the presenter page too
(one light page, a note opened over a picture). "Render video" starts render.py with --theme (the
pool's command line, a stand-in process). Every text colour a lab page or the presenter page draws
keeps WCAG AA against what it is drawn on, in both themes. Planted: a dark colour left in the
light page (a rule injected into it) is named by the page check.
"""
import asyncio
import base64
import io
import time
import urllib.request

import pytest
from PIL import Image

from kit.test_theme import contrast
from scenes.kit.text import style
from scenes.pipeline.present.colours import colours
from support.browser import wait_for as wait
from support.lab_client import lab_server

LIGHT, DARK = style.THEMES["light"], style.THEMES["dark"]
CLIP = "causal-mask"
# (words, what they are drawn on) on the lab's pages (lab.html, record.html, the index) and the
# presenter page, by the pages' names (present/colours.py)
DRAWN = [("text", "background"), ("text", "panel"), ("text", "button"), ("text", "chosen"), ("text", "bad"),
         ("muted", "background"), ("muted", "panel"), ("soft", "background"), ("soft", "button"),
         ("query", "background"), ("query", "panel"), ("track", "background"), ("mask", "background"),
         ("key", "background"), ("value", "background")]

# every element's colours as the page computed them ("rgb(r, g, b)"), with what it is (a border or
# an outline in the element's own colour, currentColor, once)
COMPUTED = """
const out = [];
for (const el of document.querySelectorAll('*')) {
  const s = getComputedStyle(el), what = el.tagName + (el.id ? '#' + el.id : '') +
    (el.className && el.className.baseVal === undefined ? '.' + el.className : '');
  for (const p of ['color', 'background-color', 'border-top-color', 'outline-color'])
    if (p === 'color' || p === 'background-color' || s.getPropertyValue(p) !== s.color)
      out.push([what, p, s.getPropertyValue(p)]);
}
return out;"""


def rgb(hex_colour):
    return "rgb(" + ", ".join(str(int(hex_colour[k:k + 2], 16)) for k in (1, 3, 5)) + ")"


def dark_left(driver):
    """Every element colour of the page that only the dark theme has."""
    only_dark = {rgb(c) for c in colours("dark").values()} - {rgb(c) for c in colours("light").values()}
    return [f"{what} {prop}: {value}" for what, prop, value in driver.execute_script(COMPUTED) if value in only_dark]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    yield from lab_server(tmp_path_factory, "--theme", "light")


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium(size=(1400, 1000))


@pytest.mark.parametrize("theme", list(style.THEMES))
def test_every_page_colour_pair_keeps_wcag_aa(theme):
    c = colours(theme)
    low = [f"{fg} on {bg}: {contrast(c[fg], c[bg]):.2f}" for fg, bg in DRAWN if contrast(c[fg], c[bg]) < 4.5]
    assert low == []


def test_the_light_lab_draws_its_page_its_still_and_its_notes_light(lab, browser):
    from scenes.pipeline.lab.jobs import request_key
    url, _, _ = lab
    browser.get(f"{url}clip/{CLIP}?step=1")
    s = wait(browser, "lab", lambda s: s["stills"] >= 1 and not s["pending"] and not s["computing"], 90)
    assert s["error"] is None
    body = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert body == rgb(LIGHT["background"])
    assert dark_left(browser) == []
    assert s["command"].endswith("--theme light")
    same = (CLIP, s["inputs"], "low", "zh", 1, "still")           # a dark still of these inputs: another file
    assert request_key(*same, "light") != request_key(*same, "dark")

    with urllib.request.urlopen(f"{url}files/{s['still']}/png", timeout=60) as r:
        still = Image.open(io.BytesIO(r.read())).convert("RGB")
    assert "#%02X%02X%02X" % still.getpixel((2, 2)) == LIGHT["background"]

    item = [it[5] for it in s["explain"]["items"]].index("scores[1][0]")      # a number no click edits
    browser.find_element("css selector", f'.explain-layer .num[data-item="{item}"]').click()
    assert browser.execute_script("return window.lab.explain()")["open"] is not None
    note_is_light(browser)

    # planted: a dark colour left in the page (the caption in the dark theme's text) is named
    browser.execute_script("const st = document.createElement('style'); st.textContent = arguments[0];"
                           "document.head.appendChild(st)", f"#caption {{ color: {DARK['text']} }}")
    assert dark_left(browser) == [f"DIV#caption color: {rgb(DARK['text'])}"]


def note_is_light(driver):
    """The open note's panel: light behind its words (its middle row's commonest pixel), its words dark."""
    panel = driver.find_element("css selector", ".explain-panel")
    assert driver.execute_script("return getComputedStyle(arguments[0]).color", panel) == rgb(LIGHT["text"])
    shot = Image.open(io.BytesIO(panel.screenshot_as_png)).convert("RGB")
    pixels = [shot.getpixel((x, y)) for x in range(shot.width) for y in range(shot.height)]
    behind = max(set(pixels), key=pixels.count)
    assert min(behind) >= 245, behind                                # white at 94% over the page
    assert min(sum(p) for p in pixels) < 3 * 80                      # and dark words on it


def test_the_presenter_pages_note_is_the_pages_colours(browser, tmp_path):
    from scenes.pipeline.present.presenter import write_page
    page = write_page(tmp_path, "light", "4", [], theme="light")
    browser.get(page.as_uri())
    browser.execute_script("""
      const img = new Image(); img.src = arguments[0]; img.id = 'pic';
      img.style.cssText = 'position:absolute;inset:0;width:100%;height:100%;object-fit:contain';
      document.getElementById('stage').appendChild(img);""", picture())
    end = time.monotonic() + 10
    while not browser.execute_script("return document.getElementById('pic').naturalWidth > 0"):
        assert time.monotonic() < end, "the picture never loaded"
        time.sleep(0.05)
    browser.execute_script("Explain.attach(document.getElementById('stage'), document.getElementById('pic'), "
                           "arguments[0], {title: 'how it is made', lit: 'outlined', close: 'Esc'})", NOTE)
    browser.find_element("css selector", '.explain-layer .num[data-item="0"]').click()
    assert browser.execute_script("return Explain.state()")["open"] == 0
    note_is_light(browser)
    assert dark_left(browser) == []


NOTE = {"frame": [16, 9], "items": [[-2, -1, 2, 1, 0, "x"]],
        "notes": [{"lines": ["x = 1.0000 + 2.0000 = 3.0000"], "lit": [], "earlier": []}]}


def picture():
    """A light frame (160 x 90) as a data URL: what the note opens over."""
    out = io.BytesIO()
    Image.new("RGB", (160, 90), LIGHT["background"]).save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def test_a_video_is_rendered_in_the_labs_theme(tmp_path, monkeypatch):
    """The pool's render.py line says --theme (a stand-in process records it and exits 0)."""
    from scenes.pipeline.lab.work import videos as pool
    from scenes.pipeline.lab.jobs import Job, Store
    from scenes.pipeline.lab.work.queue import Stills
    seen = []

    class Done:
        pid, returncode = 0, 0

        async def wait(self):
            return 0

    async def started(*args, **kwargs):
        seen.append(args)
        return Done()

    class Workers:
        capacity = 1

        async def draw(self, request, folder):
            return {"plays": 1}

    async def go():
        store = Store(tmp_path / "lab", 10 ** 9)
        videos = pool.Videos(store, Stills(Workers(), store), 1, theme="light")
        monkeypatch.setattr(pool.asyncio, "create_subprocess_exec", started)
        job = Job("0" * 32, CLIP, "zh", "tiny", {}, [], state="running")      # as the pool's kick() leaves it
        await videos.run(job)
        return job
    job = asyncio.run(go())
    assert job.state == "done", job.error
    args = list(seen[0])
    assert args[args.index("--theme") + 1] == "light" and args[2] == CLIP


def test_the_index_and_record_pages_are_light(lab, browser):
    url, _, _ = lab
    for page in ("", f"record/{CLIP}"):
        browser.get(url + page)
        assert browser.execute_script("return getComputedStyle(document.body).backgroundColor") == \
            rgb(LIGHT["background"]), page
        assert dark_left(browser) == [], page
    browser.get("about:blank")                 # the recording page's script request ends with it
