"""Hosted: 2 web workers and 2 runner processes on PostgreSQL and Redis push 20 conversations
through review over the API, while a runner is SIGKILLed mid-turn and a web worker restarts."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from sqlalchemy import text
from sqlmodel import select

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.models import AuditEvent, Conversation, Decision, Message, ReviewRequest, WebhookDelivery
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.audit_chain import verify_chain
from hitl_dashboard.services.auth.tokens import issue_token
from hitl_dashboard.services.auth.users import insert_user
from hitl_dashboard.services.webhooks.webhook_delivery import CLAIM_MARGIN_S
from hitl_dashboard.services.webhooks.webhooks import insert_webhook
from hitl_dashboard.settings import get_settings
from tests.conftest import create_pg_database, drop_pg_database, require_pg
from tests.hosted.cluster import Cluster
from tests.support.redis_check import redis_or_skip

REDIS_URL = "redis://127.0.0.1:6379/7"
# One xdist worker runs every test on this Redis database: each one empties it first.
pytestmark = pytest.mark.xdist_group("redis-db-7")
CODE_TASKS = 16
OPS_TASKS = 4


def require_redis(url: str = REDIS_URL) -> None:
    """Redis at `url`, its database emptied; or a skip (a failure in CI)."""
    redis_or_skip(url).flushdb()


class Receiver:
    """A webhook endpoint on 127.0.0.1 that records every delivery."""

    def __init__(self):
        self.deliveries: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.deliveries.append({"delivery": self.headers.get("X-HITL-Delivery"),
                                            "received_at": time.monotonic(), **json.loads(body)})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture
def cluster(tmp_path):
    require_pg()
    require_redis()
    name = create_pg_database()
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    os.environ["DATABASE_URL"] = url
    from hitl_dashboard.db.migrations import upgrade_to_head
    from hitl_dashboard.settings import reset_settings_cache

    reset_settings_cache()
    upgrade_to_head()  # the release step: once, before any worker starts
    cluster = Cluster(url, REDIS_URL, tmp_path)
    try:
        yield cluster
    finally:
        cluster.stop_all()
        get_engine(url).dispose()
        drop_pg_database(name)


def user_with_token(engine, name: str, roles: list[str]) -> str:
    # The cluster's database, not this process's: the steps, in a unit of work on its engine.
    with UnitOfWork(engine) as uow:
        user = insert_user(uow, username=name, password="pw-" + name, roles=roles)
        _, token = issue_token(uow, user_id=user.id, name="cluster test")
        uow.commit()
        return token


def call(ports: list[int], token: str, method: str, path: str, **kw) -> httpx.Response:
    """Round-robin over the web workers; a worker that is restarting is skipped."""
    for attempt in range(60):
        port = ports[attempt % len(ports)]
        try:
            response = httpx.request(method, f"http://127.0.0.1:{port}{path}", timeout=20,
                                     headers={"Authorization": f"Bearer {token}", **kw.pop("headers", {})}, **kw)
            if response.status_code < 500:
                return response
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"{method} {path} failed on every worker")


def runner_holding_a_lease(engine, runner) -> bool:
    with engine.connect() as conn:
        owners = conn.execute(text("SELECT lease_owner FROM conversations WHERE lease_owner IS NOT NULL")).all()
    return any(f":{runner.pid}:" in owner for (owner,) in owners)


def wait_until_holding(engine, runner, seconds: float = 1.5) -> bool:
    """Right after a decision a turn starts; catch the first runner while it works on one."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if runner_holding_a_lease(engine, runner):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.slow  # about a minute: a whole cluster under load
def test_cluster_loses_and_duplicates_nothing(cluster: Cluster):
    engine = get_engine(cluster.database_url)
    starter = user_with_token(engine, "starter", ["product_reviewer"])
    security = user_with_token(engine, "sec", ["security_reviewer"])
    final = user_with_token(engine, "fin", ["final_approver"])
    receiver = Receiver()
    with UnitOfWork(engine) as uow:
        insert_webhook(uow, None, url=receiver.url, events=["review.requested", "review.decided",
                                                              "review.escalated", "conversation.finished"])
        uow.commit()

    ports = [cluster.start_web(), cluster.start_web()]
    first_runner = cluster.start_runner()
    cluster.start_runner()

    ids = []
    for i in range(CODE_TASKS + OPS_TASKS):
        body = ({"task": f"Add retry with backoff to service {i}", "task_type": "code"} if i < CODE_TASKS
                else {"task": f"Deploy billing-api v2.{i}.0 to production", "task_type": "ops"})
        response = call(ports, starter, "POST", "/api/conversations", json=body)
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])

    revised: set[int] = set()
    decided = 0
    killed = restarted = False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with UnitOfWork(engine) as uow:
            statuses = Counter(uow.session.exec(select(Conversation.status).where(Conversation.id.in_(ids))))
        if statuses == Counter({"approved": len(ids)}):
            break
        assert not statuses.get("failed") and not statuses.get("aborted"), statuses
        if not killed and decided >= 4 and wait_until_holding(engine, first_runner):
            os.killpg(first_runner.pid, signal.SIGKILL)  # mid-turn: it holds a lease right now
            first_runner.wait()
            cluster.start_runner()
            killed = True
        if not restarted and decided >= 12:
            cluster.stop_web(ports[1])
            cluster.start_web(ports[1])
            restarted = True
        progressed = False
        for role, token in (("security_reviewer", security), ("final_approver", final)):
            response = call(ports, token, "GET", f"/api/reviews/next?role={role}")
            if response.status_code != 200:
                continue
            review = response.json()
            cid = review["conversation_id"]
            if review["kind"] == "signoff" and role == "security_reviewer" and cid not in revised:
                decision = {"action": "revise", "instructions": "add a timeout", "target_agent": "coder"}
                revised.add(cid)
            else:
                decision = {"action": "approve"}
            key = f"cluster-{review['id']}"
            for _ in range(2):  # a client retry after a lost answer: applied once
                response = call(ports, token, "POST", f"/api/reviews/{review['id']}/decision", json=decision,
                                headers={"Idempotency-Key": key})
                assert response.status_code in (200, 201, 409), response.text
            decided += 1
            progressed = True
        if not progressed:
            time.sleep(0.3)
    else:
        raise AssertionError(f"not all conversations finished: {statuses}")
    assert killed and restarted

    with UnitOfWork(engine) as uow:
        for cid in ids:
            messages = uow.session.exec(select(Message).where(Message.conversation_id == cid)
                                        .order_by(Message.seq)).all()
            assert [m.seq for m in messages] == list(range(1, len(messages) + 1)), cid
            agent_texts = [(m.source, m.content) for m in messages if m.kind != "decision"]
            assert len(agent_texts) == len(set(agent_texts)), f"duplicated message in {cid}"
            assert sum(m.source == "planner" for m in messages) == 1
        decisions = uow.session.exec(select(Decision.review_request_id)).all()
        assert len(decisions) == len(set(decisions))  # no review decided twice
        assert len(decisions) == CODE_TASKS * 3 + OPS_TASKS * 2  # revise, approve, final; tool, final
        open_reviews = uow.session.exec(select(ReviewRequest).where(
            ReviewRequest.status.in_(["pending", "claimed"]))).all()
        assert open_reviews == []
        requested = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "review.requested")).all()

    # Every webhook event was delivered (runners deliver; each claims its batch).
    def delivered(event: str) -> int:
        return len({d["id"] for d in receiver.deliveries if d["event"] == event})

    # A delivery the killed runner had claimed and not sent waits until its claim runs out (the
    # send timeout plus CLAIM_MARGIN_S after the claim), which may be up to that long from now.
    deadline = time.monotonic() + get_settings().webhook_timeout_s + CLAIM_MARGIN_S + 20
    while time.monotonic() < deadline and (delivered("review.requested") < len(requested)
                                           or delivered("conversation.finished") < len(ids)):
        time.sleep(0.5)
    assert delivered("review.requested") == len(requested)
    # Once each, but for what delivery at least once allows: a delivery the killed runner had sent
    # and not yet recorded is sent again by another runner once its claim has run out (the send
    # timeout plus CLAIM_MARGIN_S after it was claimed), under the same X-HITL-Delivery id, so the
    # receiver can tell. Nothing else may arrive twice.
    by_event = Counter(d["id"] for d in receiver.deliveries)
    twice = sorted(e for e, n in by_event.items() if n > 1)
    assert by_event and max(by_event.values()) <= 2, twice
    with UnitOfWork(engine) as uow:
        rows = {row.event_id: row for row in uow.session.exec(select(WebhookDelivery))}
    for event_id in twice:
        first, again = sorted((d for d in receiver.deliveries if d["id"] == event_id), key=lambda d: d["received_at"])
        assert first["delivery"] == again["delivery"] == str(rows[event_id].id), event_id
        assert again["received_at"] - first["received_at"] >= CLAIM_MARGIN_S, f"{event_id} sent twice while claimed"
        assert rows[event_id].attempts == 2, event_id  # claimed once more, after the killed claim ran out
    finished = [d for d in receiver.deliveries if d["event"] == "conversation.finished"]
    assert sorted(d["data"]["conversation"]["id"] for d in finished) == sorted(ids)

    # The audit chain survived concurrent writers in several processes.
    from hitl_dashboard.services.audit import audit
    with UnitOfWork(engine) as uow:
        assert verify_chain(audit.chain_rows(uow)).ok
