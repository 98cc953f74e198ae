"""OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set.

When on, every process (web workers, runners, the CLI) sends its spans over OTLP/HTTP with the
standard OTEL_* variables (headers, service name, sampler, batch delay). When off, the API's
no-op tracer makes every span here cost next to nothing. AutoGen's own spans (invoke_agent,
execute_tool, its runtime's message spans) use the same global provider, so they land in the
same traces; the runtime's per-message spans are left out unless AUTOGEN_DISABLE_RUNTIME_TRACING=false.

A conversation's life crosses processes: the context of the span that made it runnable (the
start, a decision) is stored with the conversation's next input (`carrier`), and the runner
continues that trace (`context_from`)."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import propagate, trace
from opentelemetry.context import Context

if TYPE_CHECKING:  # the SDK is imported only once traces are on
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider

log = logging.getLogger(__name__)
TRACER_NAME = "hitl_dashboard"
CARRIER_KEY = "trace"  # in Conversation.next_input
_lock = threading.Lock()
_configured = False


def enabled() -> bool:
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def configure(service_name: str) -> bool:
    """Idempotent; True when traces are exported from this process."""
    with _lock:
        if _configured or not enabled():
            return _configured
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        import hitl_dashboard

        resource = Resource.create({
            "service.name": os.environ.get("OTEL_SERVICE_NAME") or "hitl-dashboard",
            "service.version": hitl_dashboard.__version__,
            "service.instance.id": f"{service_name}:{os.getpid()}",
            "hitl.process": service_name,
        })
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        _install(provider)
        log.info("traces: exporting over OTLP/HTTP as %s", service_name)
        return True


def use_provider(provider: SdkTracerProvider) -> None:
    """Trace with a provider built elsewhere (benchmarks, an embedding application)."""
    with _lock:
        _install(provider)


def _install(provider: SdkTracerProvider) -> None:
    global _configured
    # AutoGen's runtime makes a span for every message it routes (each streamed chunk too):
    # thousands per conversation. Its agent and tool spans stay; the operator can opt back in.
    os.environ.setdefault("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")
    trace.set_tracer_provider(provider)
    atexit.register(provider.shutdown)  # the last batch goes out when the process ends
    _configured = True


def is_on() -> bool:
    """True once this process exports traces (configure() found an endpoint)."""
    return _configured


def flush(timeout_ms: int = 5000) -> None:
    provider = trace.get_tracer_provider()
    force_flush = getattr(provider, "force_flush", None)
    if force_flush is not None:
        force_flush(timeout_ms)


_TRACER = trace.get_tracer(TRACER_NAME)  # a proxy: it follows the provider configure() sets later


def tracer() -> trace.Tracer:
    return _TRACER


def carrier() -> dict[str, str]:
    """The current span's context as W3C headers (traceparent), to store with a conversation."""
    headers: dict[str, str] = {}
    propagate.inject(headers)
    return headers


def carrier_of(span: trace.Span) -> dict[str, str]:
    headers: dict[str, str] = {}
    propagate.inject(headers, context=trace.set_span_in_context(span))
    return headers


def context_from(next_input: Mapping[str, Any] | None) -> Context | None:
    """The context stored with a conversation's next input, or None."""
    stored = (next_input or {}).get(CARRIER_KEY)
    if not isinstance(stored, dict) or not stored:
        return None
    return propagate.extract({str(k): str(v) for k, v in stored.items()})
