"""The presenter page: one self-contained HTML file that steps through step videos offline.

`render.py NAME --sections` writes NAME.html beside NAME.sections/; `render.py chapter`
writes chapter04.html (title cards are steps too). The page references the videos by
relative path (file://, no server, no network); `--one-file` embeds them as data URLs.
Keys: → Space PageDown click forward, ← PageUp back, Home End, R replay, F full screen,
G + number (or 1-9) jump to a section, C captions, S speaker view. Paused on a step's last frame,
a click on a number shows where it comes from (explain.js, inlined; Esc closes it). Its colours are
the theme's its videos are drawn in (present/colours.py, from scenes/kit/text/style.py).
"""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from scenes.kit.text import style as palette
from scenes.kit.text.lang import SOURCE, tr
from scenes.pipeline.jobs.files import write_atomic
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.present.colours import colours, variables
from scenes.pipeline.present.explain import SCRIPT, derivations, page_words, step_explained

PAGE = Path(__file__).with_name("presenter.html")
LAB = "http://127.0.0.1:8765"         # render.py lab's default address
# The page's own words, in Chinese; other languages from the catalogue (scenes/kit/text/lang.py).
TEXT = {"captions": "字幕", "jump": "跳到第几节：", "speaker": "讲者视图", "end": "（最后一步）",
        "now": "当前", "next": "下一步", "notes": "讲稿",
        "help": "→/空格/PageDown 前进 · ←/PageUp 后退 · R 重播 · F 全屏 · G 跳节 · C 字幕 · S 讲者视图"}


def lab_link(section: str, lang: str) -> str | None:
    """The section's clip in the lab (`render.py lab` at its default address), the book's inputs
    filled in: the speaker view shows it and L opens it. Nothing is fetched until it is used."""
    clip = next((name for name, spec in specs().items() if spec.section == section), None)
    return f"{LAB}/clip/{clip}" + ("" if lang == SOURCE else f"?lang={lang}") if clip else None


def speaker_body(text: dict[str, str], theme: str = "dark") -> str:
    c = colours(theme)
    style = (f"font-family:'Noto Sans CJK SC','Noto Sans',sans-serif;background:{c['background']};"
             f"color:{c['text']};margin:0;padding:24px")
    return (f'<div style="{style}"><div id="clock" style="font-size:40px;float:right"></div>'
            f'<div id="where" style="color:{c["muted"]};font-size:20px"></div>'
            f'<h3>{html.escape(text["now"])}</h3><div id="now" style="font-size:26px"></div>'
            f'<h3>{html.escape(text["notes"])}</h3><div id="notes" style="font-size:22px;color:{c["track"]}"></div>'
            f'<h3>{html.escape(text["next"])}</h3><div id="next" style="font-size:20px;color:{c["muted"]}"></div>'
            f'<p><a id="lab" target="_blank" style="color:{c["query"]};font-size:16px"></a></p></div>')


def clip_steps(out: Path, clip: str, section: str, title: str) -> list[dict]:
    """A rendered clip's steps: each step's video (from Manim's section index), its texts, what its
    last frame's numbers are made of (explain.py) and the derivations it makes (for the handout)."""
    manifest = json.loads((out / f"{clip}.numbers.json").read_text("utf-8"))
    folder = out / f"{clip}.sections"
    index = json.loads(next(folder.glob("*.json")).read_text("utf-8"))
    videos = {s["name"]: s["video"] for s in index}
    steps = []
    for n, st in enumerate(manifest["steps"], 1):
        steps.append({"video": f"{folder.name}/{videos[f'step-{n}']}", "caption": st["caption"],
                      "notes": st.get("narration") or st["caption"], "section": section, "title": title,
                      "explain": step_explained(manifest, n), "derivations": derivations(manifest, n)})
    return steps


def title_step(out: Path, clip: str, section: str, title: str) -> dict:
    caption = f"{section} {title}"
    return {"video": f".titles/{clip}.mp4", "caption": caption, "notes": caption,
            "section": section, "title": title}


def embedded(out: Path, steps: list[dict]) -> list[dict]:
    """--one-file: every video inside the page as a data URL (for mailing one file)."""
    done = []
    for st in steps:
        data = base64.b64encode((out / st["video"]).read_bytes()).decode("ascii")
        done.append(dict(st, video=f"data:video/mp4;base64,{data}"))
    return done


def write_page(out: Path, name: str, title: str, parts: list[dict], lang: str = "zh",
               one_file: bool = False, theme: str | None = None) -> Path:
    """parts: [{"section", "title", "steps": [...]}] in order; writes OUT/NAME.html in `theme`'s
    colours (the theme in force unless given)."""
    theme = theme or palette.THEME
    steps: list[dict] = []
    sections: list[dict] = []
    for part in parts:
        sections.append({"section": part["section"], "title": part["title"], "first": len(steps),
                         "lab": lab_link(part["section"], lang)})
        steps += part["steps"]
    if one_file:
        steps = embedded(out, steps)
    text: dict = {key: tr(words, lang) for key, words in TEXT.items()}
    text["explain"] = page_words(lang)
    data = {"lang": lang, "text": text, "steps": steps, "sections": sections, "speaker": speaker_body(text, theme)}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    template = PAGE.read_text("utf-8")
    template = template.replace("__COLOURS__", variables(theme))    # before any text goes in: a caption may say anything
    page = (template.replace("__EXPLAIN__", SCRIPT.read_text("utf-8")).replace("__DATA__", payload).replace("__TITLE__", html.escape(title))
            .replace("__LANG__", lang).replace("__HELP__", html.escape(text["help"])))
    target = out / f"{name}.html"
    write_atomic(target, page)
    return target
