"""Browse the audit trail with filters, newest first, keyset-paged by seq."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, or_, text
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import Role
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.transactions import reading


@dataclass(frozen=True)
class AuditFilters:
    """What the trail is narrowed to; None (or empty) means any."""

    user: str | None = None
    role: str | None = None
    action: str | None = None
    conversation_id: int | None = None
    since: datetime | None = None  # inclusive
    until: datetime | None = None  # exclusive
    before_seq: int | None = None
    hidden_actions: tuple[str, ...] = ()  # left out unless `action` names one of them


@dataclass(frozen=True)
class AuditPage:
    """What the audit page shows: the events of one page and the actions for the filter menu."""

    events: list[AuditEvent]
    actions: list[str]


def list_events(
    actor: Actor, *, user: str | None = None, role: str | None = None, action: str | None = None,
    conversation_id: int | None = None, since: datetime | None = None, until: datetime | None = None,
    before_seq: int | None = None, limit: int = 100,
) -> list[AuditEvent]:
    check_can_read_audit(actor)
    filters = AuditFilters(user, role, action, conversation_id, since, until, before_seq)
    with reading() as uow:
        return _events(uow, filters, limit, actor)


def audit_page(actor: Actor, filters: AuditFilters, *, limit: int) -> AuditPage:
    """One page of events (newest first) and every action in the trail, in one read."""
    check_can_read_audit(actor)
    with reading() as uow:
        return AuditPage(_events(uow, filters, limit, actor), _known_actions(uow))


def known_actions(actor: Actor) -> list[str]:
    """The actions present in the trail, for the filter menu."""
    check_can_read_audit(actor)
    with reading() as uow:
        return _known_actions(uow)


# A loose index scan: one seek in ix_audit_events_action per distinct action, where SELECT DISTINCT
# reads the whole index (a million entries). The same SQL on SQLite and PostgreSQL.
_DISTINCT_ACTIONS = text("""
    WITH RECURSIVE found(action) AS (
        SELECT MIN(action) FROM audit_events
        UNION ALL
        SELECT (SELECT MIN(e.action) FROM audit_events e WHERE e.action > found.action)
        FROM found WHERE found.action IS NOT NULL
    )
    SELECT action FROM found WHERE action IS NOT NULL
""")


def _known_actions(uow: UnitOfWork) -> list[str]:
    return sorted(a for (a,) in uow.session.execute(_DISTINCT_ACTIONS) if a)


def readable_events(actor: Actor) -> ColumnElement[bool]:
    """The events a reader may see: those of the workspaces it manages (issue 41); the instance
    admin's (unbound) also the instance's own events (users, workspaces, sign-ins)."""
    managed = in_workspaces(col(AuditEvent.workspace_id), actor.workspaces_with(Role.MANAGER.value))
    # The instance admin acting in one workspace (the browser) reads that one's and the instance's own.
    return or_(managed, col(AuditEvent.workspace_id).is_(None)) if actor.is_admin else managed


def _events(uow: UnitOfWork, f: AuditFilters, limit: int, actor: Actor) -> list[AuditEvent]:
    query = select(AuditEvent).where(readable_events(actor)).order_by(col(AuditEvent.seq).desc()).limit(limit)
    if f.user:
        query = query.where(AuditEvent.actor == f.user)
    if f.role:
        query = query.where(AuditEvent.actor_role == f.role)
    if f.action:
        query = query.where(AuditEvent.action == f.action)
    elif f.hidden_actions:
        query = query.where(col(AuditEvent.action).not_in(f.hidden_actions))
    if f.conversation_id is not None:
        query = query.where(AuditEvent.conversation_id == f.conversation_id)
    if f.since is not None:
        query = query.where(AuditEvent.at >= f.since)
    if f.until is not None:
        query = query.where(AuditEvent.at < f.until)
    if f.before_seq is not None:
        query = query.where(AuditEvent.seq < f.before_seq)
    return list(uow.session.exec(query))
