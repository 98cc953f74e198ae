"""The queries that grow with the backlog read their indexes (SQLite and PostgreSQL): a role's
queue reads its first page in order from the open-requests index (no sort of every open row),
the overdue check reads only open requests, tokens per day reads the messages' time index, the
managers' analytics read the period's requests and decisions from their creation-time indexes.
And on SQLite a read never waits for the writer."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import event, text, update

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.models import ReviewRequest, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.analytics.review_analytics import AnalyticsFilters, review_analytics
from hitl_dashboard.services.audit.audit_stats import charts, tokens_per_day, window_start
from hitl_dashboard.services.reviews.escalation import escalate_overdue
from hitl_dashboard.services.transactions import reading, transaction
from tests.support.db_state import use_cheap_passwords
from tests.support.flow import actor, make_people, only_open_review, queue, start, work


@contextlib.contextmanager
def plans() -> Iterator[list[tuple[str, str]]]:
    """(statement, its plan) for every SELECT run in the block, the plan asked of the database
    just before the statement runs. On PostgreSQL sequential scans are priced out, since a test's
    few rows would make any plan look fine: what is asked is whether the query can use the index."""
    engine = get_engine()
    seen: list[tuple[str, str]] = []

    def explain(conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001, ARG001
        if not statement.lstrip().upper().startswith("SELECT"):
            return
        if engine.dialect.name == "postgresql":
            # Not SET LOCAL: reads run in autocommit on PostgreSQL, where it would not hold.
            cursor.execute("SET enable_seqscan = off")
            cursor.execute("EXPLAIN " + statement, parameters)
            plan = cursor.fetchall()
            cursor.execute("RESET enable_seqscan")
        else:
            cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters)
            plan = cursor.fetchall()
        seen.append((statement, "\n".join(str(row[-1]) for row in plan)))

    event.listen(engine, "before_cursor_execute", explain)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", explain)


# A manager reads one workspace's figures (issue 41): the period's rows by their time index, or the
# workspace's rows by an index that leads with the workspace; never a pass over a whole table.
WORKSPACE_INDEXES = ("ix_conversations_workspace_id", "ix_reviews_open_workspace_role_due",
                     "ix_messages_workspace_created_tokens")


def _indexed(plan: str, time_index: str) -> bool:
    return (time_index in plan or any(index in plan for index in WORKSPACE_INDEXES)) and "Seq Scan" not in plan \
        and "SCAN " not in plan.replace("COVERING INDEX", "")


def _plan_of(seen: list[tuple[str, str]], table: str) -> str:
    found = [plan for statement, plan in seen if f"FROM {table}" in statement]
    assert found, f"no query on {table} ran: {[s for s, _ in seen]}"
    return found[0]


@pytest.fixture
def open_review(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    cid = start("Add rate limiting to the login endpoint")
    work()
    return only_open_review(cid)


def test_the_role_queue_reads_its_first_page_from_the_open_requests_index(open_review):
    with plans() as seen:
        page = queue("alice", open_review.required_role)
    assert [item.id for item in page] == [open_review.id]
    plan = _plan_of(seen, "review_requests")
    # The queue of alice's workspace: the open requests of her role there, in order.
    assert "ix_reviews_open_workspace_role_due" in plan
    assert "TEMP B-TREE" not in plan and "Sort" not in plan  # the index gives the order


def test_the_overdue_check_reads_only_open_requests(open_review):
    with UnitOfWork() as uow:
        uow.session.exec(update(ReviewRequest).where(ReviewRequest.id == open_review.id)
                         .values(due_at=utcnow() - timedelta(minutes=5)))
        uow.commit()
    with plans() as seen:
        escalated = escalate_overdue()
    assert escalated == [open_review.id]
    assert "ix_reviews_open_due" in _plan_of(seen, "review_requests")


def test_tokens_per_day_reads_the_messages_time_index(open_review):
    with plans() as seen:
        days = tokens_per_day(actor("dave"))
    assert sum(day.count for day in days) > 0
    assert _indexed(_plan_of(seen, "messages"), "ix_messages_created_tokens")


def test_the_analytics_read_the_period_from_the_creation_time_indexes(open_review):
    with plans() as seen:
        figures = review_analytics(actor("dave"), AnalyticsFilters(days=30))
    assert [(rate.role, rate.requests) for rate in figures.rates] == [(open_review.required_role, 1)]
    opened_per_role = [plan for statement, plan in seen
                       if "FROM review_requests" in statement and "count(" in statement.lower()]
    assert opened_per_role and _indexed(opened_per_role[0], "ix_reviews_created")
    assert _indexed(_plan_of(seen, "decisions"), "ix_decisions_created")


def test_the_audit_page_charts_read_no_whole_table_of_review_requests(open_review):
    with UnitOfWork() as uow:  # one breach in the window, so the breach chart has a row to read
        uow.session.exec(update(ReviewRequest).where(ReviewRequest.id == open_review.id)
                         .values(status="expired", closed_at=utcnow()))
        uow.commit()
    with plans() as seen:
        figures = charts(actor("dave"), since=window_start())
    assert [(row.key, row.count) for row in figures.breaches] == [("expired", 1)]
    breaches = [plan for statement, plan in seen if "FROM review_requests" in statement
                and "FROM decisions" not in statement and "count(" in statement.lower()]
    assert breaches and "ix_reviews_breached" in breaches[0]
    medians = [plan for statement, plan in seen if "FROM decisions" in statement and "review_requests" in statement]
    assert medians and _indexed(medians[0], "ix_decisions_created")
    # The decision's request by its key, never a pass over every review request.
    assert "SCAN review_requests" not in medians[0] and "Seq Scan on review_requests" not in medians[0]
    assert "Hash Join" not in medians[0]


def test_a_read_on_sqlite_does_not_wait_for_the_writer(sqlite_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    read_done = threading.Event()
    names: list[str] = []

    def read() -> None:
        with reading() as uow:
            names.extend(uow.session.exec(text("SELECT username FROM users ORDER BY username")).scalars())
        read_done.set()

    with transaction() as writer:
        # The writer holds SQLite's write lock (BEGIN IMMEDIATE) until its block ends.
        writer.session.exec(text("UPDATE users SET display_name = 'busy' WHERE username = 'alice'"))
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        # Were the read to take the write lock, it would wait here for the whole busy timeout (30 s).
        finished_while_writer_held_the_lock = read_done.wait(timeout=10)
    reader.join(timeout=40)
    assert finished_while_writer_held_the_lock
    assert names[:2] == ["alice", "bob"]
