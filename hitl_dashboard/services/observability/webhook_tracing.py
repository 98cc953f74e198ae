"""A client span per webhook delivery attempt: event, delivery id, attempt, outcome (the URL's
host only: a URL may carry a token in its path or query)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.trace import SpanKind, Status, StatusCode

from hitl_dashboard.observability import tracing

Outcome = tuple[int | None, str | None]


def traced_delivery(send: Callable[[Any, Any], Awaitable[Outcome]]) -> Callable[[Any, Any], Awaitable[Outcome]]:
    @functools.wraps(send)
    async def wrapper(client, job) -> Outcome:
        if not tracing.is_on():
            return await send(client, job)
        attributes = {"hitl.webhook.event": job.event, "hitl.webhook.delivery_id": job.delivery_id,
                      "hitl.webhook.attempt": job.attempt, "server.address": urlsplit(job.url).hostname or ""}
        with tracing.tracer().start_as_current_span(f"webhook {job.event}", kind=SpanKind.CLIENT,
                                                    attributes=attributes) as span:
            status_code, error = await send(client, job)
            if status_code is not None:
                span.set_attribute("http.response.status_code", status_code)
            if error is not None:
                span.set_status(Status(StatusCode.ERROR, error[:300]))
            return status_code, error

    return wrapper
