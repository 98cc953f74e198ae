"""Managing registered webhooks (admins; `actor` None is the operator at the CLI): the active ones
with their recent deliveries, a test delivery sent now, a new signing secret, removal.

A removed webhook is kept, inactive, with its deliveries (what was sent stays readable and the
audit events keep pointing at it); its pending deliveries are cancelled, so nothing more is sent.
A test is a delivery like any other (signed, recorded with its status and response code), sent at
once and tried only once: a failing receiver is reported, not retried for an hour."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Webhook, WebhookDelivery, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import Role
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.permissions import Actor, require_role
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.services.webhooks import webhook_cache
from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
from hitl_dashboard.services.webhooks.webhooks import managed_webhooks

TEST_EVENT = "webhook.test"
RECENT_DELIVERIES = 50


@dataclass(frozen=True)
class DeliveryLine:
    id: int
    webhook_id: int
    event: str
    status: str
    status_code: int | None
    attempts: int
    error: str
    created_at: datetime


def _check(actor: Actor | None, what: str) -> None:
    if actor is not None:
        require_role(actor, Role.ADMIN.value, Role.WORKSPACE_ADMIN.value, what=what)


def _active(uow: UnitOfWork, webhook_id: int, actor: Actor | None = None) -> Webhook:
    """An active webhook of a workspace the actor administers (another workspace's: not found)."""
    hook = uow.session.get(Webhook, webhook_id)
    managers = {Role.WORKSPACE_ADMIN.value, Role.ADMIN.value}
    if hook is None or not hook.active or (actor is not None and not actor.roles_in(hook.workspace_id) & managers):
        raise NotFound(f"webhook {webhook_id} does not exist (or was removed)")
    return hook


def active_webhooks(actor: Actor | None) -> list[Webhook]:
    _check(actor, "list webhooks")
    with reading() as uow:
        return list(uow.session.exec(select(Webhook).where(col(Webhook.active), managed_webhooks(actor))
                                     .order_by(col(Webhook.id))))


def recent_deliveries(actor: Actor | None, limit: int = RECENT_DELIVERIES) -> list[DeliveryLine]:
    """The newest deliveries to the active webhooks, newest first."""
    _check(actor, "read webhook deliveries")
    with reading() as uow:
        rows = uow.session.exec(
            select(WebhookDelivery).join(Webhook, col(Webhook.id) == col(WebhookDelivery.webhook_id))
            .where(col(Webhook.active), managed_webhooks(actor)).order_by(col(WebhookDelivery.id).desc()).limit(limit)
        )
        return [DeliveryLine(d.id or 0, d.webhook_id, d.event, d.status, d.last_status_code, d.attempts,
                             d.last_error or "", d.created_at) for d in rows]


def rotate_secret(actor: Actor | None, webhook_id: int) -> Webhook:
    """A new signing secret, returned once on the row; the old one signs nothing from the commit on."""
    _check(actor, "rotate webhook secrets")
    with transaction() as uow:
        hook = _active(uow, webhook_id, actor)
        hook.secret = secrets.token_urlsafe(32)
        uow.session.add(hook)
        append_audit(uow.session, actor=_name(actor), action="webhook.secret_rotated", workspace_id=hook.workspace_id,
                     details={"webhook_id": hook.id, "url": hook.url})
        return hook


def remove_webhook(actor: Actor | None, webhook_id: int) -> int:
    """Deactivates the webhook and cancels its pending deliveries; returns how many were cancelled."""
    _check(actor, "remove webhooks")
    with transaction() as uow:
        hook = _active(uow, webhook_id, actor)
        hook.active = False
        uow.session.add(hook)
        cancelled = uow.session.exec(
            update(WebhookDelivery).where(col(WebhookDelivery.webhook_id) == webhook_id,
                                          col(WebhookDelivery.status) == "pending")
            .values(status="cancelled").execution_options(synchronize_session=False)
        ).rowcount
        webhook_cache.mark_changed(uow.session)
        append_audit(uow.session, actor=_name(actor), action="webhook.removed", workspace_id=hook.workspace_id,
                     details={"webhook_id": webhook_id, "url": hook.url, "deliveries_cancelled": cancelled})
        return cancelled


async def send_test(actor: Actor | None, webhook_id: int) -> DeliveryLine:
    """Queues a test delivery to the webhook, sends it now and returns how it went."""
    delivery_id = queue_test(actor, webhook_id)
    await deliver_due(limit=1, delivery_id=delivery_id)
    with transaction() as uow:  # tried once: not answered well is failed, not retried later
        uow.session.exec(update(WebhookDelivery)
                         .where(col(WebhookDelivery.id) == delivery_id, col(WebhookDelivery.status) == "pending")
                         .values(status="failed").execution_options(synchronize_session=False))
        row = uow.session.get(WebhookDelivery, delivery_id)
        assert row is not None  # queued above; deliveries are never deleted
        return DeliveryLine(delivery_id, row.webhook_id, row.event, row.status, row.last_status_code, row.attempts,
                            row.last_error or "", row.created_at)


def queue_test(actor: Actor | None, webhook_id: int) -> int:
    """The step before sending: the test delivery's row, audited. Returns its id."""
    _check(actor, "test webhooks")
    with transaction() as uow:
        hook = _active(uow, webhook_id, actor)
        event_id = f"{TEST_EVENT}:{uuid.uuid4().hex}"
        payload = {"id": event_id, "event": TEST_EVENT, "occurred_at": utcnow().isoformat(),
                   "data": {"webhook_id": webhook_id, "by": _name(actor),
                            "message": "A test delivery from HITL Dashboard: this webhook is set up."}}
        delivery = WebhookDelivery(webhook_id=webhook_id, event=TEST_EVENT, event_id=event_id, payload=payload)
        uow.session.add(delivery)
        uow.session.flush()
        append_audit(uow.session, actor=_name(actor), action="webhook.tested", workspace_id=hook.workspace_id,
                     details={"webhook_id": webhook_id, "url": hook.url, "delivery_id": delivery.id})
        assert delivery.id is not None  # flushed
        return delivery.id


def _name(actor: Actor | None) -> str:
    return actor.username if actor else "system"
