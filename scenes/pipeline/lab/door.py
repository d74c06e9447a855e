"""The lab's door on a network: the class code and the connections' time limits.

A lab listening beyond loopback asks for a code, as Jupyter asks for its token: the address the
lab prints carries it (`http://HOST:PORT/?code=WORD`), a page opened with it keeps it as a cookie
(HttpOnly, SameSite=Strict), and without it every route but /health answers 403. On loopback
there is no code. A connection must send its request's headers within HEADER_SECONDS (a
socket that sends half a request line and stalls is closed then), so that stalled sockets never
lock a class out.
"""
from __future__ import annotations

import asyncio
import hmac
import secrets
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from uvicorn.protocols.http.h11_impl import H11Protocol

COOKIE = "lab_code"
HEADER_SECONDS = 10.0
LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"        # none a student misreads (no l, 1, o, 0, i)
OPEN = {"/health"}


def new_code() -> str:
    return "".join(secrets.choice(LETTERS) for _ in range(8))


class ClassCode:
    """ASGI middleware: a request passes with the code in its cookie or in its address (which
    sets the cookie); else 403."""

    def __init__(self, app: Any, code: str) -> None:
        self.app, self.code = app, code

    def matches(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), self.code.encode())

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN:
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if self.matches((query.get("code") or [None])[0]):
            async def with_cookie(message: dict) -> None:
                if message["type"] == "http.response.start":
                    message = dict(message, headers=[*message.get("headers", []), (
                        b"set-cookie", f"{COOKIE}={self.code}; Path=/; HttpOnly; SameSite=Strict".encode())])
                await send(message)
            return await self.app(scope, receive, with_cookie)
        cookie = SimpleCookie()
        for name, value in scope.get("headers", []):
            if name == b"cookie":
                try:
                    cookie.load(value.decode("latin-1"))
                except Exception:            # a malformed cookie header: no code
                    pass
        if self.matches(cookie[COOKIE].value if COOKIE in cookie else None):
            return await self.app(scope, receive, send)
        body = b'{"error": "this lab asks for its class code: open the address the lecturer gave (it ends ?code=...)", "field": "code"}'
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class Deadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a limit on the wait for a request's headers: from the
    connection's start, or from the first byte of a later request on it."""

    header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:   # type: ignore[override]
        super().connection_made(transport)
        self.arm()

    def arm(self) -> None:
        if self.header_timer is None:
            self.header_timer = self.loop.call_later(HEADER_SECONDS, self.too_slow)

    def disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def data_received(self, data: bytes) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self.arm()                    # a request begins: its headers have HEADER_SECONDS
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self.disarm()                 # they came

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.disarm()                     # the keep-alive timer waits for the next request now

    def too_slow(self) -> None:
        self.header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        super().connection_lost(exc)
