"""The lab: a local web server (Starlette on uvicorn) with one page per clip, generated from
the registry, where a lecturer or a student changes the inputs and sees the clip's still and
the numbers it draws within seconds, then renders the video.

`render.py lab [--host 127.0.0.1] [--port 8765] [--out media/lab] [--theme light]`. Each edit is checked by
the clip's own rules (the same one-line InputError as the CLI, HTTP 422, nothing rendered);
a good one renders the chosen step's still on a warm worker, a pool of them here (work/pool.py)
or a dask cluster's (work/cluster.py), each page in turn (work/queue.py); "Render video" queues a
render.py subprocess in a bounded pool (work/videos.py). Everything written lives in the lab's
folder under a content hash (jobs.py); files are served by that key only. The recording page
(/record/NAME, /record for the chapter; record.py) saves the lecturer's takes as `--voice DIR`
reads them, in LAB/voice/ (takes.py). Beyond loopback the lab asks for a class code (door.py).
The lab is in one theme (dark unless told): its pages' colours (present/colours.py), its stills,
its videos and their keys.
"""
from __future__ import annotations

import asyncio
import html
import json
import socket
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from scenes.kit.text.lang import LANGS, SOURCE, tr
from scenes.pipeline.lab.door import ClassCode, Deadline, new_code
from scenes.pipeline.lab.jobs import FILES, Busy, Job, Store, request_key
from scenes.pipeline.lab.record import Recorder
from scenes.pipeline.lab.request import (Refused, compute_view, json_body, page_data, parse, preset_fields, safe,
                                         still_view)
from scenes.pipeline.lab.work.cluster import ClusterPool
from scenes.pipeline.lab.work.pool import LocalPool
from scenes.pipeline.lab.work.queue import Stills
from scenes.pipeline.lab.work.videos import Videos
from scenes.pipeline.present.colours import variables
from scenes.pipeline.present.explain import SCRIPT
from scenes.pipeline.jobs.registry import specs

PAGE = Path(__file__).with_name("lab.html")
MAX_BODY = 64 * 1024                  # bytes of one request
RECORD, RECORD_ALL = "录音", "整章录音"    # the index's links to the recording pages (en: the catalogue)
STILL_SECONDS = 120.0                 # a still that takes longer is stopped (its worker restarted)
TRIM_SECONDS = 2.0                    # the lab's folder walked for its cap at most this often
CONNECTIONS = 2048                    # open at once (a stalled one closes after door.HEADER_SECONDS)


def make_app(root: Path, jobs: int = 1, cap_mb: int = 2048, hosts: list[str] | None = None,
             theme: str = "dark", workers: int = 1, scheduler: str | None = None, code: str | None = None) -> Starlette:
    """The lab's app; `hosts`: the Host headers it answers (others get 400: a page elsewhere that
    resolves its own name to 127.0.0.1 cannot reach it); `theme`: its pages', stills' and videos';
    `workers`: still workers here, or `scheduler`: a dask cluster's; `code`: the class code asked."""
    store = Store(root, cap_mb * 1024 * 1024)
    pool: LocalPool | ClusterPool = (ClusterPool(scheduler, STILL_SECONDS, theme) if scheduler else
                                     LocalPool(store.root, workers, STILL_SECONDS, theme))
    stills = Stills(pool, store)
    videos = Videos(store, stills, jobs, theme=theme, cluster=pool if isinstance(pool, ClusterPool) else None)
    body = json_body

    async def compute(request: Request) -> Response:
        """The numbers at once: the clip's rules and its compute alone, no Manim scene, no frame."""
        ask = parse(await body(request))
        try:
            return JSONResponse(await asyncio.to_thread(compute_view, ask, theme))
        except Exception as err:       # the rules took them, the maths did not: one line, no trace
            raise Refused(422, f"{ask.clip} cannot compute these inputs: {type(err).__name__}: {err}"
                          .splitlines()[0][:300]) from None

    async def preset(request: Request) -> Response:
        """An opened preset file ({"clip", "title", "inputs"}) checked as --preset-file checks it."""
        data = await body(request)           # ?clip=NAME: the page's clip, which the file must name
        clip = request.query_params.get("clip") or (data.get("clip") if isinstance(data, dict) else None)
        if not isinstance(clip, str) or clip not in specs():
            raise Refused(404, f"unknown clip; valid: {', '.join(specs())}", "clip")
        return JSONResponse({"clip": clip, "fields": preset_fields(data, clip)})

    async def still(request: Request) -> Response:
        ask = parse(await body(request))
        key = request_key(ask.clip, ask.inputs, "low", ask.lang, ask.step, "still", theme)
        result = await stills.get(key, {"op": "still", "clip": ask.clip, "lang": ask.lang, "given": ask.given,
                                        "step": ask.step}, ask.session)
        if result.get("superseded"):
            raise Refused(409, "superseded by a newer edit")
        if "error" in result:
            raise Refused(500 if result.get("failed") else 422, result["error"], result.get("field"))
        await trim(key)
        return JSONResponse(await asyncio.to_thread(still_view, store, key, ask.step, ask))   # reads its manifest

    async def trim(key: str) -> None:
        """The folder walked for its cap at most every TRIM_SECONDS, off the loop."""
        now = time.monotonic()
        if now - trimmed[0] >= TRIM_SECONDS:
            trimmed[0] = now
            await asyncio.to_thread(store.trim, videos.busy() | stills.inflight | {key})
    trimmed = [0.0]

    recorder = Recorder(store, stills, body, theme)

    async def video(request: Request) -> Response:
        data = await body(request)
        ask = parse(data)
        kind, voice = "video", None
        if data.get("voice") is not None:            # the recording page's takes (lab_record.py)
            part, voice = await recorder.voiced(ask, data["voice"])
            kind = f"video-{part}"
        key = request_key(ask.clip, ask.inputs, ask.quality, ask.lang, None, kind, theme)
        options = {o.key: o for o in specs()[ask.clip].options}
        args = [f"--{options[k].name}" if v is True else f"--{options[k].name}={v}" for k, v in ask.given.items()]
        job = videos.submit(Job(key, ask.clip, ask.lang, ask.quality, ask.given, args, voice=voice), ask.session)
        return JSONResponse(videos.view(job.key), status_code=202)

    def job_key(request: Request) -> str:
        key = request.path_params["key"]
        if key not in videos.jobs:
            raise Refused(404, "no such render")
        return str(key)

    async def job(request: Request) -> Response:
        return JSONResponse(videos.view(job_key(request)))

    async def cancel(request: Request) -> Response:
        return JSONResponse(await videos.cancel(job_key(request)))

    async def events(request: Request) -> Response:
        key = job_key(request)

        async def stream() -> AsyncIterator[str]:
            last = None
            while True:
                view = videos.view(key)
                if view != last:
                    yield f"data: {json.dumps(view)}\n\n"
                    last = view
                if view is None or view["state"] in ("done", "failed", "cancelled"):
                    return
                await asyncio.sleep(0.3)
        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    async def files(request: Request) -> Response:
        key, ext = request.path_params["key"], request.path_params["ext"]
        path = store.file(key, ext) if key not in videos.busy() else None
        if path is None:
            raise Refused(404, "no such file")
        return FileResponse(path, media_type=FILES[ext], filename=path.name,
                            content_disposition_type="inline")

    async def clip_page(request: Request) -> Response:
        name = request.path_params["name"]
        lang = request.query_params.get("lang", SOURCE)
        if name not in specs() or lang not in LANGS:
            raise Refused(404, "no such clip page")
        data = json.dumps(page_data(specs()[name], lang), ensure_ascii=False).replace("</", "<\\/")
        title = html.escape(f"{specs()[name].section} {specs()[name].heading(lang)} · lab")
        return HTMLResponse(PAGE.read_text("utf-8").replace("__COLOURS__", variables(theme))
                            .replace("__EXPLAIN__", SCRIPT.read_text("utf-8"))
                            .replace("__DATA__", data).replace("__TITLE__", title).replace("__LANG__", lang))

    async def index(request: Request) -> Response:
        items = "".join(f'<li><a href="/clip/{s.name}">{html.escape(s.section)} {html.escape(s.heading())}</a>'
                        f' · <a href="/clip/{s.name}?lang=en">{html.escape(s.heading("en"))}</a>'
                        f' · <a href="/record/{s.name}">{RECORD}</a> · <a href="/record/{s.name}?lang=en">{tr(RECORD, "en")}</a>'
                        '</li>'
                        for s in specs().values())
        items += f'<li><a href="/record">{RECORD_ALL}</a> · <a href="/record?lang=en">{tr(RECORD_ALL, "en")}</a></li>'
        return HTMLResponse(f'<!DOCTYPE html><meta charset="utf-8"><title>lab</title><style>{variables(theme)} '
                            'body{font-family:"Noto Sans CJK SC",sans-serif;background:var(--background);'
                            'color:var(--text)} a{color:var(--query)}</style><body><h1>Chapter 4 lab</h1>'
                            f'<ul style="line-height:2">{items}</ul>')

    async def health(request: Request) -> Response:
        workers_ = pool.view()
        return JSONResponse({"ok": True, "worker": next((w["pid"] or w["address"] for w in workers_ if w["pid"] or w["address"]), None),
                             "workers": workers_, "stills": stills.pending, "served": stills.served,
                             "queued": len(videos.queue), "running": len(videos.running)})

    async def refused(request: Request, err: Exception) -> Response:
        assert isinstance(err, Refused)
        return JSONResponse({"error": safe(err.message), "field": safe(err.field), "cell": err.cell},
                            status_code=err.status)

    async def busy(request: Request, err: Exception) -> Response:
        return JSONResponse({"error": str(err), "field": None}, status_code=429, headers={"Retry-After": "2"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        warm = asyncio.create_task(pool.start())      # the slow imports, before the first edit
        yield
        warm.cancel()
        await videos.close()
        await pool.stop()

    def route(path: str, endpoint: Any, methods: list[str] | None = None) -> Route:
        return Route(path, endpoint, methods=methods, max_body_size=MAX_BODY)   # per route: a take is larger

    routes = [route("/", index), route("/health", health), route("/clip/{name}", clip_page),
              route("/api/still", still, ["POST"]), route("/api/video", video, ["POST"]),
              route("/api/compute", compute, ["POST"]), route("/api/preset", preset, ["POST"]),
              route("/api/jobs/{key}", job), route("/api/jobs/{key}/events", events),
              route("/api/jobs/{key}/cancel", cancel, ["POST"]), route("/files/{key}/{ext}", files),
              *recorder.routes(MAX_BODY)]
    guard = [Middleware(TrustedHostMiddleware, allowed_hosts=hosts)] if hosts else []
    if code:
        guard.append(Middleware(ClassCode, code=code))
    return Starlette(routes=routes, lifespan=lifespan, middleware=guard,
                     exception_handlers={Refused: refused, Busy: busy})


def serve(host: str = "127.0.0.1", port: int = 8765, out: str | Path = "media/lab", jobs: int = 1,
          cap_mb: int = 2048, theme: str = "dark", workers: int = 1, scheduler: str | None = None,
          code: str | None = None) -> None:
    """Bind, print the address (port 0: a free one; beyond loopback with its class code), serve
    until interrupted."""
    import uvicorn
    root = Path(out).resolve()
    loopback = ["127.0.0.1", "localhost", "::1", "[::1]"]
    code = None if host in loopback else (code or new_code())
    app = make_app(root, jobs, cap_mb, loopback if host in loopback else None, theme, workers, scheduler, code)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    where = f"a dask cluster at {scheduler}" if scheduler else f"{workers} still worker{'s' * (workers > 1)}"
    print(f"lab: http://{shown}:{sock.getsockname()[1]}/{f'?code={code}' if code else ''}  (folder {root}; {where}; "
          f"{theme} theme; Ctrl-C stops it)", flush=True)
    open_files()
    config = uvicorn.Config(app, log_level="warning", limit_concurrency=CONNECTIONS, timeout_keep_alive=5,
                            timeout_graceful_shutdown=5, http=Deadline, backlog=CONNECTIONS)
    uvicorn.Server(config).run(sockets=[sock])


def open_files() -> None:
    """Room for CONNECTIONS sockets and the lab's own files (the soft limit raised to the hard one)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard == resource.RLIM_INFINITY else min(hard, max(soft, 4 * CONNECTIONS))
    if want != soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
