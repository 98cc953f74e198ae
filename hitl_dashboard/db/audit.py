"""Append to the audit chain inside the caller's transaction.

append_audit only notes the event on the session; the chain (seq, prev_hash, hash) is linked as
late as possible, so the chain lock, which serialises every writer of the trail, is never held
across the whole unit of work (issue 12: under load, decisions queued on it from their first audit
append to their commit):
- SQLite: just before the commit (a before_commit listener), in one go. BEGIN IMMEDIATE already
  makes writers take turns, so the newest event read there is the newest committed one.
- PostgreSQL: the events are committed with the change in audit_outbox (no lock at all), and linked
  right after that commit (UnitOfWork.commit): under the chain lock (an advisory transaction lock) a
  linker moves every waiting event, its own and other transactions', into audit_events in one
  transaction. Within a process the threads that have just committed share linking rounds
  (_LinkRounds): one of them links for all that committed before its round began, the others wait
  for that round; across processes the chain lock makes the rounds take turns. So when a use case
  returns, its events are in the chain, and one linking commit covers a whole burst of changes.
Either way the chain is gap-free and tamper-evident (seq assigned by the single linker, each hash
over the previous one), and an event exists if and only if its change committed."""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, cast

from sqlalchemy import Integer, String, event, insert, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from hitl_dashboard.db.models import AuditEvent, AuditOutbox, Conversation, chain_payload, utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.domain.audit_chain import GENESIS, event_hash

log = logging.getLogger(__name__)
# Any constant works; it only has to be the same for every writer.
_AUDIT_LOCK_KEY = 7_317_001
# Where a session keeps the newest (seq, hash) it appended, until its transaction ends; the
# anchor publisher (services/audit_anchor.py) publishes it once the transaction has committed.
PENDING_HEAD = "hitl_audit_pending_head"
# The events appended in the current transaction, not yet linked into the chain.
PENDING_EVENTS = "hitl_audit_pending_events"
# PostgreSQL: this transaction put events in audit_outbox; link them after its commit.
OUTBOX_WRITTEN = "hitl_audit_outbox_written"
# ... and has committed: link after the connection is back in the pool (UnitOfWork.commit).
LINK_DUE = "hitl_audit_link_due"
# On the linker's own session: the events it writes are copies of outbox rows already seen (and
# counted by observers) in the transaction that made them.
LINKER_SESSION = "hitl_audit_linker"
LINK_BATCH = 5000
# workspace_id is stored, not hashed: chain_payload leaves it out, so events from before 0020 verify.
_FIELDS = ("at", "actor", "actor_role", "action", "conversation_id", "review_request_id", "content_hash", "details",
           "workspace_id")


def pending_head(session: OrmSession) -> tuple[int, str] | None:
    return session.info.get(PENDING_HEAD)


def forget_pending_head(session: OrmSession) -> tuple[int, str] | None:
    return session.info.pop(PENDING_HEAD, None)


# Who is told of the events a transaction writes (the metrics, the traces): at its commit, in the
# transaction that made them, once each; never of the linker's copies. The events are AuditEvent
# objects; on PostgreSQL no ORM object is flushed for them (a Core INSERT into the outbox), so an
# after_flush listener would not see them.
WrittenObserver = Callable[[OrmSession, list[AuditEvent]], None]
_written_observers: list[WrittenObserver] = []


def observe_written(observer: WrittenObserver) -> None:
    """Called by an observer's install() (hitl_dashboard/listeners.py). Idempotent."""
    if observer not in _written_observers:
        _written_observers.append(observer)


def written_observers() -> tuple[WrittenObserver, ...]:
    return tuple(_written_observers)


# Without the listeners a transaction's events would never be linked, so never stored: append_audit
# refuses to run before install() (fail closed), instead of dropping the audit trail in silence.
_installed = False


def append_audit(
    session: Session,
    *,
    actor: str,
    action: str,
    actor_role: str | None = None,
    conversation_id: int | None = None,
    review_request_id: int | None = None,
    content_hash: str | None = None,
    details: dict[str, Any] | None = None,
    workspace_id: int | None = None,
) -> AuditEvent:
    """The event is part of the caller's transaction: it is stored if and only if that commits. On
    SQLite the returned event's seq and hashes are set by the commit; on PostgreSQL the chain's
    copy is made after the commit (read it from audit_events)."""
    if not _installed:
        raise RuntimeError("the audit listeners are not installed: call hitl_dashboard.listeners.install() "
                           "at the process's start-up")
    audit_event = AuditEvent(
        seq=0, at=utcnow(), actor=actor, actor_role=actor_role, action=action, conversation_id=conversation_id,
        review_request_id=review_request_id, content_hash=content_hash, details=details or {},
        prev_hash="", hash="", workspace_id=workspace_id,
    )
    if not session.in_transaction():
        session.begin()  # the events belong to a transaction, so its rollback drops them (no SQL is sent)
    session.info.setdefault(PENDING_EVENTS, []).append(audit_event)
    return audit_event


def link_pending(session: OrmSession) -> None:
    """Just before the commit: SQLite links the transaction's events; PostgreSQL puts them in the
    outbox (linked after the commit). Idempotent."""
    events = session.info.pop(PENDING_EVENTS, None)
    if not events:
        return
    _fill_workspaces(session, events)
    if session.get_bind().dialect.name == "postgresql":
        # A Core INSERT on the session's connection (issue 33: an ORM object and a flush per event
        # cost more than the row); the ids are what the linker waits for after the commit.
        ids = session.connection().execute(
            _INSERT_OUTBOX, [{name: getattr(e, name) for name in _FIELDS} for e in events]).scalars().all()
        session.info.setdefault(OUTBOX_WRITTEN, []).extend(ids)
    else:
        session.flush()  # every other change first
        _chain(session, events)
    for observer in _written_observers:
        observer(session, events)


def _fill_workspaces(session: OrmSession, events: list[AuditEvent]) -> None:
    """An event with a conversation happened in that conversation's workspace (issue 41): read from
    the session's own rows when loaded there (a use case has loaded its conversation), else one query."""
    wanted = {e.conversation_id for e in events if e.workspace_id is None and e.conversation_id is not None}
    if not wanted:
        return
    known: dict[int, int] = {}
    for conversation_id in wanted:
        loaded = session.identity_map.get(identity_key(Conversation, conversation_id))
        if loaded is not None:
            known[conversation_id] = loaded.workspace_id
    if len(known) < len(wanted):
        session.flush()  # a conversation started in this transaction
        rows = session.execute(select(Conversation.id, Conversation.workspace_id)
                               .where(col(Conversation.id).in_(wanted - set(known)))).all()
        known.update((conversation_id, workspace_id) for conversation_id, workspace_id in rows)
    for audit_event in events:
        if audit_event.workspace_id is None and audit_event.conversation_id is not None:
            audit_event.workspace_id = known.get(audit_event.conversation_id)


def _chain(session: OrmSession, events: list[AuditEvent], head: tuple[int, str] | None = None) -> None:
    if head is None:
        last = session.execute(select(AuditEvent.seq, AuditEvent.hash).order_by(col(AuditEvent.seq).desc())
                               .limit(1)).first()
        head = (last[0], last[1]) if last else (0, GENESIS)
    seq, prev = head
    for audit_event in events:
        seq += 1
        audit_event.seq, audit_event.prev_hash = seq, prev
        audit_event.hash = prev = event_hash(prev, audit_event.payload())
    session.add_all(events)
    session.flush()
    session.info[PENDING_HEAD] = (seq, prev)


def _chain_moved(session: OrmSession, moved: Sequence[Any], head: tuple[int, str]) -> None:
    """The linker's _chain: outbox rows into the chain as one Core INSERT of plain values (issue 33:
    an ORM object and a flush per event cost more than the linking itself)."""
    seq, prev = head
    values = []
    for row in moved:
        seq += 1
        event_values = {name: getattr(row, name) for name in _FIELDS}
        digest = event_hash(prev, chain_payload(seq, row))
        values.append({**event_values, "seq": seq, "prev_hash": prev, "hash": digest})
        prev = digest
    session.connection().execute(_INSERT_EVENT, values)
    session.info[PENDING_HEAD] = (seq, prev)


def _take_waiting_statement():
    """One round trip: the oldest waiting events, deleted from the outbox, with the chain's head.
    A transaction's events stay together (its rows share xmin), in the order of each transaction's
    first event: one that began after another committed has higher ids, so causes precede effects."""
    table = AuditOutbox.__table__
    columns = ", ".join(_FIELDS)
    return text(f"""
        WITH moved AS (
            DELETE FROM audit_outbox WHERE id IN (SELECT id FROM audit_outbox ORDER BY id LIMIT :batch)
            RETURNING id, xmin::text AS tx, {columns}
        ), head AS (SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1)
        SELECT moved.id, {columns}, head.seq AS head_seq, head.hash AS head_hash
        FROM moved LEFT JOIN head ON true
        ORDER BY min(moved.id) OVER (PARTITION BY moved.tx), moved.id
    """).columns(*(table.c[name] for name in ("id", *_FIELDS)), head_seq=Integer, head_hash=String)


_TAKE_WAITING = _take_waiting_statement()
_LOCK = text(f"SELECT pg_advisory_xact_lock({_AUDIT_LOCK_KEY})")
_INSERT_EVENT = insert(table_of(AuditEvent))
_OUTBOX = table_of(AuditOutbox)
# sort_by_parameter_order: the ids come back in the order of the events (one statement for several).
_INSERT_OUTBOX = insert(_OUTBOX).returning(_OUTBOX.c.id, sort_by_parameter_order=True)


def link_outbox(engine: Engine) -> int:
    """PostgreSQL: move the events waiting in audit_outbox into the chain, oldest first, under the
    chain lock; returns how many this call linked. Safe to call from any process at any time.

    The caller queues for the lock (PostgreSQL lets no later request overtake it). Each process runs
    one round at a time (_LinkRounds), so at most one linker per process waits: when it gets the
    lock, a linker of another process may already have taken its events (the take then finds only
    what was committed since, or nothing) and a burst of commits still costs one linking transaction
    (one WAL flush) per round. Issue 33: a try first, then a shared lock and a count of the caller's
    own events when the try failed, cost three more statements and a transaction for about every
    other decision under load, to learn what the take tells anyway."""
    linked = 0
    while True:
        with Session(engine, expire_on_commit=False, info={LINKER_SESSION: True}) as session:
            # Core statements on the session's connection (the session is there for its commit's
            # listeners: the anchor, the head webhook); the ORM's execution adds nothing here.
            connection = session.connection()
            connection.execute(_LOCK)
            # After the lock: READ COMMITTED takes a snapshot per statement, so this one sees what the
            # linker we waited for committed (a snapshot taken before the lock could miss the newest link).
            moved = connection.execute(_TAKE_WAITING, {"batch": LINK_BATCH}).all()
            if not moved:
                return linked
            _chain_moved(session, moved, head=(moved[0].head_seq or 0, moved[0].head_hash or GENESIS))
            session.commit()  # publishes the new head (services/audit_anchor.py) and releases the lock
        linked += len(moved)
        if len(moved) < LINK_BATCH:
            return linked


class _LinkRounds:
    """One process's linking rounds for one database (flat combining). A thread that has committed
    takes a ticket; if no round is running it runs one, covering every ticket taken before it began
    (their events were committed before it read the outbox); otherwise it waits, and the next round
    is run by one of the waiters. Under load a round links the events of many requests in one
    transaction, where each request used to run its own (issue 12: about 2.5 ms of CPU per commit)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._asked = 0  # tickets handed out
        self._covered = 0  # every ticket up to this one has had its round
        self._running = False

    def link(self, engine: Engine) -> None:
        with self._changed:
            self._asked += 1
            ticket = self._asked
            while self._covered < ticket:
                if not self._running:
                    self._running, upto = True, self._asked
                    break
                self._changed.wait()
            else:
                return  # a round that began after our commit has linked our events
        try:
            link_outbox(engine)
        finally:
            with self._changed:
                self._running = False
                self._covered = max(self._covered, upto)
                self._changed.notify_all()


_rounds: weakref.WeakKeyDictionary[Engine, _LinkRounds] = weakref.WeakKeyDictionary()
_rounds_lock = threading.Lock()


def _forget_rounds_in_child() -> None:
    """A forked web worker starts with no rounds: one running in another thread of the parent at
    the fork would never end in the child, and every commit there would wait for it."""
    global _rounds, _rounds_lock
    _rounds, _rounds_lock = weakref.WeakKeyDictionary(), threading.Lock()


os.register_at_fork(after_in_child=_forget_rounds_in_child)


def _rounds_for(engine: Engine) -> _LinkRounds:
    with _rounds_lock:
        rounds = _rounds.get(engine)
        if rounds is None:
            rounds = _rounds[engine] = _LinkRounds()
        return rounds


def _before_commit(session: OrmSession) -> None:
    link_pending(session)


def link_after_commit(session: Session) -> None:
    """Called by the unit of work once its commit has returned the connection to the pool (linking
    from inside the commit would hold a second connection per request: pools could starve)."""
    own = session.info.pop(LINK_DUE, None)
    if not own:
        return
    try:
        engine = cast(Engine, session.get_bind())  # a unit of work binds its session to an Engine
        _rounds_for(engine).link(engine)
    except Exception:  # noqa: BLE001 - the change is committed; its events wait for the next link
        log.exception("could not link audit events into the chain yet; the next commit will")


def _after_commit(session: OrmSession) -> None:
    ids = session.info.pop(OUTBOX_WRITTEN, None)
    if ids:
        session.info.setdefault(LINK_DUE, []).extend(ids)


def _after_soft_rollback(session: OrmSession, previous: SessionTransaction) -> None:
    # The transaction's changes are gone, and so are its events. (A savepoint's rollback keeps them:
    # no service uses savepoints; one that does must drop its own events.)
    if previous.parent is None:
        session.info.pop(PENDING_EVENTS, None)
        session.info.pop(OUTBOX_WRITTEN, None)


def _after_transaction_end(session: OrmSession, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # close() without commit ends the transaction without a rollback event
        session.info.pop(PENDING_EVENTS, None)


_LISTENERS = (("before_commit", _before_commit), ("after_commit", _after_commit),
              ("after_soft_rollback", _after_soft_rollback), ("after_transaction_end", _after_transaction_end))


def install() -> None:
    """On the Session class, by the process's start-up (hitl_dashboard/listeners.py), first of all:
    the anchor publisher reads the head set here. Idempotent."""
    global _installed
    for name, listener in _LISTENERS:
        if not event.contains(OrmSession, name, listener):
            event.listen(OrmSession, name, listener)
    _installed = True
