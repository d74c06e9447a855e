"""The lab's requests: a JSON body checked field by field (a registered clip, its own options,
lang, step, quality), then by the clip's own rules (the CLI's one-line InputError, HTTP 422);
and what a page shows about a clip, generated from its declaration (nothing written twice).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from scenes.kit.text.lang import LANGS, SOURCE, tr
from scenes.pipeline.jobs.inputs import MAX_TEXT, InputError, check, manifest_inputs, preset_names, raw_inputs
from scenes.pipeline.lab.jobs import Store
from scenes.pipeline.jobs.registry import Clip, specs

QUALITIES = {"low": "480p", "medium": "720p", "tiny": "144p"}
SESSION = re.compile(r"^[A-Za-z0-9]{1,32}$")


class Refused(Exception):
    """A request the lab will not take: status, one-line message and the field it concerns."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field


@dataclass(frozen=True)
class Ask:
    clip: str
    lang: str
    given: dict
    inputs: dict                      # the checked inputs as plain JSON (what the key hashes)
    step: int
    quality: str
    session: str


def field_text(value: Any) -> str | bool:
    """A raw input (a string from a preset, a number, a list) as its form field shows it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(r, (list, tuple)) for r in value):
        return "; ".join(" ".join(map(str, r)) if isinstance(r, (list, tuple)) else str(r) for r in value)
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def page_data(spec: Clip, lang: str) -> dict:
    """Everything the page shows about a clip, from its declaration: nothing written twice."""
    def fields(raw: dict) -> dict:
        return {o.key: field_text(raw[o.key]) for o in spec.options if o.key in raw}
    return {"clip": spec.name, "section": spec.section, "title": spec.heading(lang), "lang": lang,
            "summary": tr(spec.summary, lang), "langs": list(LANGS), "qualities": QUALITIES,
            "options": [{"name": o.name, "key": o.key, "help": o.help, "flag": o.flag} for o in spec.options],
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
    if lang not in LANGS:
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
    if quality not in QUALITIES:
        raise Refused(400, f"--quality: one of {', '.join(QUALITIES)}", "quality")
    session = data.get("session", "page")
    if not isinstance(session, str) or not SESSION.match(session):
        raise Refused(400, "session: up to 32 letters or digits", "session")
    try:
        inputs = manifest_inputs(check(clip, raw_inputs(clip, None, given)))
    except InputError as err:
        raise Refused(422, str(err), err.field) from None
    return Ask(clip, lang, given, inputs, step, quality, session)


def still_view(store: Store, key: str, step: int) -> dict:
    """The still's address and the numbers it draws: the manifest's layout at the end of the step."""
    path = store.file(key, "numbers.json")
    manifest = json.loads(path.read_text("utf-8")) if path else {"numbers": [], "layout": [], "steps": []}
    records = {r["label"]: r for r in manifest["numbers"]}
    shown: list[dict] = next((s["items"] for s in manifest["layout"] if s["step"] == step), [])
    numbers = [{"label": i["label"], "text": i["text"], "value": records.get(i["label"], {}).get("value")}
               for i in shown if i["kind"] == "number"]
    steps = [s["caption"] for s in manifest["steps"]]
    return {"key": key, "png": f"/files/{key}/png", "numbers": numbers, "steps": steps, "step": step,
            "caption": steps[step - 1] if len(steps) >= step else ""}
