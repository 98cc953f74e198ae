"""Publish every committed head of the audit chain outside the database (docs/audit.md).

Per commit, not on a timer: a transaction that appended audit events leaves its newest (seq, hash)
on the session (db/audit.py); once the commit has succeeded the head goes to the file and log
sinks. A transaction that rolls back publishes nothing, so a published head always existed.
The webhook sink is services/webhooks/audit_head_webhook.py's: it queues its delivery inside the
committing transaction (before_commit), like every other webhook event."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

from hitl_dashboard.db.audit import forget_pending_head
from hitl_dashboard.db.models import utcnow
from hitl_dashboard.domain.audit_anchor import PublishedHead, head_line
from hitl_dashboard.settings import get_settings

# The log sink; its own name so operators can route it (e.g. to a remote, append-only log store).
anchor_log = logging.getLogger("hitl_dashboard.audit.anchor")
log = logging.getLogger(__name__)


def append_head_line(path: Path, head: PublishedHead) -> None:
    """One write() on an O_APPEND descriptor: lines from several processes never interleave."""
    data = head_line(head).encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def publish(head: PublishedHead) -> None:
    """To the file and log sinks that are configured. Never raises: the commit already happened,
    and a failed publication must not read as a failed change. It is logged as an error."""
    settings = get_settings()
    sinks = settings.anchor_sinks()
    path = settings.anchor_file()  # None unless the file sink is on
    if path is not None:
        try:
            append_head_line(path, head)
        except Exception:  # noqa: BLE001
            log.exception("could not publish audit head seq %s to %s", head.seq, path)
    if "log" in sinks:
        anchor_log.info("audit head %s", head_line(head).strip())


def _after_commit(session: Session) -> None:
    head = forget_pending_head(session)
    if head is not None:
        publish(PublishedHead(head[0], head[1], utcnow().isoformat()))


def _after_soft_rollback(session: Session, _previous: SessionTransaction) -> None:
    # Also a savepoint's rollback: the head it appended is gone. Publishing nothing is safe; a
    # stale head would be a false alarm.
    forget_pending_head(session)


def _after_transaction_end(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # close() without commit ends the transaction without a rollback event
        forget_pending_head(session)


_LISTENERS = (("after_commit", _after_commit),
              ("after_soft_rollback", _after_soft_rollback), ("after_transaction_end", _after_transaction_end))


def install() -> None:
    """Idempotent. Listens on the Session class, so sqlmodel's Session and every instance are covered."""
    for name, listener in _LISTENERS:
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
