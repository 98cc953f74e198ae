"""Metrics in one process: after a scripted flow, every counter and histogram moved by exactly what the
database says happened; a rolled-back decision counts nothing; a lease takeover counts once; the
queue collector reads the open requests; /metrics refuses strangers in hosted mode."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import pytest
from prometheus_client import REGISTRY
from sqlmodel import select
from starlette.requests import Request

from hitl_dashboard.db.models import Conversation, Decision, Message, ReviewRequest, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.services.observability.queue_metrics import queue_snapshot
from hitl_dashboard.services.reviews.escalation import escalate_overdue
from hitl_dashboard.services.runner import leases
from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
from hitl_dashboard.services.webhooks.webhooks import insert_webhook
from tests.support import flow

AGENTS = ("planner", "coder", "copywriter", "operator")


def snapshot() -> dict[tuple, float]:
    """Every sample of our metrics, by (name, labels)."""
    found = {}
    for family in REGISTRY.collect():
        if family.name.startswith("hitl_"):
            for s in family.samples:
                found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found


def moved(before: dict, after: dict) -> dict[tuple, float]:
    return {key: value - before.get(key, 0.0) for key, value in after.items()
            if value - before.get(key, 0.0) and not key[0].endswith(("_created", "_sum"))}


def test_a_flow_moves_each_metric_by_exactly_what_it_did(db_url, monkeypatch):
    monkeypatch.setenv("WEBHOOK_MAX_ATTEMPTS", "1")
    from hitl_dashboard.settings import reset_settings_cache

    reset_settings_cache()
    flow.make_people()
    with UnitOfWork() as uow:  # a receiver that is not there: every delivery fails, for good
        insert_webhook(uow, None, url="http://127.0.0.1:9/nobody", events=["review.decided"])
        uow.commit()
    before = snapshot()

    code = flow.start("Add retry with backoff to the payments client")
    copy = flow.start("Write a tagline for the analytics launch", task_type="copy")
    flow.work()
    flow.decide_as("alice", flow.only_open_review(code).id, "approve")
    stale = flow.only_open_review(code)
    flow.decide_as("carol", stale.id, "approve")
    with pytest.raises(Conflict):  # lost race: rolled back, counts nothing
        flow.decide_as("carol", stale.id, "approve")
    flow.decide_as("bob", flow.only_open_review(copy).id, "revise", instructions="shorter")
    flow.work()
    with UnitOfWork() as uow:  # the copy review is overdue now
        review = uow.session.exec(select(ReviewRequest).where(ReviewRequest.conversation_id == copy,
                                                              ReviewRequest.status == "pending")).one()
        review.due_at = utcnow() - timedelta(minutes=1)
        uow.session.add(review)
        uow.commit()
    assert len(escalate_overdue()) == 1
    report = asyncio.run(deliver_due(limit=100))
    after = snapshot()

    with UnitOfWork() as uow:
        decisions = uow.session.exec(select(Decision)).all()
        turns = sum(c.checkpoint_version for c in uow.session.exec(select(Conversation)).all())
        tokens = uow.session.exec(select(Message)).all()
    expected = Counter()
    for d in decisions:
        expected[("hitl_decisions_total", (("action", d.action), ("role", d.role)))] += 1
        expected[("hitl_time_to_decision_seconds_count", (("role", d.role),))] += 1
    expected[("hitl_sla_breaches_total", (("role", "product_reviewer"),))] = 1
    expected[("hitl_escalations_total", (("role", "product_reviewer"), ("to_role", "admin")))] = 1
    expected[("hitl_webhook_failures_total", (("event", "review.decided"), ("final", "true")))] = len(report.failed)
    got = moved(before, after)
    for key, value in expected.items():
        assert got.get(key) == value, (key, got.get(key), value)
    assert len(report.failed) == len(decisions) == 3
    turn_counts = {k: v for k, v in got.items() if k[0] == "hitl_agent_turns_total"}
    assert sum(turn_counts.values()) == turns and {dict(k[1])["agent"] for k in turn_counts} <= set(AGENTS)
    # The scripted model's calls: every agent turn is one call (the speaker is picked without one).
    calls = sum(v for k, v in got.items() if k[0] == "hitl_model_call_duration_seconds_count")
    assert calls == turns
    output = got.get(("hitl_model_tokens_total", (("direction", "output"), ("model", "scripted"))))
    assert output == sum(m.completion_tokens for m in tokens)
    assert not [k for k in got if k[0] in ("hitl_model_errors_total", "hitl_runner_lease_takeovers_total")]


def test_a_lease_taken_from_a_dead_runner_counts_once(db_url):
    flow.make_people()
    cid = flow.start("Add a health check endpoint")
    before = snapshot()
    with UnitOfWork() as uow:
        assert leases.try_take(uow.session, cid, "runner-a", 30)
        uow.commit()
    with UnitOfWork() as uow:  # runner-a died: its lease ran out
        uow.session.get(Conversation, cid).lease_expires_at = utcnow() - timedelta(seconds=1)
        uow.commit()
    with UnitOfWork() as uow:
        assert leases.try_take(uow.session, cid, "runner-b", 30)
        uow.rollback()  # not committed: no takeover
    with UnitOfWork() as uow:
        assert leases.try_take(uow.session, cid, "runner-b", 30)
        uow.commit()
    assert moved(before, snapshot()) == {("hitl_runner_lease_takeovers_total", ()): 1.0}


def test_the_queue_collector_reads_open_requests_by_role(db_url):
    flow.make_people()
    flow.start("Add a health check endpoint")
    flow.start("Write a tagline for the launch", task_type="copy")
    flow.work()
    found = queue_snapshot()
    assert found["security_reviewer"][0] == 1 and found["product_reviewer"][0] == 1
    assert found["final_approver"] == (0, 0.0) and found["security_reviewer"][1] >= 0


def _request(host: str, headers: dict[str, str] | None = None) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return Request({"type": "http", "method": "GET", "path": "/metrics", "headers": raw, "client": (host, 5000)})


@pytest.mark.parametrize("env, host, headers, status", [
    ({"DEMO_MODE": "true"}, "203.0.113.9", {}, None),
    ({"DEMO_MODE": "false"}, "127.0.0.1", {}, None),
    ({"DEMO_MODE": "false"}, "203.0.113.9", {}, 403),
    ({"DEMO_MODE": "false", "METRICS_ALLOW_NETWORKS": "203.0.113.0/24"}, "203.0.113.9", {}, None),
    ({"DEMO_MODE": "false", "TRUSTED_PROXY_HOPS": "1"}, "127.0.0.1", {"X-Forwarded-For": "203.0.113.9"}, 403),
    ({"DEMO_MODE": "false", "METRICS_TOKEN": "s3cret-metrics-token"}, "127.0.0.1", {}, 401),
    ({"DEMO_MODE": "true", "METRICS_TOKEN": "s3cret-metrics-token"}, "203.0.113.9",
     {"Authorization": "Bearer s3cret-metrics-token"}, None),
    ({"DEMO_MODE": "false", "METRICS_TOKEN": "s3cret-metrics-token"}, "203.0.113.9",
     {"Authorization": "Bearer wrong-token-of-length"}, 401),
])
def test_who_may_scrape(monkeypatch, env, host, headers, status):
    from fastapi import HTTPException

    from hitl_dashboard.api.metrics import _check_access
    from hitl_dashboard.settings import reset_settings_cache

    for name in ("METRICS_TOKEN", "METRICS_ALLOW_NETWORKS", "TRUSTED_PROXY_HOPS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    try:
        if status is None:
            _check_access(_request(host, headers))
        else:
            with pytest.raises(HTTPException) as refused:
                _check_access(_request(host, headers))
            assert refused.value.status_code == status
    finally:
        reset_settings_cache()
