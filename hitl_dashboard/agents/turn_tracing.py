"""A span per agent turn ("agent turn"): AutoGen's own invoke_agent span and our "chat" model
span (observability/genai.py) nest inside it; its attributes say who spoke, the tokens used and
why the turn stopped. The conversation id comes from the runner's context (observability.context)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from opentelemetry.trace import Status, StatusCode

from hitl_dashboard.observability import context, tracing


def traced_turn(run_turn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(run_turn)
    async def wrapper(self, task, *args, **kwargs):
        if not tracing.is_on():
            return await run_turn(self, task, *args, **kwargs)
        attributes = {"hitl.conversation.id": context.conversation_id.get(),
                      "hitl.resumed_by": (task or {}).get("source")}
        with tracing.tracer().start_as_current_span(
            "agent turn", attributes={k: v for k, v in attributes.items() if v is not None},
            record_exception=True, set_status_on_exception=False,
        ) as span:
            try:
                turn = await run_turn(self, task, *args, **kwargs)
            except Exception as exc:
                span.set_status(Status(StatusCode.ERROR, str(exc)[:300]))
                span.set_attribute("error.type", type(exc).__name__)
                raise
            span.set_attribute("gen_ai.agent.name", ",".join(dict.fromkeys(m.source for m in turn.messages)))
            span.set_attribute("gen_ai.usage.input_tokens", sum(m.prompt_tokens for m in turn.messages))
            span.set_attribute("gen_ai.usage.output_tokens", sum(m.completion_tokens for m in turn.messages))
            span.set_attribute("hitl.turn.messages", len(turn.messages))
            if turn.stop_reason:
                span.set_attribute("hitl.turn.stop_reason", turn.stop_reason[:200])
            return turn

    return wrapper
