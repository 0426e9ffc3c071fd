"""The server's state for machines: /health, and /events (a page reloads when the contest changes)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.server.web.site import site

EVENT_POLL_S = 1.0


async def health(request: Request) -> Response:
    """200 while every thread runs and the ladder has not stopped, else 503; the queue's counts."""
    contest = site(request).contest
    alive = {t.name: t.is_alive() for t in contest.engine.threads}
    ok = bool(alive) and all(alive.values()) and not contest.engine.error if contest.start_engine else True
    body = {"ok": ok, "threads": alive, "uptime_s": round(time.time() - contest.started, 1),
            "frozen": contest.db.setting("frozen") == "1", "paused": contest.db.setting("paused") == "1",
            "finals": contest.db.setting("finals") or "none", **contest.queue()}
    if contest.engine.error:
        body["error"] = contest.engine.error
    return JSONResponse(body, status_code=200 if ok else 503)


async def events(request: Request) -> Response:
    """Server-sent events: the database's generation whenever it changes, a comment now and then."""
    contest = site(request).contest

    async def stream() -> Any:
        last = ""
        quiet = 0.0
        while not contest.engine.stop_event.is_set():
            if await request.is_disconnected():
                return
            current = await run_in_threadpool(contest.db.generation)
            if current != last:
                last, quiet = current, 0.0
                yield f"data: {current}\n\n"
            elif quiet > 15:
                quiet = 0.0
                yield ": still here\n\n"
            await asyncio.sleep(EVENT_POLL_S)
            quiet += EVENT_POLL_S
    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


ROUTES = [Route("/health", health), Route("/events", events)]
