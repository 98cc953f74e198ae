"""Per API request: an id (X-Request-ID, kept when the caller sends a sane one) and the
conversation and review ids named in the path, bound for log lines and set on FastAPI's own
request span (FastAPI 0.165 traces requests itself with the global tracer provider)."""

from __future__ import annotations

import re
import uuid

from opentelemetry import trace

from hitl_dashboard.observability import context

_IDS = re.compile(r"/api/(conversations|reviews)/(\d{1,10})(?:/|$)")
_SANE_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestContextMiddleware:
    """Plain ASGI (no BaseHTTPMiddleware), so streamed responses stream and the cost is a few calls."""

    def __init__(self, app, prefix: str = "/api"):
        self.app, self.prefix = app, prefix

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith(self.prefix):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        sent_id = headers.get("x-request-id", "")
        request_id = sent_id if _SANE_ID.match(sent_id) else uuid.uuid4().hex[:16]
        ids = {"request_id": request_id}
        found = _IDS.match(scope["path"])
        if found:
            ids["conversation_id" if found.group(1) == "conversations" else "review_id"] = int(found.group(2))

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        with context.bound(**ids):
            span = trace.get_current_span()  # FastAPI's own server span, when tracing is on
            if span.is_recording():
                span.set_attribute("hitl.request.id", request_id)
                for name, value in ids.items():
                    if name != "request_id":
                        span.set_attribute(f"hitl.{name.removesuffix('_id')}.id", value)
            await self.app(scope, receive, send_with_id)


def traced(scope) -> bool:
    """FastAPI's native telemetry (a server span per request, operation spans inside) for the API
    only: no span per static file, per scrape or health probe, nor one held open for the whole
    life of a browser's websocket."""
    path = scope.get("path", "")
    return scope.get("type") == "http" and path.startswith("/api/") and path != "/api/health"
