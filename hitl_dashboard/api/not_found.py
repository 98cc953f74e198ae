"""The JSON 404 of an /api path that no route can even be matched against. Reflex mounts the app at
"" inside an outer Starlette app whose mount pattern stops at a line break: a path with one (an
encoded %0A in a team's name) never reaches the API, and the outer app answered a plain-text 404.
Wrapped around the outermost app (hitl_dashboard.py), this answers it as every other /api 404."""

from __future__ import annotations

import json
from typing import Any

_BODY = json.dumps({"detail": "no API endpoint at this path"}).encode()


class ApiNotFoundAsJson:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not str(scope.get("path", "")).startswith("/api/"):
            await self.app(scope, receive, send)
            return
        replaced = False

        async def sending(message: dict) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message.get("status") == 404 and _plain(message):
                replaced = True
                await send({"type": "http.response.start", "status": 404,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(_BODY)).encode())]})
                await send({"type": "http.response.body", "body": _BODY})
            elif not replaced:
                await send(message)

        await self.app(scope, receive, sending)


def _plain(message: dict) -> bool:
    return any(name.lower() == b"content-type" and value.startswith(b"text/plain")
               for name, value in message.get("headers", []))
