"""Issue 8.4: no conversation loops for ever. Model output too long for its column is shortened;
a turn the database refuses fails the conversation with a clear reason (once, not in a loop); a run
that crashes backs off and finally fails; an admin can abort a conversation in any state, and a
runner in the middle of a turn stops without writing over the abort. Both databases."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.models import Conversation, TurnCheckpoint, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied
from hitl_dashboard.services.conversations.conversations import abort_conversation, retry_conversation
from hitl_dashboard.services.live import live
from hitl_dashboard.services.runner.runner import run_conversation
from hitl_dashboard.settings import reset_settings_cache
from tests.conftest import run_cli
from tests.support import flow
from tests.support.db_faults import ERROR, accept_revisions_again, refuse_revisions_named
from tests.support.db_state import audit_events, reviews_of, use_cheap_passwords

LONG_TASK = "x" * 300


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    flow.make_people()
    return db_url


def _abort(name: str, conversation_id: int, reason: str = "stuck in a loop") -> Conversation:
    return abort_conversation(flow.actor(name), conversation_id, reason)


def test_a_300_character_task_is_reviewed_with_a_shortened_file_key(people):
    conversation_id = flow.start(LONG_TASK)
    flow.work()
    c = flow.conversation(conversation_id)
    assert (c.status, c.lease_owner, c.crash_count) == ("awaiting_review", None, 0)
    [revision] = flow.detail(conversation_id).revisions
    assert len(revision.key) == 255 and revision.key.startswith("app/xxx") and revision.key.endswith(".py")
    review = flow.only_open_review(conversation_id)
    assert len(review.subject_label) <= 255 and review.subject_label.startswith("app/xxx")


def test_a_turn_the_database_refuses_fails_once_with_a_clear_reason_and_an_admin_retry_resumes_it(people):
    conversation_id = flow.start("Write a boomerang tracker")
    engine = get_engine(people)
    refuse_revisions_named(engine, "boomerang")
    try:
        assert flow.work() == 1  # one run, then nothing runnable: no loop
        c = flow.conversation(conversation_id)
        assert c.status == "failed"
        assert c.status_reason == f"storing agent turn 2 failed: {ERROR} (in code_revisions)"
        assert "Traceback" not in c.status_reason
        assert (c.lease_owner, c.lease_expires_at, c.checkpoint_version) == (None, None, 1)  # planner's turn kept
        assert [m.source for m in flow.messages(conversation_id)] == ["frank", "planner"]  # nothing half-stored
        assert len(audit_events("conversation.failed", conversation_id=conversation_id)) == 1
        assert flow.work() == 0  # a failed conversation is not runnable
    finally:
        accept_revisions_again(engine)

    retry_conversation(flow.actor("erin"), conversation_id)
    assert flow.work() == 1
    assert flow.conversation(conversation_id).status == "awaiting_review"
    assert [r.key for r in flow.detail(conversation_id).revisions] == ["app/boomerang_tracker.py"]
    assert [m.source for m in flow.messages(conversation_id)] == ["frank", "planner", "coder"]


def _back_off_is_over(conversation_id: int) -> None:
    """The clock moves past the back-off: its end is put in the past, as time would (no waiting)."""
    with UnitOfWork() as uow:
        conversation = uow.session.get(Conversation, conversation_id)
        conversation.lease_expires_at = utcnow() - timedelta(seconds=1)
        uow.commit()


def test_a_run_that_keeps_crashing_backs_off_then_fails(people, monkeypatch):
    """Back-offs of minutes, so "not before then" holds however slow the machine is (a back-off of
    0.2 s once ran out before the next check on a loaded PostgreSQL run); time passing is simulated."""
    monkeypatch.setenv("RUNNER_CRASH_BACKOFF_S", "60")
    monkeypatch.setenv("RUNNER_MAX_CRASHES", "3")
    reset_settings_cache()
    conversation_id = flow.start("Write a boomerang tracker")
    with UnitOfWork() as uow:  # a checkpoint this version of AutoGen cannot load
        uow.session.get(Conversation, conversation_id).checkpoint_version = 1
        uow.session.add(TurnCheckpoint(conversation_id=conversation_id, turn=1, kind="full",
                                       data={"type": "TeamState", "agent_states": "?"}))
        uow.commit()

    backed_off_for = []
    for attempt in (1, 2):
        assert flow.work() == 1  # one run: the crash's back-off keeps run_until_idle from trying again
        c = flow.conversation(conversation_id)
        assert (c.status, c.crash_count, c.lease_owner) == ("running", attempt, None)
        [crash] = audit_events("runner.crashed", conversation_id=conversation_id)[-1:]
        backed_off_for.append((_aware(c.lease_expires_at) - _aware(crash.at)).total_seconds())
        assert flow.work() == 0  # nobody runs it before its back-off is over
        _back_off_is_over(conversation_id)
    assert 60 <= backed_off_for[0] < 61 and 120 <= backed_off_for[1] < 121, backed_off_for

    assert flow.work() == 1  # the third crash: no more back-off, the conversation fails
    crashes = audit_events("runner.crashed", conversation_id=conversation_id)
    assert [e.details["attempt"] for e in crashes] == [1, 2, 3]
    assert [e.details["retry_in_s"] for e in crashes] == [60, 120, None]
    c = flow.conversation(conversation_id)
    assert c.status == "failed"
    assert c.status_reason.startswith("the runner crashed 3 times in a row; last error: ValueError: Invalid state")
    assert (c.lease_owner, c.lease_expires_at) == (None, None)
    assert flow.work() == 0


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they are stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class _AbortWhileTyping:
    """A live sink: an admin watching the coder type aborts the conversation before the turn ends."""

    def __init__(self, conversation_id: int):
        self.conversation_id, self.done = conversation_id, False

    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        if source == "coder" and not self.done:
            self.done = True
            await asyncio.to_thread(_abort, "erin", self.conversation_id, "wrong task")

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        return None


def test_an_abort_during_a_turn_stops_the_runner_without_storing_the_turn_or_overwriting_the_status(people):
    conversation_id = flow.start("Write a boomerang tracker")
    sink = _AbortWhileTyping(conversation_id)
    live.register_sink(sink)
    try:
        assert asyncio.run(run_conversation(conversation_id, "test-runner")) is True
    finally:
        live.clear_sinks()
    assert sink.done
    c = flow.conversation(conversation_id)
    assert (c.status, c.status_reason) == ("aborted", "aborted by erin (admin): wrong task")
    assert (c.lease_owner, c.lease_expires_at, c.next_input) == (None, None, None)
    transcript = flow.messages(conversation_id)
    assert [(m.source, m.kind) for m in transcript] == [("frank", "text"), ("planner", "text"), ("erin", "system")]
    [aborted] = audit_events("conversation.aborted", conversation_id=conversation_id)
    assert (aborted.actor, aborted.details) == ("erin", {"reason": "wrong task", "was": "running"})
    assert audit_events("conversation.failed", conversation_id=conversation_id) == []
    assert flow.work() == 0


def test_an_admin_aborts_an_awaiting_or_failed_conversation_and_open_reviews_are_dismissed(people):
    awaiting = flow.start("Write a boomerang tracker")
    flow.work()
    review = flow.only_open_review(awaiting)
    _abort("erin", awaiting)
    assert flow.conversation(awaiting).status == "aborted"
    assert [r.status for r in reviews_of(awaiting)] == ["dismissed"]
    assert flow.open_reviews(awaiting) == [] and review.id

    failed = flow.start("Write a boomerang tracker")
    with UnitOfWork() as uow:
        c = uow.session.get(Conversation, failed)
        c.status, c.status_reason = "failed", "model down"
        uow.commit()
    assert _abort("erin", failed).status == "aborted"
    with pytest.raises(Conflict, match="already aborted"):
        _abort("erin", failed)


def test_only_an_admin_aborts_and_only_with_a_reason(people):
    conversation_id = flow.start("Write a boomerang tracker")
    for name in ("alice", "dave", "frank"):  # reviewer, manager, the initiator
        with pytest.raises(PermissionDenied):
            _abort(name, conversation_id)
    with pytest.raises(InvalidInput, match="reason is required"):
        _abort("erin", conversation_id, "   ")
    assert flow.conversation(conversation_id).status == "running"
    assert audit_events("conversation.aborted") == []


def test_cli_abort(people):
    conversation_id = flow.start("Write a boomerang tracker")
    refused = run_cli("--json", "abort", str(conversation_id), "--reason", "no", "--as", "alice", check=False)
    assert refused.returncode == 4
    done = run_cli("--json", "abort", str(conversation_id), "--reason", "duplicate of #1", "--as", "erin")
    assert json.loads(done.stdout) == {"conversation_id": conversation_id, "status": "aborted",
                                       "status_reason": "aborted by erin (admin): duplicate of #1"}
    again = run_cli("--json", "abort", str(conversation_id), "--reason", "again", "--as", "erin", check=False)
    assert again.returncode == 5 and "already aborted" in again.stdout + again.stderr
