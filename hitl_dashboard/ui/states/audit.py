"""Audit page: filters, the event table (newest first, keyset pages by seq) and downloads."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import reflex as rx

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import DomainError, InvalidInput, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit import export_lines
from hitl_dashboard.services.audit_context import known_actions
from hitl_dashboard.services.audit_queries import list_events
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import stamp

log = logging.getLogger(__name__)
PAGE_SIZE = 50
ANY = "any"
# The browser download goes through the websocket as a data: URL; past this size use the API
# (GET /api/audit/export streams in constant memory) or `python -m hitl_dashboard audit export`.
MAX_UI_EXPORT_CHARS = 20_000_000
FILTERS = ("user", "role", "action", "conversation", "since", "until")
MIME = {"csv": "text/csv", "jsonl": "application/x-ndjson"}


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


def summarize(details: dict, limit: int = 140) -> str:
    """One line of the details: scalar values first, as `key: value`."""
    parts = [f"{k}: {v}" for k, v in details.items() if v not in (None, "", [], {}) and not isinstance(v, (dict, list))]
    parts += [f"{k}: …" for k, v in details.items() if isinstance(v, (dict, list)) and v]
    text = " · ".join(parts).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_row(event: AuditEvent) -> AuditRow:
    cid = event.conversation_id or 0
    return AuditRow(
        seq=event.seq, at=stamp(event.at), actor=event.actor, role=event.actor_role or "", action=event.action,
        conversation_id=cid, conversation_href=routes.conversation(cid) if cid else "",
        short_hash=(event.content_hash or "")[:12], summary=summarize(event.details or {}),
    )


def _day(text: str, field: str) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        raise InvalidInput("dates look like 2030-03-10", field) from None


def _page(actor: Actor, filters: dict, before_seq: int | None) -> tuple[list[AuditRow], bool, list[str]]:
    until = _day(filters["until"], "until")
    conversation = filters["conversation"].strip().lstrip("#")
    if conversation and not conversation.isdigit():
        raise InvalidInput("conversation: a number, like 42", "conversation")
    with UnitOfWork() as uow:
        events = list_events(
            uow, actor, user=filters["user"].strip() or None,
            role=None if filters["role"] == ANY else filters["role"],
            action=None if filters["action"] == ANY else filters["action"],
            conversation_id=int(conversation) if conversation else None,
            since=_day(filters["since"], "since"), until=until + timedelta(days=1) if until else None,
            before_seq=before_seq, limit=PAGE_SIZE + 1,
        )
        actions = known_actions(uow, actor)
    return [to_row(e) for e in events[:PAGE_SIZE]], len(events) > PAGE_SIZE, actions


def export_text(actor: Actor, fmt: str, max_chars: int = MAX_UI_EXPORT_CHARS) -> str:
    chunks, size = [], 0
    with UnitOfWork() as uow:
        for chunk in export_lines(uow, actor, fmt):
            size += len(chunk)
            if size > max_chars:
                raise InvalidInput(
                    f"the trail is larger than {max_chars // 1_000_000} MB: download it with the API "
                    f"(GET /api/audit/export?format={fmt}) or `python -m hitl_dashboard audit export`", "export")
            chunks.append(chunk)
    return "".join(chunks)


class AuditState(AppState):
    user: str = ""
    role: str = ANY
    action: str = ANY
    conversation: str = ""
    since: str = ""
    until: str = ""
    rows: list[AuditRow] = []
    actions: list[str] = []
    # before_seq of every page shown so far; the last one is the current page (0 = newest).
    cursors: list[int] = [0]
    has_older: bool = False
    loading: bool = False
    error: str = ""
    error_field: str = ""
    exporting: str = ""

    def _filters(self) -> dict:
        return {name: getattr(self, name) for name in FILTERS}

    async def _show(self, cursors: list[int]):
        self.loading = True
        yield
        try:
            actor = await self.actor()
            if self.can_read_audit:
                before = cursors[-1] or None
                self.rows, self.has_older, self.actions = await asyncio.to_thread(_page, actor, self._filters(), before)
                self.cursors, self.error, self.error_field = cursors, "", ""
        except InvalidInput as exc:
            self.error, self.error_field = str(exc), exc.field or ""
        except PermissionDenied as exc:
            self.rows, self.error = [], str(exc)
        finally:
            self.loading = False

    @rx.event
    async def load(self):
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
    async def clear_filters(self):
        self.user, self.role, self.action, self.conversation, self.since, self.until = "", ANY, ANY, "", "", ""
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
        self.exporting = fmt
        yield
        try:
            actor = await self.actor()
            text = await asyncio.to_thread(export_text, actor, fmt)
        except DomainError as exc:
            self.exporting = ""
            yield rx.toast.error(str(exc))
            return
        self.exporting = ""
        stamp_ = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        yield rx.download(data=text, filename=f"audit-{stamp_}.{fmt}", mime_type=MIME[fmt])
