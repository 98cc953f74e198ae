"""Signed callbacks: when an external request is decided, its caller's URL gets the outcome.

A callback is a webhook delivery like any other (services/webhooks/webhook_delivery.py): signed
with HMAC-SHA256 in X-HITL-Signature, retried with exponential backoff, each attempt recorded in
webhook_deliveries. Its target is a webhook row of its own, subscribed to no event, so it gets
only the deliveries queued here; its secret goes back to the caller with the request.

A caller-chosen URL makes the server send requests where the caller says: a host that resolves
to a loopback, private, link-local or otherwise non-public address is refused, unless the
operator allows it (EXTERNAL_CALLBACK_ALLOW_PRIVATE, e.g. for callers on the same network). The
check runs when the request comes in."""

from __future__ import annotations

import secrets
import socket
from dataclasses import asdict
from urllib.parse import urlsplit

from sqlmodel import Session, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import Webhook, WebhookDelivery, utcnow
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.external import ExternalOutcome, check_web_url, is_public_address
from hitl_dashboard.settings import get_settings

CALLBACK_EVENT = "external.decided"


def check_callback_url(url: str) -> str:
    check_web_url(url, "callback_url")
    if get_settings().external_callback_allow_private:
        return url
    host = urlsplit(url).hostname or ""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError):
        raise InvalidInput(f"callback_url: the host '{host}' does not resolve", "callback_url") from None
    if not addresses or not all(is_public_address(str(a)) for a in addresses):
        raise InvalidInput("callback_url points into a private network (loopback, private or link-local "
                           "address); the server's operator may allow it with EXTERNAL_CALLBACK_ALLOW_PRIVATE",
                           "callback_url")
    return url


def add_callback_target(session: Session, url: str, caller_id: int, workspace_id: int) -> Webhook:
    """Step: the webhook row a request's callbacks go to (no events: nothing else reaches it)."""
    hook = Webhook(url=url, events=[], secret=secrets.token_urlsafe(32), format="json", created_by=caller_id,
                   workspace_id=workspace_id)
    session.add(hook)
    session.flush()
    return hook


def queue_callback(session: Session, row: ExternalRequest, outcome: ExternalOutcome) -> None:
    """Step, in the transaction that decided: the outcome goes to the caller's URL (if it gave one)."""
    if row.callback_webhook_id is None or not outcome.decided:
        return
    event_id = f"{CALLBACK_EVENT}:{row.id}:{outcome.status}"
    if session.exec(select(WebhookDelivery.id).where(WebhookDelivery.webhook_id == row.callback_webhook_id,
                                                     WebhookDelivery.event_id == event_id)).first() is not None:
        return  # already queued (an outcome is told once)
    payload = {"id": event_id, "event": CALLBACK_EVENT, "occurred_at": utcnow().isoformat(),
               "data": {"approval_id": row.id, "request_id": row.caller_request_id, **asdict(outcome)}}
    session.add(WebhookDelivery(webhook_id=row.callback_webhook_id, event=CALLBACK_EVENT, event_id=event_id,
                                payload=payload))
