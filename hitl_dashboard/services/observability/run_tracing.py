"""The runner's span: one "run conversation" span per leased run (its agent turns inside), in the
trace of the decision or start that made the conversation runnable (audit_traces.py stored that
context with the next input). Also binds the conversation id for log lines."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from opentelemetry.trace import SpanKind
from sqlmodel import select

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.observability import context, tracing
from hitl_dashboard.services.transactions import reading

T = TypeVar("T")


def traced_run(run: Callable[[int, str], Awaitable[T]]) -> Callable[[int, str], Awaitable[T]]:
    @functools.wraps(run)
    async def wrapper(conversation_id: int, runner_id: str) -> T:
        with context.bound(conversation_id=conversation_id):
            if not tracing.is_on():
                return await run(conversation_id, runner_id)
            with reading() as uow:
                next_input = uow.session.exec(
                    select(Conversation.next_input).where(Conversation.id == conversation_id)).first()
            with tracing.tracer().start_as_current_span(
                "run conversation", kind=SpanKind.CONSUMER, context=tracing.context_from(next_input),
                attributes={"hitl.conversation.id": conversation_id, "hitl.runner.id": runner_id},
            ):
                return await run(conversation_id, runner_id)

    return wrapper
