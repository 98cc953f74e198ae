"""What observing a model call costs: the wrapper every agent's model client gets (latency, tokens
and error metrics; a GenAI "chat" span), timed against the same bare client in the same run, with
tracing off (the default) and on (the SDK's tracer provider and batch processor, with an exporter
that drops the spans, so the figure is ours and not the network's).

    .venv/bin/python bench/observability_overhead.py [--calls 20000] [--quick]

Targets, per model call: at most 0.1 ms added with tracing off (the default; 5% of the 2 ms the
design allows all our per-turn work), at most 0.5 ms with tracing on (opt-in; a real model call
takes hundreds of ms). The per-turn total is bench/turn_overhead.py's figure."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autogen_core.models import CreateResult, RequestUsage, UserMessage  # noqa: E402
from autogen_ext.models.replay import ReplayChatCompletionClient  # noqa: E402

TARGET_OFF_MS, TARGET_ON_MS = 0.1, 0.5
REPLY = CreateResult(finish_reason="stop", content="ok", usage=RequestUsage(prompt_tokens=12, completion_tokens=3),
                     cached=False)


def bare_client(calls: int) -> ReplayChatCompletionClient:
    return ReplayChatCompletionClient([REPLY] * calls)


async def per_call_us(client, calls: int) -> float:
    messages = [UserMessage(content="hi", source="user")]
    rounds = []
    for _ in range(5):  # the median of five rounds of calls/5
        started = time.perf_counter()
        for _ in range(calls // 5):
            await client.create(messages)
        rounds.append((time.perf_counter() - started) / (calls // 5) * 1e6)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="5,000 calls")
    args = parser.parse_args()
    if args.quick:
        args.calls = min(args.calls, 5_000)
    from hitl_dashboard.agents.model_clients import ModelSpec
    from hitl_dashboard.agents.observed_client import observed
    from hitl_dashboard.observability import tracing

    spec = ModelSpec(provider="openai", model="bench-model")
    bare = asyncio.run(per_call_us(bare_client(args.calls), args.calls))
    off = asyncio.run(per_call_us(observed(bare_client(args.calls), spec, "coder"), args.calls))

    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Dropping(SpanExporter):
        def export(self, spans):  # noqa: ANN001
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropping()))
    tracing.use_provider(provider)
    on = asyncio.run(per_call_us(observed(bare_client(args.calls), spec, "coder"), args.calls))
    provider.shutdown()

    print(f"model calls: {args.calls} per variant (median of 5 rounds)")
    print(f"bare client call:            {bare:8.1f} us")
    print(f"observed, tracing off:       {off:8.1f} us  (+{off - bare:.1f} us, {off / bare:.2f}x)")
    print(f"observed, tracing on:        {on:8.1f} us  (+{on - bare:.1f} us, {on / bare:.2f}x)")
    for label, value, target in (("off", off, TARGET_OFF_MS), ("on", on, TARGET_ON_MS)):
        added = (value - bare) / 1000
        print(f"added with tracing {label + ':':4}     {added:.3f} ms  target <= {target} ms  "
              f"({'ok' if added <= target else 'OVER'})")


if __name__ == "__main__":
    main()
