"""Webhooks: admins register URLs for events; events are queued as delivery rows in the same
transaction as the change they report, so none is lost to a crash and none is sent for a change
that rolled back. services/webhook_delivery.py sends them.

add_webhook and list_webhooks are use cases (their own transaction); enqueue_event and the
one-line helpers per event are steps inside the transaction of the change they report."""

from __future__ import annotations

import secrets
import uuid
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import true
from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.memberships import target_workspace
from hitl_dashboard.db.models import Conversation, ReviewRequest, Webhook, WebhookDelivery, utcnow
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import Role
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_manage_workspace, require_role
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.services.webhooks import webhook_cache
from hitl_dashboard.settings import get_settings

# audit.head: each committed head of the audit chain, when AUDIT_ANCHOR_SINKS includes "webhook".
EVENTS = ("review.requested", "review.escalated", "review.decided", "conversation.finished", "audit.head")
FORMATS = ("json", "slack")


def add_webhook(actor: Actor | None, *, url: str, events: list[str], fmt: str = "json",
                workspace: str | None = None) -> Webhook:
    """`actor` None is the operator at the CLI. The returned row carries the signing secret. It gets
    the events of one workspace: `workspace` (a slug), else the one the actor acts in (the CLI's: default)."""
    with transaction() as uow:
        return insert_webhook(uow, actor, url=url, events=events, fmt=fmt, workspace=workspace)


def insert_webhook(uow: UnitOfWork, actor: Actor | None, *, url: str, events: list[str], fmt: str = "json",
                   workspace: str | None = None) -> Webhook:
    """The step behind add_webhook, inside the caller's transaction."""
    workspace_id = target_workspace(uow.session, actor, workspace)
    if actor is not None:
        check_can_manage_workspace(actor, workspace_id)
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > 2000:
        raise InvalidInput("the webhook URL must be an http(s) URL with a host", "url")
    unknown = sorted(set(events) - set(EVENTS))
    if unknown or not events:
        raise InvalidInput(f"events must be some of {', '.join(EVENTS)}", "events")
    if fmt not in FORMATS:
        raise InvalidInput(f"format must be one of {', '.join(FORMATS)}", "format")
    webhook = Webhook(url=url, events=sorted(set(events)), secret=secrets.token_urlsafe(32), format=fmt,
                      created_by=actor.user_id if actor else None, workspace_id=workspace_id)
    uow.session.add(webhook)
    uow.session.flush()
    webhook_cache.mark_changed(uow.session)  # this process sees it from the commit on
    append_audit(uow.session, actor=actor.username if actor else "system", action="webhook.added",
                 workspace_id=workspace_id,
                 details={"webhook_id": webhook.id, "url": url, "events": webhook.events, "format": fmt})
    return webhook


def managed_webhooks(actor: Actor | None):  # noqa: ANN201 - a SQL condition
    """The webhooks an actor manages: those of the workspaces it is a workspace admin of (the instance
    admin and the CLI: all)."""
    return true() if actor is None else in_workspaces(col(Webhook.workspace_id),
                                                       actor.workspaces_with(Role.WORKSPACE_ADMIN.value))


def list_webhooks(actor: Actor | None) -> list[Webhook]:
    """The webhooks (with their signing secrets) of the workspaces the actor administers; `actor`
    None is the operator at the CLI."""
    if actor is not None:
        require_role(actor, Role.ADMIN.value, Role.WORKSPACE_ADMIN.value, what="list webhooks")
    with reading() as uow:
        return list(uow.session.exec(select(Webhook).where(managed_webhooks(actor)).order_by(col(Webhook.id))))


def enqueue_event(session: Session, event: str, event_id: str, data: dict[str, Any],
                  workspace_id: int | None = None) -> int:
    """Queue the event for every active webhook that wants it; returns how many were queued.
    event_id names the event (not the delivery), so receivers can de-duplicate on it. Nobody subscribed
    (webhook_cache, with its staleness bound): no query at all."""
    wanted = webhook_cache.wanted_events(session)
    if wanted is None:
        wanted = webhook_cache.remember(session)
    if event not in wanted:
        return 0
    with session.no_autoflush:
        # A workspace's events reach that workspace's webhooks only (issue 41); workspace_id None: an
        # event of the instance (the audit chain's head), for every webhook that asks for it.
        query = select(Webhook).where(col(Webhook.active))
        if workspace_id is not None:
            query = query.where(Webhook.workspace_id == workspace_id)
        hooks = [h for h in session.exec(query) if event in h.events]
    if not hooks:
        return 0
    payload = {"id": event_id, "event": event, "occurred_at": utcnow().isoformat(), "data": data}
    for hook in hooks:
        session.add(WebhookDelivery(webhook_id=hook.id, event=event, event_id=event_id, payload=payload))
    return len(hooks)


# One helper per event, so each call site in the services is a single line.

def review_requested(session: Session, request: ReviewRequest, conversation: Conversation) -> None:
    enqueue_event(session, "review.requested", f"review.requested:{request.id}",
                  {"review": _review(request), "conversation": _conversation(conversation),
                   "url": review_url(request.id)}, conversation.workspace_id)


def review_escalated(session: Session, request: ReviewRequest, to_role: str | None) -> None:
    enqueue_event(session, "review.escalated", f"review.escalated:{request.id}",
                  {"review": _review(request), "to_role": to_role, "url": review_url(request.id)},
                  request.workspace_id)


def review_decided(session: Session, decision_id: int, decision: dict[str, Any], request: ReviewRequest,
                   conversation: Conversation, reviewer: str) -> None:
    """`decision`: the values of the decision's row (the decide path writes it with a Core INSERT)."""
    enqueue_event(session, "review.decided", f"review.decided:{decision_id}", {
        "decision": {"id": decision_id, "action": decision["action"], "reason": decision["reason"],
                     "instructions": decision["instructions"], "target_agent": decision["target_agent"],
                     "reviewer": reviewer, "role": decision["role"], "is_override": decision["is_override"]},
        # Queued before the decision is applied, so it precedes the events the decision causes
        # (the next review, the conversation's end); hence no conversation status here.
        "review": _review(request), "url": review_url(request.id),
        "conversation": {"id": conversation.id, "title": conversation.title, "task_type": conversation.task_type},
    }, conversation.workspace_id)


def conversation_finished(session: Session, conversation: Conversation) -> None:
    # A conversation may finish more than once (failed, retried, approved): each is its own event.
    enqueue_event(session, "conversation.finished",
                  f"conversation.finished:{conversation.id}:{conversation.status}:{uuid.uuid4().hex[:12]}",
                  {"conversation": _conversation(conversation),
                   "url": f"{get_settings().public_url.rstrip('/')}/conversations/{conversation.id}"},
                  conversation.workspace_id)


def review_url(review_id: int) -> str:
    return f"{get_settings().public_url.rstrip('/')}/reviews/{review_id}"


def _review(request: ReviewRequest) -> dict[str, Any]:
    return {"id": request.id, "conversation_id": request.conversation_id, "kind": request.kind,
            "role": request.required_role, "rule": request.rule, "reason": request.reason,
            "risk_flags": list(request.risk_flags or []), "subject": request.subject_label,
            "status": request.status, "version": request.version, "content_hash": request.content_hash,
            "due_at": request.due_at.isoformat() if request.due_at else None,
            "escalated_from_id": request.escalated_from_id}


def _conversation(conversation: Conversation) -> dict[str, Any]:
    return {"id": conversation.id, "title": conversation.title, "task_type": conversation.task_type,
            "status": conversation.status, "status_reason": conversation.status_reason}
