"""The live bus through the database (no Redis): what the CLI claims, releases and decides reaches
the web worker's live refresh, with the queues it touched, in order; the web worker's own follower
starts at the newest row and keeps only a window of rows. The browser test of the same path, with
the CLI as a process of its own, is tests/e2e/test_live_entry_points.py."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from hitl_dashboard.cli.entry import main
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.live_models import LiveChange
from hitl_dashboard.services.live import live, live_database
from hitl_dashboard.services.live.live_database import DatabasePublisherSink, events_after, follow, newest_id
from hitl_dashboard.services.live.live_events import LiveHandlers
from tests.conftest import run_cli
from tests.support.flow import make_people, only_open_review, start, work


async def _no_stream(*_args) -> None:
    return None


def _follow_until(count: int, act) -> list[tuple[int, tuple[str, ...] | None]]:
    """The web worker's follower, from the newest row now, while `act` runs (in a thread: the CLI's
    asyncio.run needs a loop of its own); returns the first `count` changes it handled."""
    async def scenario() -> list:
        got: list = []
        enough = asyncio.Event()

        def on_changed(conversation_id: int, roles: tuple[str, ...] | None) -> None:
            got.append((conversation_id, roles))
            if len(got) >= count:
                enough.set()

        handlers = LiveHandlers(on_changed, _no_stream)
        follower = asyncio.create_task(follow(handlers, after=newest_id(), interval=0.01))
        try:
            await asyncio.to_thread(act)
            await asyncio.wait_for(enough.wait(), 20)
        finally:
            follower.cancel()
        return got

    return asyncio.run(scenario())


@pytest.fixture
def review(db_url, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)  # the embedded setup: no Redis
    make_people()
    cid = start("Add retry with backoff to the client")
    work()
    return only_open_review(cid)


def test_cli_claim_release_and_decision_reach_the_web_worker(review):
    role = review.required_role

    def act() -> None:
        run_cli("claim", str(review.id), "--as", "alice")
        run_cli("release", str(review.id), "--as", "alice")
        run_cli("decide", str(review.id), "--as", "alice", "--action", "revise", "--instructions", "add a timeout")

    saved = list(live._sinks)
    try:
        # A script (or a test) calling the entry point twice in one process before: each call sets up
        # the live publisher, and a second one would write every change twice.
        for _ in range(2):
            assert main(["queue", "--role", role, "--as", "alice"]) == 0
        got = _follow_until(3, act)
    finally:
        live._sinks[:] = saved
    assert got == [(review.conversation_id, (role,))] * 3


def test_the_follower_starts_after_what_was_written_before(review):
    DatabasePublisherSink().changed(999, ("product_reviewer",))  # old news to a worker starting now
    got = _follow_until(1, lambda: DatabasePublisherSink().changed(review.conversation_id))
    assert got == [(review.conversation_id, None)]  # None: every queue


def test_only_the_newest_rows_are_kept(review, monkeypatch):
    monkeypatch.setattr(live_database, "KEEP", 5)
    sink = DatabasePublisherSink()
    for conversation_id in range(1, 13):
        sink.changed(conversation_id, ("security_reviewer",))
    with get_engine().connect() as connection:
        assert connection.execute(select(func.count()).select_from(LiveChange)).scalar_one() == 5
    assert [event["conversation_id"] for _, event in events_after(0)] == [8, 9, 10, 11, 12]


def test_a_missing_table_loses_only_the_live_update(sqlite_url, caplog):
    with get_engine().begin() as connection:
        connection.exec_driver_sql("DROP TABLE live_changes")
    DatabasePublisherSink().sessions_ended(3)  # the change it follows is committed: nothing raises
    assert "could not publish the live update" in caplog.text
