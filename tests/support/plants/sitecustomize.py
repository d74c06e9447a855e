"""Bugs planted back into a real lab server process (LAB_PLANT=NAME, put on the path by
support.lab_client.lab_server): each is the fault a network found, before its mend, so that the
test of the mend can be seen to fail. Never on the path otherwise."""
import os

PLANT = os.environ.get("LAB_PLANT")

if PLANT:
    from scenes.pipeline.lab import record, request, server
    from scenes.pipeline.lab.work import pool

    if PLANT == "one-try":                  # a worker gone: its request reported, not drawn again
        async def draw_once(self, request_, folder):
            worker = await self.idle.get()
            try:
                answer = await worker.ask(dict(request_, out=str(folder)))
            except pool.WorkerGone:
                pool.asyncio.create_task(self.restart(worker))
                raise
            self.idle.put_nowait(worker)
            return answer
        pool.LocalPool.draw = draw_once
    elif PLANT == "any-text":               # a lone surrogate taken as text, echoed into the error
        request.text_only = lambda node, name: None
        server.safe = lambda text: text
    elif PLANT == "no-deadline":            # uvicorn's own protocol, 200 connections at most
        from uvicorn.protocols.http.h11_impl import H11Protocol
        server.Deadline, server.CONNECTIONS = H11Protocol, 200
    elif PLANT == "take-in-loop":           # a take decoded whole in the server's loop
        from scenes.pipeline.video import voice

        async def put_take(self, request_):
            script, n = self.address(request_)
            data = await request_.body()
            seconds = self.takes.save(script, n, request_.headers.get("content-type", ""), data)
            return record.JSONResponse({"step": n, "seconds": seconds})
        record.Recorder.put_take = put_take
        full = voice.audio_seconds
        import scenes.pipeline.lab.takes as takes
        takes.audio_seconds = lambda path, limit=None: full(path)
    else:
        raise SystemExit(f"unknown LAB_PLANT {PLANT}")
