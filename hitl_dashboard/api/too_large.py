"""The body limit's 413 in the API's own error shape.

Starlette's body limit (what FastAPI's per-router `max_body_size` uses) answers a body over the
limit with a plain-text "Content Too Large", whatever the route documents. The API documents every
error as JSON (`{"detail": ...}`, api/errors.py), and clients parse one format: this ASGI wrapper
turns that one answer into JSON on the way out. Everything else passes through untouched."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOO_LARGE_BODY = json.dumps({"detail": "Request body too large"}).encode()


class JsonTooLarge:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rewriting = False

        async def send_json(message: Message) -> None:
            nonlocal rewriting
            if message["type"] == "http.response.start" and message["status"] == 413 and _is_plain_text(message):
                rewriting = True
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-type", b"content-length")]
                headers += [(b"content-type", b"application/json"),
                            (b"content-length", str(len(TOO_LARGE_BODY)).encode())]
                await send({**message, "headers": headers})
                return
            if rewriting and message["type"] == "http.response.body":
                if not message.get("more_body", False):  # the plain text is dropped; ours goes once
                    await send({"type": "http.response.body", "body": TOO_LARGE_BODY})
                return
            await send(message)

        await self.app(scope, receive, send_json)


def _is_plain_text(message: Message) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"text/plain") for k, v in message.get("headers", []))
