"""A model call, measured: the Prometheus metrics and a GenAI span (OpenTelemetry semantic
conventions for generative AI: gen_ai.operation.name=chat, request and response model, tokens
in and out, finish reason, error.type). AutoGen 0.7.5 makes agent and tool spans but none for
the model call itself; agents/observed_client.py wraps every model client with this."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from opentelemetry.trace import SpanKind, Status, StatusCode

from hitl_dashboard.observability import metrics, tracing


@dataclass
class ModelCallRecord:
    """What the caller fills in once the reply is there."""

    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str | None = None
    response_model: str | None = None


@contextmanager
def model_call(model: str, provider: str, agent: str, *, streaming: bool) -> Iterator[ModelCallRecord]:
    record = ModelCallRecord()
    started = time.perf_counter()
    if not tracing.is_on():  # the default: metrics only, no span machinery at all
        try:
            yield record
        except Exception as exc:  # a cancellation is no model error
            metrics.model_call(model, time.perf_counter() - started, error_type=type(exc).__name__)
            raise
        metrics.model_call(model, time.perf_counter() - started, input_tokens=record.input_tokens,
                           output_tokens=record.output_tokens)
        return
    with tracing.tracer().start_as_current_span(
        f"chat {model}", kind=SpanKind.CLIENT, record_exception=False, set_status_on_exception=False,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.system": provider, "gen_ai.provider.name": provider,
                    "gen_ai.request.model": model, "gen_ai.agent.name": agent, "hitl.streaming": streaming},
    ) as span:
        try:
            yield record
        except Exception as exc:  # a cancellation is no model error: it only ends the span
            error_type = type(exc).__name__
            metrics.model_call(model, time.perf_counter() - started, error_type=error_type)
            span.set_attribute("error.type", error_type)
            span.set_status(Status(StatusCode.ERROR, str(exc)[:300]))
            raise
        metrics.model_call(model, time.perf_counter() - started, input_tokens=record.input_tokens,
                           output_tokens=record.output_tokens)
        span.set_attribute("gen_ai.usage.input_tokens", record.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", record.output_tokens)
        span.set_attribute("gen_ai.response.model", record.response_model or model)
        if record.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [record.finish_reason])
