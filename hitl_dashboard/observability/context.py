"""The ids a log line or a span carries: the HTTP request, the conversation, the review request.
Context variables, so each asyncio task and thread sees its own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

request_id: ContextVar[str | None] = ContextVar("hitl_request_id", default=None)
conversation_id: ContextVar[int | None] = ContextVar("hitl_conversation_id", default=None)
review_id: ContextVar[int | None] = ContextVar("hitl_review_id", default=None)
_VARS: dict[str, ContextVar[Any]] = {"request_id": request_id, "conversation_id": conversation_id,
                                     "review_id": review_id}


@contextmanager
def bound(**ids: object) -> Iterator[None]:
    """Within the block, these ids are current (None values are left as they were)."""
    tokens = [(_VARS[name], _VARS[name].set(value)) for name, value in ids.items() if value is not None]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def current() -> dict[str, object]:
    """The ids set now, by name."""
    return {name: var.get() for name, var in _VARS.items() if var.get() is not None}
