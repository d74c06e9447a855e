"""The lab's requests: a JSON body checked field by field (a registered clip, its own options,
lang, step, quality), then by the clip's own rules (the CLI's one-line InputError, HTTP 422);
and what a page shows about a clip, generated from its declaration (nothing written twice).
"""
from __future__ import annotations

import asyncio
import json
import re
import shlex
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from scenes.kit.text import lang as language
from scenes.kit.text.lang import LANGS, SOURCE, tr, words
from scenes.kit.text.style import format_number, manifest_value
from scenes.pipeline.jobs.inputs import (LIMIT, MAX_TEXT, InputError, check, manifest_inputs, number, preset_data,
                                         preset_names, raw_inputs)
from scenes.pipeline.lab import controls
from scenes.pipeline.lab.captions import captions
from scenes.pipeline.lab.jobs import Store
from scenes.pipeline.jobs.registry import Clip, scene, specs
from scenes.pipeline.present.explain import page_words, step_explained

BODY_SECONDS = 20.0                   # a request's body arrives within this, or 408
QUALITIES = {"low": "480p", "medium": "720p", "tiny": "144p"}
SESSION = re.compile(r"^[A-Za-z0-9]{1,32}$")
COMPUTING = threading.Lock()


class Refused(Exception):
    """A request the lab will not take: status, one-line message and the field it concerns."""

    def __init__(self, status: int, message: str, field: str | None = None, cell: list | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field, self.cell = status, message, field, cell


def safe(text: Any) -> Any:
    """Text any response can carry (a lone surrogate shown as its escape)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(text, str) else text


async def read_body(request: Any, seconds: float = BODY_SECONDS) -> bytes:
    try:
        return bytes(await asyncio.wait_for(request.body(), seconds))
    except asyncio.TimeoutError:
        raise Refused(408, f"the request's body did not arrive within {seconds:.0f} s") from None


async def json_body(request: Any) -> Any:
    """A request's JSON, every string in it text (no lone UTF-16 surrogate: 400 naming the field)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused(415, "send JSON (Content-Type: application/json)")
    try:
        data = json.loads(await read_body(request))
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "malformed JSON") from None
    except RecursionError:
        raise Refused(400, "JSON nested too deeply") from None
    text_only(data, None)
    return data


def text_only(node: Any, name: str | None) -> None:
    """Refuse a key or a string that is not UTF-8 text, naming the top field (or option) it is in."""
    def refuse(where: str | None) -> None:
        raise Refused(400, f"{safe(where) if where else 'the request'}: text only (a lone UTF-16 surrogate "
                           "is not a character)", safe(where)[:40] if where else None)
    if isinstance(node, str):
        try:
            node.encode("utf-8")
        except UnicodeEncodeError:
            refuse(name)
    elif isinstance(node, list):
        for item in node:
            text_only(item, name)
    elif isinstance(node, dict):
        for key, value in node.items():
            inner = name if name not in (None, "fields") else str(key)
            text_only(key, inner)
            text_only(value, inner)


@dataclass(frozen=True)
class Ask:
    clip: str
    lang: str
    given: dict
    inputs: dict                      # the checked inputs as plain JSON (what the key hashes)
    step: int
    quality: str
    session: str
    checked: dict = field(default_factory=dict, compare=False, repr=False)   # the rules' own values


def field_text(value: Any) -> str | bool:
    """A raw input (a string from a preset, a number, a list) as its form field shows it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(r, (list, tuple)) for r in value):
        return "; ".join(" ".join(map(str, r)) if isinstance(r, (list, tuple)) else str(r) for r in value)
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def shown_text(value: Any) -> str:
    """A checked value as its field shows it where the clip declares no raw default."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return ",".join(value)
    return str(field_text(value))


def lab_words(lang: str) -> dict:
    """The page's words and each option's label and help line, in `lang` (assets/lang/zh/lab.json,
    translated through the catalogue)."""
    table = words("lab")

    def each(node: Any) -> Any:
        if isinstance(node, str):
            return tr(node, lang)
        if isinstance(node, list):
            return [each(n) for n in node]
        return {k: each(v) for k, v in node.items()}
    return each(table)


def page_data(spec: Clip, lang: str) -> dict:
    """Everything the page shows about a clip, from its declaration: nothing written twice."""
    def fields(raw: dict) -> dict:
        return {o.key: field_text(raw[o.key]) for o in spec.options if o.key in raw}
    said = lab_words(lang)
    named = said["options"].get(spec.name, {})
    hints = said["hints"]
    clicks = [hints.get(f"{spec.name}.{o}", hints.get(o, "")) for o in controls.PICKS.get(spec.name, {})]
    checked = manifest_inputs(check(spec.name, raw_inputs(spec.name)))
    options = []
    for o, control in zip(spec.options, controls.controls(spec.name, list(spec.options))):
        label, help_line = named.get(o.name, [o.name, o.help if lang != SOURCE else ""])
        options.append({"name": o.name, "key": o.key, "flag": o.flag, "label": label, "help": help_line,
                        "control": control, "shown": shown_text(checked.get(o.key)) if not o.flag else False})
    return {"clip": spec.name, "section": spec.section, "title": spec.heading(lang), "lang": lang,
            "summary": tr(spec.summary, lang), "langs": list(LANGS), "qualities": QUALITIES,
            "words": said["page"], "clicks": [c for c in clicks if c], "options": options,
            "explain": page_words(lang),                 # the words of a number's note (explain.js)
            "question": said["questions"].get(spec.name, ["", ""]),     # the book's own lab's, where it has one
            "defaults": fields(raw_inputs(spec.name)),
            "presets": [{"name": n, "title": tr(d["title"], lang), "fields": fields(raw_inputs(spec.name, n))}
                        for n, d in preset_names(spec.name)],
            "clips": [{"name": s.name, "section": s.section} for s in specs().values()]}


def parse(data: Any) -> Ask:
    """A request body checked field by field, then by the clip's own rules."""
    if not isinstance(data, dict):
        raise Refused(400, "the request must be a JSON object")
    clip = data.get("clip")
    if not isinstance(clip, str) or clip not in specs():
        raise Refused(404, f"unknown clip; valid: {', '.join(specs())}", "clip")
    spec = specs()[clip]
    lang = data.get("lang", SOURCE)
    if not isinstance(lang, str) or lang not in LANGS:
        raise Refused(400, f"--lang: one of {', '.join(LANGS)}", "lang")
    fields = data.get("fields", {})
    if not isinstance(fields, dict):
        raise Refused(400, "fields must be an object of option: value", "fields")
    options = {o.key: o for o in spec.options}
    given: dict[str, Any] = {}
    for name, value in fields.items():
        opt = options.get(str(name).replace("-", "_"))
        if opt is None:
            raise Refused(400, f"unknown option for {clip}; valid: {', '.join(o.name for o in spec.options)}",
                          str(name)[:40])
        if opt.flag:
            if not isinstance(value, bool):
                raise Refused(400, f"--{opt.name}: a flag is true or false", opt.key)
            if value:
                given[opt.key] = True
        elif not isinstance(value, str):
            raise Refused(400, f"--{opt.name}: give the value as text", opt.key)
        elif len(value) > MAX_TEXT or "\x00" in value:
            raise Refused(400, f"--{opt.name}: at most {MAX_TEXT} characters, no NUL", opt.key)
        elif value.strip():
            given[opt.key] = value
    step = data.get("step", 1)
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= 99:
        raise Refused(400, "--step: a whole number from 1", "step")
    quality = data.get("quality", "low")
    if not isinstance(quality, str) or quality not in QUALITIES:
        raise Refused(400, f"--quality: one of {', '.join(QUALITIES)}", "quality")
    session = data.get("session", "page")
    if not isinstance(session, str) or not SESSION.match(session):
        raise Refused(400, "session: up to 32 letters or digits", "session")
    try:
        checked = check(clip, raw_inputs(clip, None, given))
        inputs = manifest_inputs(checked)
    except InputError as err:
        raise Refused(422, str(err), err.field, bad_cell(given.get(err.field))) from None
    return Ask(clip, lang, given, inputs, step, quality, session, checked)


def bad_cell(value: Any) -> list[int] | None:
    """[row, column] of the first cell of a typed matrix that is not a number in range, if any."""
    if not isinstance(value, str):
        return None
    rows = [ln for ln in re.split(r"[;\n]", value) if ln.strip()]
    for r, line in enumerate(rows):
        for c, cell in enumerate(x for x in re.split(r"[,\s]+", line.strip()) if x):
            try:
                if abs(number(cell, "cell")) > LIMIT:
                    return [r, c]
            except InputError:
                return [r, c]
    return None


def compute_view(ask: Ask, theme: str = "dark") -> dict:
    """The compute package's numbers for the checked inputs (the clip's own compute, no scene,
    no frame), the caption the data chooses for the step (lab/captions.py, from the result and
    what compute() measured beside it; None where the clip's choice is not mirrored there), the
    render.py line that reproduces them (in the lab's theme) and the inputs as a preset file."""
    from scenes.kit.text.numbers import NumberBook
    cls = scene(ask.clip)
    stand_in = cls.__new__(cls)             # the clip's compute() reads only its inputs and a book
    stand_in.inputs, stand_in.book = ask.checked, NumberBook()
    result = computed(stand_in, ask.lang)
    decimals = controls.DECIMALS.get(ask.clip, 4)
    numbers = [{"label": label, "value": manifest_value(value), "text": format_number(value, decimals)}
               for label, value in controls.numbers(ask.clip, result)]
    try:
        measured = {k: v for k, v in vars(stand_in).items() if k not in ("inputs", "book")}
        said = captions(ask.clip, ask.checked, result, ask.lang, measured)
    except Exception:          # the still's caption comes a second later: a caption never costs the numbers
        said = None
    caption = said[ask.step - 1] if said and ask.step <= len(said) else None
    return {"numbers": numbers, "command": command_line(ask, theme), "preset": preset_of(ask), "inputs": ask.inputs,
            "caption": caption, "captions": said}


def computed(stand_in: Any, lang: str) -> Any:
    """The clip's compute() in the page's language, as a render runs it (weighted-average measures
    its tokens' widths in that language's font); one at a time, since the language is the process's
    (this process draws nothing else: its stills are the worker's)."""
    with COMPUTING:
        before = language.current
        language.use(lang)
        try:
            return stand_in.compute()
        finally:
            language.use(before)


@lru_cache(maxsize=None)
def default_fields(clip: str) -> dict:
    """Each option's field as the page first shows it (the declared default, or the rules' own)."""
    defaults = raw_inputs(clip)
    checked = manifest_inputs(check(clip, defaults))
    return {o.key: str(field_text(defaults[o.key])) if o.key in defaults else shown_text(checked.get(o.key))
            for o in specs()[clip].options if not o.flag}


def changed(ask: Ask) -> dict:
    """The options the page set away from the clip's declared defaults (as typed)."""
    shown = default_fields(ask.clip)
    return {k: v for k, v in ask.given.items() if v is True or shown.get(k) != v}


def command_line(ask: Ask, theme: str = "dark") -> str:
    """The render.py line for what the page shows (its video), options in the clip's order; the
    theme where it is not the default."""
    names = {o.key: o.name for o in specs()[ask.clip].options}
    given = changed(ask)
    words_ = ["python", "render.py", ask.clip]
    for key in names:
        if key in given:
            words_ += [f"--{names[key]}"] if given[key] is True else [f"--{names[key]}", shlex.quote(str(given[key]))]
    if ask.lang != SOURCE:
        words_ += ["--lang", ask.lang]
    if theme != "dark":
        words_ += ["--theme", theme]
    return " ".join(words_)


def preset_of(ask: Ask) -> dict:
    """The page's inputs as a preset file (`render.py NAME --preset-file FILE` reads it)."""
    return {"clip": ask.clip, "title": tr(words("lab")["page"]["mytitle"], ask.lang), "inputs": changed(ask)}


def preset_fields(data: Any, clip: str) -> dict:
    """An opened preset file's inputs as the page's fields (checked like --preset-file)."""
    try:
        raw = preset_data(data, clip)
        check(clip, raw_inputs(clip, None, raw))
    except InputError as err:
        raise Refused(422, str(err), err.field) from None
    return {k: field_text(v) for k, v in raw.items()}


def holds(ask: Ask) -> Callable[[str, Any], bool | None]:
    """Whether giving `option` the value leaves the checked inputs as they are ("e2" is 2); None
    where the clip's rules refuse it."""
    def same(option: str, value: Any) -> bool | None:
        try:
            after = manifest_inputs(check(ask.clip, raw_inputs(ask.clip, None, dict(ask.given, **{option: value}))))
        except InputError:
            return None
        return bool(after == ask.inputs)
    return same


def still_view(store: Store, key: str, step: int, ask: Ask | None = None) -> dict:
    """The still's address and the numbers it draws: the manifest's layout at the end of the step,
    with the hit areas a click on the still edits (controls.PICKS, in frame units) and what every
    other number is made of (the presenter's explain.py, shown by its explain.js)."""
    path = store.file(key, "numbers.json")
    manifest = json.loads(path.read_text("utf-8")) if path else {"numbers": [], "layout": [], "steps": []}
    records = {r["label"]: r for r in manifest["numbers"]}
    shown: list[dict] = next((s["items"] for s in manifest["layout"] if s["step"] == step), [])
    numbers = [{"label": i["label"], "text": i["text"], "value": records.get(i["label"], {}).get("value")}
               for i in shown if i["kind"] == "number"]
    steps = [s["caption"] for s in manifest["steps"]]
    picks = controls.picks(ask.clip, shown, ask.given, ask.checked, holds(ask)) if ask else []
    return {"key": key, "png": f"/files/{key}/png", "numbers": numbers, "steps": steps, "step": step,
            "caption": steps[step - 1] if len(steps) >= step else "", "picks": picks,
            "frame": manifest.get("frame", {"width": 8.0 * 16 / 9, "height": 8.0}),
            "explain": notes(manifest, step) if path and shown else None}


def notes(manifest: dict, step: int) -> dict | None:
    """The step's numbers' notes; None where explain.py cannot say (the still stands without them:
    tests/pipeline/test_explain.py holds explain.py to every clip's notes)."""
    try:
        return step_explained(manifest, step)
    except Exception:          # a note is an aid: never the still's 5xx
        return None
