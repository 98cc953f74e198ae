"""Audit page: filters, the event table (newest first, keyset pages by seq) and downloads."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import reflex as rx

from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit.audit_queries import AuditFilters, audit_page
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import role_label, stamp

if TYPE_CHECKING:
    from hitl_dashboard.db.models import AuditEvent

log = logging.getLogger(__name__)
PAGE_SIZE = 50
ANY = "any"
# Downloads come from the HTTP API, which streams the trail (services.audit.export_lines).
EXPORT_PATH = "/api/audit/export"
FILTERS = ("user", "role", "action", "conversation", "since", "until")
FORMATS = ("csv", "jsonl")
# Every page load of every user signs nobody in, but each sign-in and sign-out is an event: half of a
# busy trail. Hidden unless asked for; failed sign-ins stay visible (they are a security signal).
SESSION_ACTIONS = ("user.signed_in", "user.signed_out")


@dataclass
class AuditRow:
    seq: int = 0
    at: str = ""
    actor: str = ""
    role: str = ""
    action: str = ""
    conversation_id: int = 0
    conversation_href: str = ""
    short_hash: str = ""
    summary: str = ""


def _brief(value) -> str:
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return ", ".join(map(str, value))
    return "…" if isinstance(value, (dict, list)) else str(value)


def summarize(details: dict, limit: int = 140) -> str:
    """One line of the details, `key: value`; nested objects only in the event's context."""
    parts = [f"{k}: {_brief(v)}" for k, v in details.items() if v not in (None, "", [], {})]
    text = " · ".join(parts).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_row(event: AuditEvent) -> AuditRow:
    cid = event.conversation_id or 0
    return AuditRow(
        seq=event.seq, at=stamp(event.at), actor=event.actor, role=role_label(event.actor_role or ""),
        action=event.action,
        conversation_id=cid, conversation_href=routes.conversation(cid) if cid else "",
        short_hash=(event.content_hash or "")[:12], summary=summarize(event.details or {}),
    )


def _day(text: str, field: str) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput("dates look like 2030-03-10", field) from None


def _page(actor: Actor, filters: dict, before_seq: int | None,
          show_sessions: bool = False) -> tuple[list[AuditRow], bool, list[str]]:
    until = _day(filters["until"], "until")
    conversation = filters["conversation"].strip().lstrip("#")
    if conversation and not conversation.isdigit():
        raise InvalidInput("conversation: a number, like 42", "conversation")
    page = audit_page(actor, AuditFilters(
        user=filters["user"].strip() or None,
        role=None if filters["role"] == ANY else filters["role"],
        action=None if filters["action"] == ANY else filters["action"],
        conversation_id=int(conversation) if conversation else None,
        since=_day(filters["since"], "since"), until=until + timedelta(days=1) if until else None,
        before_seq=before_seq, hidden_actions=() if show_sessions else SESSION_ACTIONS,
    ), limit=PAGE_SIZE + 1)
    return [to_row(e) for e in page.events[:PAGE_SIZE]], len(page.events) > PAGE_SIZE, page.actions


def download_script(fmt: str, filename: str, path: str = EXPORT_PATH) -> str:
    """JavaScript that fetches the streamed export from the HTTP API with this browser's sign-in
    cookie (HttpOnly: the script never sees it) and saves it: the server streams in constant memory,
    the browser keeps a Blob."""
    return f"""(async () => {{ try {{
  let base = window.location.origin;
  try {{ base = new URL(String(getBackendURL(env.UPLOAD))).origin; }} catch (e) {{}}
  const response = await fetch(base + {json.dumps(f"{path}?format={fmt}")},
                               {{credentials: "include"}});
  if (!response.ok) {{
    return "error: " + response.status + " " + (await response.text()).slice(0, 300);
  }}
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = {json.dumps(filename)};
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return "ok";
}} catch (e) {{ return "error: " + e; }} }})()"""


class AuditState(AppState):
    user: str = ""
    role: str = ANY
    action: str = ANY
    conversation: str = ""
    since: str = ""
    until: str = ""
    rows: rx.Field[list[AuditRow]] = rx.field(default_factory=list)
    actions: list[str] = []
    # before_seq of every page shown so far; the last one is the current page (0 = newest).
    cursors: rx.Field[list[int]] = rx.field(default_factory=lambda: [0])
    has_older: bool = False
    loading: bool = False
    error: str = ""
    error_field: str = ""
    exporting: str = ""
    show_sessions: bool = False

    def _filters(self) -> dict:
        return {name: getattr(self, name) for name in FILTERS}

    async def _show(self, cursors: list[int]):
        self.loading = True
        yield
        try:
            actor = await self._acting_actor()
            if self.can_read_audit:
                before = cursors[-1] or None
                self.rows, self.has_older, self.actions = await asyncio.to_thread(
                    _page, actor, self._filters(), before, self.show_sessions)
                self.cursors, self.error, self.error_field = cursors, "", ""
        except InvalidInput as exc:
            self.error, self.error_field = str(exc), exc.field or ""
        except PermissionDenied as exc:
            self.rows, self.error = [], str(exc)
        finally:
            self.loading = False

    @rx.event
    async def load(self):
        self.exporting = ""
        async for update in self._show([0]):
            yield update

    @rx.event
    def set_filter(self, name: str, value: str):
        if name in FILTERS:
            setattr(self, name, str(value or "")[:200])

    @rx.event
    async def apply_filters(self, _form: dict):
        async for update in self._show([0]):
            yield update

    @rx.event
    async def toggle_sessions(self, show: bool):
        self.show_sessions = bool(show)
        async for update in self._show([0]):
            yield update

    @rx.event
    async def clear_filters(self):
        self.user, self.role, self.action, self.conversation, self.since, self.until = "", ANY, ANY, "", "", ""
        self.show_sessions = False
        async for update in self._show([0]):
            yield update

    @rx.event
    async def older(self):
        if self.rows and self.has_older:
            async for update in self._show([*self.cursors, self.rows[-1].seq]):
                yield update

    @rx.event
    async def newer(self):
        async for update in self._show(self.cursors[:-1] or [0]):
            yield update

    @rx.event
    async def download(self, fmt: str):
        if fmt not in FORMATS or self.exporting:
            return
        try:
            await self._acting_actor()
        except PermissionDenied:
            return rx.redirect(routes.LOGIN)
        if not self.can_read_audit:
            return rx.toast.error("You need the manager or admin role to download the audit trail.")
        self.exporting = fmt
        filename = f"audit-{datetime.now(UTC):%Y%m%d-%H%M%S}.{fmt}"
        return rx.call_script(download_script(fmt, filename),
                              callback=AuditState.download_finished)

    @rx.event
    def download_finished(self, result: str):
        self.exporting = ""
        if not str(result).startswith("ok"):
            log.warning("audit download failed in the browser: %s", result)
            return rx.toast.error(f"The download failed ({str(result)[:200]})")
