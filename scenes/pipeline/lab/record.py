"""The lab's recording page: per clip (/record/NAME, its inputs in the address as on the clip's
page) and for the chapter (/record, the book's inputs), each step's caption and narration from
the clip's dry run (its script), the lecturer's take per step recorded in the browser
(MediaRecorder) and saved by lab_takes.py as `--voice DIR` reads it; "Render video" queues
the clip with those takes in the lab's video pool.
"""
from __future__ import annotations

import asyncio
import html
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from scenes.kit.text.lang import LANGS, SOURCE, tr
from scenes.kit.text.style import VOICE_TAIL
from scenes.pipeline.jobs.inputs import check, manifest_inputs, raw_inputs
from scenes.pipeline.lab.jobs import Store, request_key
from scenes.pipeline.lab.request import QUALITIES, Ask, Refused, parse, read_body
from scenes.pipeline.lab.takes import MAX_TAKE, SET, TYPES, Script, Takes, set_name
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.lab.work.queue import Stills
from scenes.pipeline.present.colours import variables

PAGE = Path(__file__).with_name("record.html")
VOICE_CAP = 512 * 1024 * 1024         # bytes of all takes together
TAKE_SECONDS = 120.0                  # an upload of a take arrives within this
CHAPTER = "第 4 章 · 录音"                # the chapter recording page's title (en: the catalogue)


@lru_cache(maxsize=None)
def book_inputs(clip: str) -> dict:
    return manifest_inputs(check(clip, raw_inputs(clip)))


class Recorder:
    def __init__(self, store: Store, stills: Stills, read_json: Callable[[Request], Awaitable[Any]],
                 theme: str = "dark") -> None:
        self.store, self.stills, self.read_json, self.theme = store, stills, read_json, theme
        self.takes = Takes(store.root, VOICE_CAP)

    async def script(self, ask: Ask) -> tuple[Script, str]:
        """The clip's steps for these inputs, from its dry run (made once, by the warm worker)."""
        key = request_key(ask.clip, ask.inputs, "low", ask.lang, None, "script", self.theme)
        result = await self.stills.get(key, {"op": "script", "clip": ask.clip, "lang": ask.lang, "given": ask.given,
                                             "step": 1}, f"script{key[:20]}", made="numbers.json")
        if "error" in result:
            raise Refused(500 if result.get("failed") else 422, result["error"], result.get("field"))
        path = self.store.file(key, "numbers.json")
        if path is None:
            raise Refused(503, "the script was removed meanwhile: try again")
        steps = [{"n": n, "caption": s["caption"], "narration": s.get("narration") or s["caption"],
                  "planned": round(s["end"] - s["start"], 2)}
                 for n, s in enumerate(json.loads(path.read_text("utf-8"))["steps"], 1)]
        script = Script(set_name(ask, book_inputs(ask.clip)), ask.clip, ask.lang, steps)
        self.takes.remember(script)
        return script, key

    async def voiced(self, ask: Ask, voice: Any) -> tuple[str, Callable[[Path], Path]]:
        """A video request's "voice": the set its takes are in; the key's part and the job's hook."""
        if not isinstance(voice, str) or not SET.match(voice):
            raise Refused(400, "voice: the recording set the page names (a language, or language-hash)", "voice")
        script, _ = await self.script(ask)
        if script.set != voice:
            raise Refused(400, "voice: these takes were recorded for other inputs or another language", "voice")
        if not self.takes.files(script):
            raise Refused(400, "voice: record at least one step first", "voice")
        digest = self.takes.digest(script)
        return f"voice-{digest}", lambda target: self.takes.copy_for_render(script, digest, target)

    async def api_script(self, request: Request) -> Response:
        script, key = await self.script(parse(await self.read_json(request)))
        spec = specs()[script.clip]
        return JSONResponse({"set": script.set, "clip": script.clip, "section": spec.section,
                             "title": spec.heading(script.lang), "steps": script.steps,
                             "takes": self.takes.lengths(script), "script": f"/files/{key}/script.md",
                             "folder": str(self.takes.root / script.set)})

    def address(self, request: Request) -> tuple[Script, int]:
        p = request.path_params
        script = self.takes.script(str(p["set"]), str(p["clip"]))
        return script, self.takes.step(script, str(p["step"]))

    async def put_take(self, request: Request) -> Response:
        script, n = self.address(request)
        kind = request.headers.get("content-type", "")
        if kind.split(";")[0].strip().lower() not in TYPES:
            raise Refused(415, f"a take is {' or '.join(TYPES)} (MediaRecorder's own)", "content-type")
        body = await read_body(request, TAKE_SECONDS)
        seconds = await asyncio.to_thread(self.takes.save, script, n, kind, body)   # decoding: never in the loop
        return JSONResponse({"step": n, "seconds": seconds, "planned": script.steps[n - 1]["planned"]})

    async def get_take(self, request: Request) -> Response:
        script, n = self.address(request)
        path = self.takes.files(script).get(n)
        if path is None:
            raise Refused(404, "no take for this step yet")
        kind = next(k for k, (suffix, _) in TYPES.items() if path.suffix == f".{suffix}")
        return FileResponse(path, media_type=kind, headers={"Cache-Control": "no-store"})

    def page(self, clips: list[str], lang: str, chapter: bool) -> Response:
        if lang not in LANGS:
            raise Refused(404, "no such recording page")
        items = [{"clip": c, "section": specs()[c].section, "title": specs()[c].heading(lang),
                  "options": [{"name": o.name, "key": o.key, "flag": o.flag} for o in specs()[c].options]}
                 for c in clips]
        data = {"lang": lang, "langs": list(LANGS), "chapter": chapter, "clips": items, "qualities": QUALITIES,
                "tail": VOICE_TAIL,
                "summary": tr(specs()[clips[0]].summary, lang) if not chapter else ""}
        title = html.escape(tr(CHAPTER, lang) if chapter else f"{items[0]['section']} {items[0]['title']}")
        text = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
        return HTMLResponse(PAGE.read_text("utf-8").replace("__COLOURS__", variables(self.theme))
                            .replace("__DATA__", text).replace("__TITLE__", title)
                            .replace("__LANG__", lang))

    async def clip_page(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in specs():
            raise Refused(404, "no such recording page")
        return self.page([name], request.query_params.get("lang", SOURCE), chapter=False)

    async def chapter_page(self, request: Request) -> Response:
        return self.page(list(specs()), request.query_params.get("lang", SOURCE), chapter=True)

    def routes(self, json_limit: int) -> list[Route]:
        take = "/api/takes/{set}/{clip}/{step}"
        return [Route("/record", self.chapter_page), Route("/record/{name}", self.clip_page),
                Route("/api/script", self.api_script, methods=["POST"], max_body_size=json_limit),
                Route(take, self.put_take, methods=["PUT"], max_body_size=MAX_TAKE),
                Route(take, self.get_take)]
