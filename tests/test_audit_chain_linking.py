"""The audit chain is linked as late as possible (db/audit.py): just before the commit on SQLite,
right after it through audit_outbox on PostgreSQL. Concurrent writers still leave one gap-free,
verifiable chain; an event exists if and only if its change committed; events left in the outbox
(a crash between a commit and its link) are linked by the next commit."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from sqlalchemy import func, text
from sqlmodel import select

from hitl_dashboard.db import audit as audit_db
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import AuditEvent, AuditOutbox
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.audit import audit
from tests.support.db_state import audit_events, use_cheap_passwords
from tests.support.flow import decide_as, make_people, only_open_review, start, work

WRITERS, ROUNDS = 12, 6


def _chain() -> tuple[list[int], bool]:
    events = audit_events()
    return [e.seq for e in events], audit.verify(None).ok


def _outbox() -> int:
    with UnitOfWork() as uow:
        return uow.session.exec(select(func.count()).select_from(AuditOutbox)).one()


def _run_together(work_of_one, n: int) -> None:
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        barrier.wait()
        try:
            work_of_one(index)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a writer hung"
    assert errors == []


def test_concurrent_writers_leave_one_gap_free_verifiable_chain(db_url):
    def writer(index: int) -> None:
        for round_ in range(ROUNDS):
            with UnitOfWork() as uow:
                append_audit(uow.session, actor=f"w{index}", action="test.write", details={"round": round_})
                append_audit(uow.session, actor=f"w{index}", action="test.write.second", details={"round": round_})
                uow.commit()

    _run_together(writer, WRITERS)
    seqs, ok = _chain()
    assert seqs == list(range(1, 2 * WRITERS * ROUNDS + 1)) and ok
    assert _outbox() == 0
    # A transaction's events are consecutive and in the order they were appended.
    events = audit_events()
    for first, second in zip(events[::2], events[1::2], strict=True):
        assert (first.action, second.action) == ("test.write", "test.write.second")
        assert first.actor == second.actor and first.details == second.details


def test_each_commit_finds_its_events_in_the_chain_when_it_returns(db_url):
    """On PostgreSQL concurrent commits in one process share linking rounds (db/audit._LinkRounds):
    one thread links for the others. Still, every writer reads its own events from the chain as
    soon as its commit returns, whichever thread linked them."""
    missing: list[tuple[int, int]] = []

    def writer(index: int) -> None:
        for round_ in range(ROUNDS):
            with UnitOfWork() as uow:
                append_audit(uow.session, actor=f"w{index}", action="test.write", details={"round": round_})
                uow.commit()
            with UnitOfWork(read_only=True) as uow:
                rounds = uow.session.exec(select(AuditEvent.details).where(AuditEvent.actor == f"w{index}")).all()
            if [d["round"] for d in rounds].count(round_) != 1:
                missing.append((index, round_))

    _run_together(writer, WRITERS)
    assert missing == []
    seqs, ok = _chain()
    assert seqs == list(range(1, WRITERS * ROUNDS + 1)) and ok
    assert _outbox() == 0


def test_two_concurrent_deciders_keep_the_chain_gap_free(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    conversations = [start(f"Add retry with backoff to client {i}") for i in range(4)]
    work()
    reviews = [only_open_review(c).id for c in conversations]

    def decider(index: int) -> None:
        for review_id in reviews[index::2]:
            if index:
                decide_as("alice", review_id, "revise", instructions="add a timeout")
            else:
                decide_as("alice", review_id, "approve")

    _run_together(decider, 2)
    seqs, ok = _chain()
    assert seqs == list(range(1, len(seqs) + 1)) and ok
    assert len([e for e in audit_events() if e.action == "decision.recorded"]) == len(reviews)
    assert _outbox() == 0


def test_a_rolled_back_change_leaves_no_event_anywhere(db_url):
    with UnitOfWork() as uow:
        append_audit(uow.session, actor="erin", action="test.doomed")
        uow.rollback()
        append_audit(uow.session, actor="erin", action="test.kept")
        uow.commit()
    with UnitOfWork() as uow:  # closed without a commit
        append_audit(uow.session, actor="erin", action="test.never")
    assert [e.action for e in audit_events()] == ["test.kept"]
    assert _outbox() == 0


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_events_left_in_the_outbox_are_linked_by_the_next_commit(db_url):
    with UnitOfWork() as uow:
        append_audit(uow.session, actor="erin", action="test.stranded")
        uow.session.commit()  # committed, but not linked: as if the process died right after its commit
    assert _outbox() == 1 and audit_events() == []
    with UnitOfWork() as uow:
        append_audit(uow.session, actor="erin", action="test.next")
        uow.commit()
    assert [(e.seq, e.action) for e in audit_events()] == [(1, "test.stranded"), (2, "test.next")]
    assert _outbox() == 0 and audit.verify(None).ok


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_chain_lock_is_not_held_while_a_change_is_open(db_url):
    """The old append took the lock at the first event and held it to the commit: another writer
    waited for the whole unit of work. Now an open transaction with events holds no lock."""
    with UnitOfWork() as slow:
        append_audit(slow.session, actor="w1", action="test.slow")
        slow.session.flush()
        held = slow.session.execute(text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")).scalar()
        assert held == 0
        with UnitOfWork() as fast:  # commits while the slow one is still open: not blocked
            append_audit(fast.session, actor="w2", action="test.fast")
            fast.commit()
        slow.commit()
    assert [(e.seq, e.action) for e in audit_events()] == [(1, "test.fast"), (2, "test.slow")]
    assert audit.verify(None).ok


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_forked_worker_does_not_wait_for_a_round_of_its_parent(db_url, monkeypatch):
    """Web workers are forked from the process that started them. A linking round running in
    another thread of the parent at the fork never ends in the child; the child starts with none,
    so its commits link their own events."""
    parent = os.getpid()
    in_round, release = threading.Event(), threading.Event()
    real_link = audit_db.link_outbox

    def slow_in_parent(engine, **kwargs):
        if os.getpid() == parent:
            in_round.set()
            release.wait(60)
        return real_link(engine, **kwargs)

    monkeypatch.setattr(audit_db, "link_outbox", slow_in_parent)

    def parent_commit() -> None:
        with UnitOfWork() as uow:
            append_audit(uow.session, actor="parent", action="test.parent")
            uow.commit()

    leader = threading.Thread(target=parent_commit)
    leader.start()
    try:
        assert in_round.wait(30), "the parent's round did not start"
        child = os.fork()
        if child == 0:  # the child: one commit, then report whether its event is in the chain
            code = 1
            try:
                with UnitOfWork() as uow:
                    append_audit(uow.session, actor="child", action="test.child")
                    uow.commit()
                code = 0 if "test.child" in [e.action for e in audit_events()] else 2
            finally:
                os._exit(code)
        deadline = time.monotonic() + 30
        while (done := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if done[0] == 0:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            pytest.fail("the child's commit waited for its parent's round")
        assert os.waitstatus_to_exitcode(done[1]) == 0, "the child's event was not in the chain"
    finally:
        release.set()
        leader.join(60)
    assert sorted(e.action for e in audit_events()) == ["test.child", "test.parent"]
    assert audit.verify(None).ok and _outbox() == 0
