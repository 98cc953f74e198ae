"""The queries that grow with the backlog, on SQLite and PostgreSQL, with the indexes of revision
0005 and (baseline, same run, same data) without them:

- a role's queue, first page (50 open requests by due time), over real HTTP with a reviewer's API
  token: GET /api/reviews?role=security_reviewer&status=open. Target p95 <= 20 ms.
- the overdue-escalation check every runner runs every 0.5 s (escalate_overdue, nothing overdue).
- tokens per day for the managers' charts (30-day window). Target p95 <= 100 ms (charts).
- the audit page's four charts together (decisions per day, median time to decision per role, SLA
  breaches per day, tokens per day; 30-day window), as the page reads them. Target p95 <= 100 ms.

Workspaces (issue 41): the data is spread over --workspaces workspaces (default 50); the reviewer
is a member of five of them, the manager of one, so every measure reads through the workspace
filter. Also measured: the conversation list's first page over HTTP (target p95 <= 20 ms).

Data: 100k conversations, 2M messages spread over a year, one or two review requests each, almost
all closed (each decided one with its decision); 5,000 open across the review roles (--quick: 20k
conversations, 200k messages, 2,000 open). Bulk-seeded with executemany, not through the use cases.
Baseline: the same data without the three indexes of 0005, the decisions index of 0010 and the breach
index of 0013, the queue
and the overdue check with their query shape, tokens per day with its old GROUP BY, the charts as
the page reads them.

    .venv/bin/python bench/queue_queries.py [--quick] [--backend sqlite|postgresql]"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import BACKENDS, p95, serve_api, temporary_database, timed_ms  # noqa: E402

NEW_INDEXES = ("ix_reviews_open_role_due", "ix_reviews_open_due", "ix_messages_created_tokens", "ix_decisions_created",
               "ix_reviews_breached", "ix_reviews_open_workspace_role_due", "ix_conversations_workspace_id")
READER_WORKSPACES = (1, 2, 3, 4, 5)  # the reviewer's (a first page of 50 at --quick); the manager's is the first
QUEUE_ROLE = "security_reviewer"
OPEN_ROLES = (("security_reviewer", 0.4), ("product_reviewer", 0.3), ("final_approver", 0.25), ("admin", 0.05))
SIZES = {  # conversations, messages, open review requests, samples (queue, escalation, tokens, charts)
    "full": (100_000, 2_000_000, 5_000, (500, 300, 50, 50)),
    "quick": (20_000, 200_000, 2_000, (200, 100, 20, 20)),
}
TARGETS_MS = {"role queue, first page (HTTP)": 20.0, "conversation list, first page (HTTP)": 20.0,
              "overdue-escalation check": None, "tokens per day (chart)": 100.0, "audit page charts (all four)": 100.0}


def seed(conversations: int, messages: int, open_requests: int, workspaces: int) -> tuple[str, str]:
    """The data set; returns (reviewer's API token, manager's username)."""
    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.models import Conversation, Decision, Message, ReviewRequest, utcnow
    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.db.workspace_models import Workspace
    from hitl_dashboard.services.auth.tokens import issue_token
    from hitl_dashboard.services.auth.users import insert_user, put_membership

    with UnitOfWork() as uow:
        uow.session.add_all([Workspace(id=w, slug=f"group-{w}", name=f"Group {w}") for w in range(2, workspaces + 1)])
        uow.session.flush()
        reviewer = insert_user(uow, username="rita", password="pw-rita-bench", roles=[QUEUE_ROLE])
        for workspace_id in READER_WORKSPACES[1:workspaces]:
            put_membership(uow.session, user_id=reviewer.id, workspace_id=workspace_id, roles=[QUEUE_ROLE])
        insert_user(uow, username="mona", password="pw-mona-bench", roles=["manager"])
        _, token = issue_token(uow, user_id=reviewer.id, name="bench")
        uow.commit()
    if get_engine().dialect.name == "postgresql":  # the rows above named their ids
        with get_engine().begin() as conn:
            conn.exec_driver_sql("SELECT setval(pg_get_serial_sequence('workspaces', 'id'), "
                                 f"{max(workspaces, 1)})")
    rng = random.Random(12)
    now = utcnow()
    per_conversation = max(messages // conversations, 1)
    first_open = conversations - open_requests + 1  # the newest conversations wait for a review
    convs, reviews, msgs, decisions = [], [], [], []
    roles, weights = zip(*OPEN_ROLES, strict=True)
    for cid in range(1, conversations + 1):
        created = now - timedelta(days=365 * (1 - cid / conversations), minutes=rng.randint(60, 600))
        waiting = cid >= first_open
        tokens = [(rng.randint(50, 900), rng.randint(20, 400)) for _ in range(per_conversation)]
        convs.append(dict(
            id=cid, workspace_id=1 + cid % workspaces, title=f"Task {cid}", task=f"Implement feature {cid}",
            task_type="code", template="code",
            gate_policy={}, model_routing={}, on_overdue="escalate",
            status="awaiting_review" if waiting else rng.choice(("approved", "approved", "aborted")),
            initiator_id=reviewer.id, prompt_tokens=sum(p for p, _ in tokens),
            completion_tokens=sum(c for _, c in tokens), checkpoint_version=per_conversation,
            turns_since_review=0, next_seq=per_conversation + 1, crash_count=0, created_at=created,
            updated_at=created))
        for seq, (prompt, completion) in enumerate(tokens, start=1):
            msgs.append(dict(conversation_id=cid, workspace_id=convs[-1]["workspace_id"], seq=seq, source="coder",
                             kind="text",
                             content=f"Turn {seq} of conversation {cid}: a proposed change and its reasoning.",
                             prompt_tokens=prompt, completion_tokens=completion,
                             created_at=created + timedelta(seconds=30 * seq)))
        closed = 1 + (rng.random() < 0.3) - waiting
        for _ in range(closed):
            closed_at = created + timedelta(hours=rng.uniform(0.2, 30))
            reviews.append(_review(len(reviews) + 1, convs[-1]["workspace_id"], cid, rng.choice(roles),
                                   rng.choice(("decided",) * 8 + ("expired", "escalated")),
                                   created, created + timedelta(days=1), closed_at=closed_at))
            if reviews[-1]["status"] == "decided":
                decisions.append(_decision(reviews[-1], reviewer.id, rng.choice(("approve",) * 3 + ("revise",))))
        if waiting:
            due = now + timedelta(hours=rng.uniform(1, 72))
            reviews.append(_review(len(reviews) + 1, convs[-1]["workspace_id"], cid, rng.choices(roles, weights)[0],
                                   "pending" if rng.random() < 0.8 else "claimed", created, due, closed_at=None))
    with get_engine().begin() as conn:
        for table, rows in ((Conversation.__table__, convs), (ReviewRequest.__table__, reviews),
                            (Message.__table__, msgs), (Decision.__table__, decisions)):
            for start in range(0, len(rows), 20_000):
                conn.execute(table.insert(), rows[start:start + 20_000])
    return token, "mona"


def _review(rid, workspace_id, cid, role, status, created, due, *, closed_at) -> dict:  # noqa: ANN001
    return dict(id=rid, workspace_id=workspace_id, conversation_id=cid, kind="signoff", required_role=role,
                rule="signoff",
                reason="Sign off the proposed change", risk_flags=[], subject_type="message", subject_id=cid,
                subject_label="coder message", content_hash="0" * 64, status=status, due_at=due, version=1,
                created_at=created, closed_at=closed_at)


def _decision(review: dict, reviewer_id: int, action: str) -> dict:
    return dict(review_request_id=review["id"], conversation_id=review["conversation_id"], action=action,
                reason="bench", instructions="add a test" if action == "revise" else None, reviewer_id=reviewer_id,
                role=review["required_role"], is_override=False, content_hash=review["content_hash"],
                created_at=review["closed_at"])


def measure(base_url: str, token: str, manager: str, samples: tuple[int, int, int], *,
            old_tokens_query: bool = False) -> dict[str, list[float]]:
    """old_tokens_query: the GROUP BY on the day that tokens per day ran before 0005 (one range sum
    per day is fast only with the index); the queue and the overdue check kept their query shape."""
    import httpx

    from hitl_dashboard.services.audit import audit_stats
    from hitl_dashboard.services.audit.audit_stats import tokens_per_day
    from hitl_dashboard.services.auth.users import find_actor
    from hitl_dashboard.services.reviews.escalation import escalate_overdue
    from hitl_dashboard.services.transactions import reading

    manager_actor = find_actor(manager)
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        def first_page() -> None:
            response = client.get("/api/reviews", params={"role": QUEUE_ROLE, "status": "open", "limit": 50})
            assert response.status_code == 200 and len(response.json()) == 50, response.text[:300]

        def conversation_list() -> None:
            response = client.get("/api/conversations", params={"limit": 50})
            assert response.status_code == 200 and len(response.json()) == 50, response.text[:300]

        def overdue_check() -> None:
            assert escalate_overdue() == []

        def tokens_chart() -> None:
            if old_tokens_query:
                with reading() as uow:
                    assert audit_stats._tokens_per_day_grouped(uow, audit_stats.window_start())
            else:
                assert tokens_per_day(manager_actor)

        def audit_charts() -> None:
            since = audit_stats.window_start()
            if old_tokens_query:  # the four as the page read them before 0005: tokens by GROUP BY
                with reading() as uow:
                    charts = audit_stats.Charts(
                        audit_stats._decisions_per_day(uow, since), audit_stats._median_hours_to_decision(uow, since),
                        audit_stats._sla_breaches_per_day(uow, since), audit_stats._tokens_per_day_grouped(uow, since))
            else:
                charts = audit_stats.charts(manager_actor, since=since)
            assert charts.decisions and charts.medians and charts.breaches and charts.tokens

        return {
            "role queue, first page (HTTP)": timed_ms(first_page, samples[0], warmup=50),
            "conversation list, first page (HTTP)": timed_ms(conversation_list, samples[0], warmup=50),
            "overdue-escalation check": timed_ms(overdue_check, samples[1]),
            "tokens per day (chart)": timed_ms(tokens_chart, samples[2]),
            "audit page charts (all four)": timed_ms(audit_charts, samples[3]),
        }


def drop_new_indexes() -> None:
    from sqlalchemy import text

    from hitl_dashboard.db.engine import get_engine

    with get_engine().begin() as conn:
        for name in NEW_INDEXES:
            conn.execute(text(f"DROP INDEX {name}"))


def analyze() -> None:
    """PostgreSQL's autovacuum would have vacuumed and analyzed tables this size; SQLite is left
    as the app leaves it."""
    from sqlalchemy import text

    from hitl_dashboard.db.engine import get_engine

    engine = get_engine()
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))


def run_backend(backend: str, size: str, workspaces: int) -> list[tuple]:
    conversations, messages, open_requests, samples = SIZES[size]
    with temporary_database(backend) as url:
        token, manager = seed(conversations, messages, open_requests, workspaces)
        analyze()
        with serve_api(url) as base_url:
            indexed = measure(base_url, token, manager, samples)
            drop_new_indexes()
            baseline = measure(base_url, token, manager, samples, old_tokens_query=True)
    return [(backend, name, statistics.median(times), p95(times), TARGETS_MS[name], p95(baseline[name]))
            for name, times in indexed.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20k conversations, 200k messages, fewer samples")
    parser.add_argument("--backend", choices=BACKENDS, action="append", help="default: both")
    parser.add_argument("--workspaces", type=int, default=50, help="workspaces the data is spread over (default 50)")
    args = parser.parse_args()
    size = "quick" if args.quick else "full"
    conversations, messages, open_requests, _ = SIZES[size]
    print(f"queue_queries ({size}): {conversations:,} conversations, {messages:,} messages, "
          f"{open_requests:,} open review requests in {args.workspaces} workspaces; "
          "baseline = same data without the indexes of 0005 and "
          "ix_decisions_created, ix_reviews_breached (0010, 0013)")
    rows = []
    for backend in args.backend or BACKENDS:
        rows += run_backend(backend, size, args.workspaces)
    print(f"{'backend':<11} {'measure':<30} {'p50 ms':>7} {'p95 ms':>7} {'target':>7} {'baseline p95':>13} "
          f"{'ratio':>7}")
    for backend, name, median, figure, target, baseline in rows:
        target_text = f"<= {target:g}" if target else "-"
        print(f"{backend:<11} {name:<30} {median:>7.2f} {figure:>7.2f} {target_text:>7} {baseline:>13.2f} "
              f"{baseline / figure:>6.1f}x")
    print("ratio = baseline p95 / p95 with the indexes (higher is better)")


if __name__ == "__main__":
    main()
