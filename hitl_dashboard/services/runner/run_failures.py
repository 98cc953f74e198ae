"""What the runner does when a run goes wrong, so that no conversation loops for ever:

- a turn that cannot be stored fails the conversation with a short reason (the trace goes to the log);
- any other crash releases the lease with a back-off (the lease's expiry, with no owner, is the
  not-before time) and, after RUNNER_MAX_CRASHES crashes in a row, fails the conversation.
A failed conversation is not runnable; an admin's retry resumes it from its last checkpoint."""

from __future__ import annotations

import logging
import re
from datetime import timedelta

from sqlalchemy.exc import StatementError

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, utcnow, without_checkpoint
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.live import live
from hitl_dashboard.services.runner.identity import RUNNER_ACTOR, runner_details
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)

MAX_REASON_CHARS = 2000
_TABLE = re.compile(r"^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\"?(\w+)", re.IGNORECASE)


class LeaseLost(Exception):
    """Another runner (or an admin's abort) took the conversation away: stop, write nothing."""


def crash_backoff_s(crashes: int, base_s: float, cap_s: float) -> float:
    """Exponential: base, 2 base, 4 base, ... never more than cap."""
    return min(cap_s, base_s * 2 ** max(crashes - 1, 0))


def describe_storage_error(exc: BaseException) -> str:
    """One line a person can act on: the database's own message and the table, no trace."""
    if isinstance(exc, StatementError):
        cause = exc.orig if exc.orig is not None else exc
        table = _TABLE.match(exc.statement or "")
        text = _first_line(cause)
        return f"{text} (in {table.group(1)})" if table else text
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def mark_failed(conversation_id: int, runner_id: str, reason: str) -> None:
    """Fail the conversation this runner holds. Raises LeaseLost if it no longer holds it (an admin
    aborted it, or the lease ran out and another runner took it): their state stands."""
    with UnitOfWork() as uow:
        conversation = _locked(uow, conversation_id)
        if (conversation is None or conversation.lease_owner != runner_id
                or conversation.status != ConversationStatus.RUNNING):
            raise LeaseLost()
        _fail(uow, conversation, "runner", reason)
        uow.commit()
    live.publish_turn(conversation_id)


def record_crash(conversation_id: int, runner_id: str, exc: BaseException) -> None:
    """Release the lease after an unexpected crash: with a back-off, or failing the conversation
    once it has crashed too often in a row. Audited, so the attempts can be counted."""
    settings = get_settings()
    with UnitOfWork() as uow:
        conversation = _locked(uow, conversation_id)
        if conversation is None or conversation.lease_owner != runner_id:
            return
        conversation.crash_count += 1
        error = cut_visibly(describe_storage_error(exc), 500)
        delay = crash_backoff_s(conversation.crash_count, settings.runner_crash_backoff_s,
                                settings.runner_crash_backoff_max_s)
        giving_up = conversation.crash_count >= settings.runner_max_crashes
        append_audit(uow.session, actor=RUNNER_ACTOR, action="runner.crashed", conversation_id=conversation_id,
                     details={"attempt": conversation.crash_count, "error": error,
                              "retry_in_s": None if giving_up else delay, **runner_details(runner_id)})
        if giving_up and conversation.status == ConversationStatus.RUNNING:
            _fail(uow, conversation, "runner",
                  f"the runner crashed {conversation.crash_count} times in a row; last error: {error}")
        conversation.lease_owner = None
        conversation.lease_expires_at = None if giving_up else utcnow() + timedelta(seconds=delay)
        uow.session.add(conversation)
        uow.commit()
    live.publish_turn(conversation_id)


def _locked(uow: UnitOfWork, conversation_id: int) -> Conversation | None:
    # FOR UPDATE on PostgreSQL: an abort or decision in flight on this row finishes first.
    return uow.session.get(Conversation, conversation_id, options=without_checkpoint(), with_for_update=True)


def _fail(uow: UnitOfWork, conversation: Conversation, actor: str, reason: str) -> None:
    conversation.status = ConversationStatus.FAILED
    reason = cut_visibly(reason, MAX_REASON_CHARS)
    conversation.status_reason = reason
    conversation.updated_at = utcnow()
    uow.session.add(conversation)
    append_audit(uow.session, actor=actor, action="conversation.failed", conversation_id=conversation.id,
                 details={"reason": reason})
    webhooks.conversation_finished(uow.session, conversation)
