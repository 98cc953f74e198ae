"""Which events some active webhook wants, cached per database for a few seconds, so a change that
nobody subscribed to costs no webhook query and no autoflush (issue 12: every decision paid both).

Staleness bound (WEBHOOK_CACHE_SECONDS, default 2 s; 0 turns the cache off): a webhook added in
another process receives every event queued from WEBHOOK_CACHE_SECONDS after its commit on; in
the process that added it, from its commit on (the commit invalidates this process's cache). A
webhook is never sent an event it did not subscribe to: when the cache says some webhook wants the
event, the subscribers are read from the database inside the change's own transaction as before."""

from __future__ import annotations

import threading
import time

from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from hitl_dashboard.db.models import Webhook
from hitl_dashboard.settings import get_settings

# session.info flag: this transaction added or changed a webhook; invalidate after its commit.
CHANGED = "hitl_webhooks_changed"
_clock = time.monotonic  # tests move time forward instead of sleeping
_lock = threading.Lock()
_generation = 0
_cache: dict[str, tuple[float, frozenset[str]]] = {}  # database URL -> (read at, events wanted)


def wanted_events(session: Session) -> frozenset[str] | None:
    """The events some active webhook subscribes to, or None when the cache is off or stale."""
    ttl = get_settings().webhook_cache_seconds
    if ttl <= 0 or session.info.get(CHANGED):  # this very transaction added one: read it
        return None
    entry = _cache.get(_key(session))
    if entry is None or _clock() - entry[0] >= ttl:
        return None
    return entry[1]


def remember(session: Session) -> frozenset[str]:
    """Read the subscriptions (without flushing the session) and cache them."""
    with _lock:
        generation = _generation
    read_at = _clock()
    with session.no_autoflush:
        rows = session.exec(select(Webhook.events).where(col(Webhook.active))).all()
    wanted = frozenset(name for events in rows for name in events)
    with _lock:
        if generation == _generation:  # no webhook committed in this process while we read
            _cache[_key(session)] = (read_at, wanted)
    return wanted


def mark_changed(session: Session) -> None:
    session.info[CHANGED] = True


def invalidate() -> None:
    global _generation
    with _lock:
        _generation += 1
        _cache.clear()


def _key(session: Session) -> str:
    return str(session.get_bind().engine.url)


def _after_commit(session: OrmSession) -> None:
    if session.info.pop(CHANGED, False):
        invalidate()


def _after_soft_rollback(session: OrmSession, _previous) -> None:  # noqa: ANN001
    session.info.pop(CHANGED, None)


def install() -> None:
    """By the process's start-up (hitl_dashboard/listeners.py). Idempotent."""
    for name, listener in (("after_commit", _after_commit), ("after_soft_rollback", _after_soft_rollback)):
        if not event.contains(OrmSession, name, listener):
            event.listen(OrmSession, name, listener)
