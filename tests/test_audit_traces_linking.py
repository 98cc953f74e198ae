"""Traces on PostgreSQL, where a transaction's audit events are linked into the chain after its
commit by whichever linking round comes first, often another request's. A decision's span must
still be a child of its own request's span, and the trace its conversation carries to the runner
must be its own, even when another request's round linked its events.

Run in a child process: an OpenTelemetry tracer provider can be set once per process, and the
trace hooks it switches on would stay on for every later test here."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

CHILD = r"""
import json

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hitl_dashboard.observability import tracing

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
tracing.use_provider(provider)

from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, AuditOutbox
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.reviews.decide import record_decision
from hitl_dashboard import listeners

listeners.install()  # what every process that writes through the services does at start-up
from tests.support import flow

flow.make_people()
a = flow.start("Add retry with backoff to the ledger client")
b = flow.start("Add a timeout to the payments client")
flow.work()
review_a, review_b = flow.only_open_review(a), flow.only_open_review(b)
tracer = tracing.tracer()
with tracer.start_as_current_span("request B") as request_b:
    # B's decision commits and leaves its events in the outbox (no link of its own, as when
    # another thread's round was already running when it committed) ...
    with UnitOfWork() as uow:
        record_decision(uow, flow.actor("alice"), review_b.id,
                        DecisionInput(Action.REVISE, instructions="add a timeout"))
        uow.session.commit()
    with UnitOfWork() as uow:
        waiting = len(uow.session.exec(select(AuditOutbox)).all())
with tracer.start_as_current_span("request A") as request_a:
    flow.decide_as("alice", review_a.id, "revise", instructions="add jitter")  # ... A's round links them too
with UnitOfWork() as uow:
    linked = [e.conversation_id for e in uow.session.exec(
        select(AuditEvent).where(AuditEvent.action == "decision.recorded"))]
spans = exporter.get_finished_spans()
print(json.dumps({
    "waiting_after_b": waiting,
    "linked": linked,
    "request_a": format(request_a.get_span_context().span_id, "016x"),
    "request_b": format(request_b.get_span_context().span_id, "016x"),
    "trace_b": format(request_b.get_span_context().trace_id, "032x"),
    "decisions": [{"conversation": s.attributes.get("hitl.conversation.id"),
                   "parent": format(s.parent.span_id, "016x") if s.parent else None}
                  for s in spans if s.name == "decision revise"],
    "carried_b": (flow.conversation(b).next_input or {}).get("trace", {}).get("traceparent", ""),
    "a": a, "b": b,
}))
"""


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_decision_linked_by_another_requests_round_keeps_its_own_trace(db_url):
    child = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=240)
    assert child.returncode == 0, child.stderr[-3000:]
    seen = json.loads(child.stdout.strip().splitlines()[-1])
    a, b = seen["a"], seen["b"]
    # The scenario: B's events waited in the outbox, and A's round linked both decisions.
    assert seen["waiting_after_b"] >= 1 and sorted(seen["linked"]) == sorted([a, b])
    parents = {d["conversation"]: d["parent"] for d in seen["decisions"]}
    assert len(seen["decisions"]) == 2, seen["decisions"]  # one span per decision, none made twice
    assert parents == {a: seen["request_a"], b: seen["request_b"]}
    assert seen["trace_b"] in seen["carried_b"]  # the runner continues B's own trace
