"""Hosted observability, as real processes: one web process with 2 web workers and a separate
runner process on PostgreSQL and Redis, PROMETHEUS_MULTIPROC_DIR shared, traces sent to a real
OTLP/HTTP receiver in the test. After a scripted review flow over the API, /metrics says exactly what
the database says happened, and the traces follow the conversation from the web to the runner."""

from __future__ import annotations

from collections import Counter, defaultdict

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlmodel import select

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.models import Conversation, Decision, Message, ReviewRequest, WebhookDelivery
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.webhooks.webhooks import insert_webhook
from tests.conftest import create_pg_database, drop_pg_database, require_pg
from tests.e2e.support import wait_for
from tests.hosted.cluster import Cluster
from tests.hosted.test_cluster import require_redis, user_with_token
from tests.support.otlp_receiver import OtlpReceiver

REDIS_URL = "redis://127.0.0.1:6379/11"
# One xdist worker runs every test on this Redis database: each one empties it first.
pytestmark = pytest.mark.xdist_group("redis-db-11")
METRICS_TOKEN = "metrics-token-for-the-test"
OPEN = ("pending", "claimed")


@pytest.fixture
def observed_cluster(tmp_path):
    require_pg()
    require_redis(REDIS_URL)
    name = create_pg_database()
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    import os

    os.environ["DATABASE_URL"] = url
    from hitl_dashboard.db.migrations import upgrade_to_head
    from hitl_dashboard.settings import reset_settings_cache

    reset_settings_cache()
    upgrade_to_head()
    (tmp_path / "metrics").mkdir()
    with OtlpReceiver() as receiver:
        cluster = Cluster(url, REDIS_URL, tmp_path)
        cluster.env.update({
            "WEB_WORKERS": "2", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
            "METRICS_TOKEN": METRICS_TOKEN, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "200", "SCRIPTED_DELAY_MS": "0", "WEBHOOK_MAX_ATTEMPTS": "1",
            "LEASE_SECONDS": "30",
        })
        try:
            yield cluster, receiver
        finally:
            cluster.stop_all()
            get_engine(url).dispose()
            drop_pg_database(name)


def wait_until(predicate, what: str, timeout: float = 90.0):
    return wait_for(predicate, timeout=timeout, what=what)


def open_review(engine, conversation_id: int, role: str) -> ReviewRequest | None:
    with UnitOfWork(engine) as uow:
        return uow.session.exec(select(ReviewRequest).where(
            ReviewRequest.conversation_id == conversation_id, ReviewRequest.required_role == role,
            ReviewRequest.status.in_(OPEN))).first()


def scrape(port: int) -> dict[tuple, float]:
    response = httpx.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert response.status_code == 200, response.text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples
            if s.name.startswith("hitl_") and not s.name.endswith("_created")}


def _ancestors(span, by_id: dict) -> list:
    found = []
    while span.parent_span_id in by_id:
        span = by_id[span.parent_span_id]
        found.append(span)
    return found


def test_metrics_and_traces_of_a_review_flow(observed_cluster):
    cluster, receiver = observed_cluster
    engine = get_engine(cluster.database_url)
    starter = user_with_token(engine, "starter", ["product_reviewer"])
    security = user_with_token(engine, "sec", ["security_reviewer"])
    product = user_with_token(engine, "prod", ["product_reviewer"])
    final = user_with_token(engine, "fin", ["final_approver"])
    with UnitOfWork(engine) as uow:  # nobody listens there: every delivery fails, for good
        insert_webhook(uow, None, url="http://127.0.0.1:9/hook", events=["review.decided"])
        uow.commit()
    port = cluster.start_web()
    cluster.start_runner()

    def api(token: str, method: str, path: str, **kw) -> dict:
        response = httpx.request(method, f"http://127.0.0.1:{port}{path}", timeout=30,
                                 headers={"Authorization": f"Bearer {token}"}, **kw)
        assert response.status_code < 300, response.text
        return response.json()

    def decide(token: str, review: ReviewRequest, action: str, **fields) -> None:
        api(token, "POST", f"/api/reviews/{review.id}/decision", json={"action": action, **fields})

    code = api(starter, "POST", "/api/conversations", json={"task": "Add retry to the payments client"})["id"]
    copy = api(starter, "POST", "/api/conversations",
               json={"task": "Write a launch tagline", "task_type": "copy"})["id"]
    first = wait_until(lambda: open_review(engine, code, "security_reviewer"), "the first security review")
    decide(security, first, "revise", instructions="add a timeout", target_agent="coder")
    second = wait_until(lambda: (r := open_review(engine, code, "security_reviewer")) and r.id != first.id and r,
                        "the review of the revision")
    decide(security, second, "approve")
    decide(final, wait_until(lambda: open_review(engine, code, "final_approver"), "the final review"), "approve")
    decide(product, wait_until(lambda: open_review(engine, copy, "product_reviewer"), "the copy review"), "approve")
    wait_until(lambda: open_review(engine, copy, "final_approver"), "the copy's final review")  # left open

    def settled() -> bool:
        with UnitOfWork(engine) as uow:
            pending = uow.session.exec(select(WebhookDelivery).where(WebhookDelivery.status == "pending")).all()
            return uow.session.get(Conversation, code).status == "approved" and not pending
    wait_until(settled, "the flow to settle (approved, every delivery given up)")

    with UnitOfWork(engine) as uow:
        decisions = uow.session.exec(select(Decision)).all()
        conversations = uow.session.exec(select(Conversation)).all()
        messages = uow.session.exec(select(Message)).all()
        failed = len(uow.session.exec(select(WebhookDelivery).where(WebhookDelivery.status == "failed")).all())
        open_by_role = Counter(r.required_role for r in uow.session.exec(
            select(ReviewRequest).where(ReviewRequest.status.in_(OPEN))).all())
    turns = sum(c.checkpoint_version for c in conversations)
    expected = Counter()
    for d in decisions:
        expected[("hitl_decisions_total", (("action", d.action), ("role", d.role)))] += 1
        expected[("hitl_time_to_decision_seconds_count", (("role", d.role),))] += 1
    assert sorted(expected.items())[0][1] >= 1 and len(decisions) == 4
    expected[("hitl_webhook_failures_total", (("event", "review.decided"), ("final", "true")))] = failed
    assert failed == 4

    metrics = scrape(port)
    ages = "hitl_review_queue_oldest_age_seconds"
    again = scrape(port)  # whichever worker answers, the same sums (ages grow, of course)
    assert {k: v for k, v in metrics.items() if k[0] != ages} == {k: v for k, v in again.items() if k[0] != ages}
    for key, value in expected.items():
        assert metrics.get(key) == value, (key, metrics.get(key), value)
    assert sum(v for k, v in metrics.items() if k[0] == "hitl_decisions_total") == len(decisions)
    assert sum(v for k, v in metrics.items() if k[0] == "hitl_agent_turns_total") == turns
    assert sum(v for k, v in metrics.items() if k[0] == "hitl_model_call_duration_seconds_count") == turns
    assert metrics[("hitl_model_tokens_total", (("direction", "output"), ("model", "scripted")))] == sum(
        m.completion_tokens for m in messages)
    for role in ("security_reviewer", "product_reviewer", "final_approver", "admin"):
        assert metrics[("hitl_review_queue_depth", (("role", role),))] == open_by_role.get(role, 0)
    assert metrics[("hitl_review_queue_oldest_age_seconds", (("role", "final_approver"),))] > 0
    assert metrics.get(("hitl_runner_lease_takeovers_total", ()), 0) == 0
    assert not [k for k in metrics if k[0] in ("hitl_model_errors_total", "hitl_sla_breaches_total") and metrics[k]]
    # Samples came from both web workers and the runner process (one file set per process).
    pids = {p.stem.rsplit("_", 1)[-1] for p in (cluster.workdir / "metrics").glob("*.db")}
    assert len(pids) >= 3, pids
    refused = httpx.get(f"http://127.0.0.1:{port}/metrics")
    assert refused.status_code == 401

    # Traces: the start and each decision that resumed the agents opens a chain of turns in its trace.
    spans = receiver.wait_for(lambda s: sum(x.name == "run conversation" for x in s) >= 3
                              and sum(x.name.startswith("decision ") for x in s) >= 4, what="runs and decisions")
    by_trace = defaultdict(list)
    for s in spans:
        by_trace[s.trace_id].append(s)
    runs = [s for s in spans if s.name == "run conversation"]
    for run in runs:
        chain = by_trace[run.trace_id]
        starts = [s for s in chain if s.name in ("conversation.started", "decision revise")]
        assert len(starts) == 1 and run.parent_span_id == starts[0].span_id, [s.name for s in chain]
        assert starts[0].process == "web" and run.process == "runner"
        ancestors = _ancestors(starts[0], {s.span_id: s for s in chain})
        server = [s for s in ancestors if s.attributes.get("http.request.method") == "POST"]
        assert server and server[-1].process == "web", [s.name for s in ancestors]  # FastAPI's request span
        assert len(server[-1].attributes.get("hitl.request.id", "")) == 16  # our id, as in the log lines
        turns_here = [s for s in chain if s.name == "agent turn"]
        assert turns_here and all(t.parent_span_id == run.span_id for t in turns_here)
        assert any(name == "review.requested" for name, _ in run.events)
    model_spans = [s for s in spans if s.name == "chat scripted"]
    assert model_spans and all(s.attributes["gen_ai.usage.output_tokens"] > 0
                               and s.attributes["gen_ai.operation.name"] == "chat" for s in model_spans)
    by_id = {s.span_id: s for s in spans}
    for model_span in model_spans:  # inside AutoGen's invoke_agent span, inside our agent turn
        agent = by_id[model_span.parent_span_id]
        assert agent.name.startswith("invoke_agent ") and by_id[agent.parent_span_id].name == "agent turn"
    revise = next(s for s in spans if s.name == "decision revise")
    assert revise.attributes["hitl.reviewer.role"] == "security_reviewer"
    assert revise.attributes["hitl.conversation.id"] == code and revise.attributes["hitl.review.id"] == first.id
    roles = sorted(s.attributes["hitl.reviewer.role"] for s in spans if s.name == "decision approve")
    assert roles == ["final_approver", "product_reviewer", "security_reviewer"]
    assert {s.process for s in spans} >= {"web", "runner"}
    hooks = receiver.wait_for(lambda s: sum(x.name == "webhook review.decided" for x in s) >= 4, what="webhooks")
    assert all(s.status_code == 2 for s in hooks if s.name == "webhook review.decided")  # STATUS_CODE_ERROR
