"""/webhooks (admins): add, test, rotate the signing secret, remove; the recent deliveries with their
status and response code. Through services/webhooks, which check the admin role again; each handler
here resolves the signed-in admin on the server first. A signing secret reaches the page the way a
new API token does (ui/states/tokens.py): in a set_value event, never as a state var."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.webhooks import webhook_admin, webhooks
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.browser_input import row_id
from hitl_dashboard.ui.views.formatting import stamp

SECRET_FIELD = "webhook-secret-value"
NOT_ADMIN = "Only the workspace's admins may manage its webhooks."
EVENTS = list(webhooks.EVENTS)
FORMATS = list(webhooks.FORMATS)


@dataclass
class WebhookRow:
    webhook_id: int = 0
    url: str = ""
    events: str = ""
    format: str = ""
    created: str = ""


@dataclass
class DeliveryRow:
    delivery_id: int = 0
    webhook_id: int = 0
    event: str = ""
    status: str = ""
    status_code: str = ""
    attempts: int = 0
    error: str = ""
    created: str = ""


def webhook_rows(actor: Actor) -> list[WebhookRow]:
    return [WebhookRow(h.id or 0, h.url, ", ".join(h.events), h.format, stamp(h.created_at))
            for h in webhook_admin.active_webhooks(actor)]


def delivery_row(line: webhook_admin.DeliveryLine) -> DeliveryRow:
    return DeliveryRow(line.id, line.webhook_id, line.event, line.status,
                       str(line.status_code) if line.status_code is not None else "—", line.attempts,
                       line.error[:300], stamp(line.created_at))


def page_rows(actor: Actor) -> tuple[list[WebhookRow], list[DeliveryRow]]:
    return webhook_rows(actor), [delivery_row(d) for d in webhook_admin.recent_deliveries(actor)]


class WebhooksState(AppState):
    rows: rx.Field[list[WebhookRow]] = rx.field(default_factory=list)
    deliveries: rx.Field[list[DeliveryRow]] = rx.field(default_factory=list)
    new_url: str = ""
    new_events: rx.Field[list[str]] = rx.field(default_factory=list)
    new_format: str = "json"
    add_error: str = ""
    add_error_field: str = ""
    adding: bool = False
    # The secret panel's title while it is open; never the secret itself.
    secret_title: rx.Field[str] = rx.field("")
    action_error: str = ""
    testing: int = 0
    removing: rx.Field[int] = rx.field(0)

    @rx.event
    async def load(self):
        self.secret_title, self.action_error, self.removing = "", "", 0
        actor = await self._signed_in_workspace_admin()
        if actor is not None:
            self.rows, self.deliveries = await asyncio.to_thread(page_rows, actor)

    @rx.event
    def set_new_url(self, value: str):
        self.new_url = str(value).strip()[:2000]

    @rx.event
    def toggle_event(self, event: str, checked: bool):
        kept = [e for e in self.new_events if e != event]
        self.new_events = [e for e in EVENTS if e in kept or (e == event and checked is True)]

    @rx.event
    def set_new_format(self, value: str):
        if value in FORMATS:
            self.new_format = value

    @rx.event
    async def add(self, _form: dict):
        actor = await self._signed_in_workspace_admin()
        if actor is None:
            self.add_error, self.add_error_field = NOT_ADMIN, ""
            return
        self.adding = True
        yield
        try:
            hook = await asyncio.to_thread(webhooks.add_webhook, actor, url=self.new_url, events=self.new_events,
                                           fmt=self.new_format)
        except DomainError as exc:
            self.add_error = str(exc)
            self.add_error_field = (exc.field or "") if isinstance(exc, InvalidInput) else ""
            return
        finally:
            self.adding = False
        self.new_url, self.new_events, self.add_error, self.add_error_field = "", [], "", ""
        self.rows, self.deliveries = await asyncio.to_thread(page_rows, actor)
        self.secret_title = f"Signing secret of webhook {hook.id} ({hook.url[:80]})"
        yield rx.set_value(SECRET_FIELD, hook.secret)

    @rx.event
    async def send_test(self, webhook_id: int):
        actor, wanted = await self._admin_and(webhook_id)
        if actor is None or wanted is None:
            return
        self.testing = wanted
        yield
        try:
            line = await webhook_admin.send_test(actor, wanted)
        except DomainError as exc:
            self.action_error = str(exc)
            return
        finally:
            self.testing = 0
        self.action_error = ""
        self.rows, self.deliveries = await asyncio.to_thread(page_rows, actor)
        if line.status == "delivered":
            yield rx.toast.success(f"Test delivered to webhook {wanted}: HTTP {line.status_code}")
        else:
            yield rx.toast.error(f"Test to webhook {wanted} failed: {line.error[:200]}")

    @rx.event
    async def rotate_secret(self, webhook_id: int):
        actor, wanted = await self._admin_and(webhook_id)
        if actor is None or wanted is None:
            return
        try:
            hook = await asyncio.to_thread(webhook_admin.rotate_secret, actor, wanted)
        except DomainError as exc:
            self.action_error = str(exc)
            return
        self.action_error = ""
        self.secret_title = f"New signing secret of webhook {hook.id} ({hook.url[:80]})"
        return rx.set_value(SECRET_FIELD, hook.secret)

    @rx.event
    def hide_secret(self):
        self.secret_title = ""
        return rx.set_value(SECRET_FIELD, "")

    @rx.event
    def ask_remove(self, webhook_id: int):
        wanted = row_id(webhook_id)
        if wanted is not None and any(r.webhook_id == wanted for r in self.rows):
            self.removing = wanted

    @rx.event
    def close_remove(self, opened: bool = False):
        if not opened:
            self.removing = 0

    @rx.event
    async def remove(self):
        actor, wanted = await self._admin_and(self.removing)
        if actor is None or wanted is None:
            return
        self.removing = 0
        try:
            cancelled = await asyncio.to_thread(webhook_admin.remove_webhook, actor, wanted)
        except DomainError as exc:
            self.action_error = str(exc)
            return
        self.action_error = ""
        self.rows, self.deliveries = await asyncio.to_thread(page_rows, actor)
        note = f" ({cancelled} pending deliveries cancelled)" if cancelled else ""
        return rx.toast.success(f"Removed webhook {wanted}{note}")

    @rx.event
    async def refresh(self):
        actor = await self._signed_in_workspace_admin()
        if actor is not None:
            self.rows, self.deliveries = await asyncio.to_thread(page_rows, actor)

    async def _admin_and(self, webhook_id: object) -> tuple[Actor | None, int | None]:
        """The signed-in admin and the webhook id the browser sent, each None (with the error shown)
        when refused."""
        actor = await self._signed_in_workspace_admin()
        if actor is None:
            self.action_error = NOT_ADMIN
            return None, None
        wanted = row_id(webhook_id)
        if wanted is None:
            self.action_error = "That is not a webhook id."
        return actor, wanted
