"""Run something once the current transaction has committed (never if it rolls back).

Metrics count what happened: a decision that lost a race, or a turn whose transaction failed,
rolled back and must not move a counter. Listens on SQLAlchemy's Session class, like the audit
anchor publisher, so every unit of work is covered (installed at start-up: hitl_dashboard/listeners.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

log = logging.getLogger(__name__)
_KEY = "hitl_on_commit"


def on_commit(session: Session, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    session.info.setdefault(_KEY, []).append((callback, args, kwargs))


def _after_commit(session: Session) -> None:
    for callback, args, kwargs in session.info.pop(_KEY, ()):
        try:
            callback(*args, **kwargs)
        except Exception:  # noqa: BLE001 - observing must never fail the work it observes
            log.exception("after-commit hook %r failed", callback)


def _forget(session: Session, *_: Any) -> None:
    session.info.pop(_KEY, None)


def _after_transaction_end(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # close() without commit ends the transaction with no rollback event
        _forget(session)


_LISTENERS = (("after_commit", _after_commit), ("after_soft_rollback", _forget),
              ("after_transaction_end", _after_transaction_end))


def install() -> None:
    """Idempotent."""
    for name, listener in _LISTENERS:
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
