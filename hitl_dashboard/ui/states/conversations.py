"""State of the conversation list: keyset pages, newest first, with filters and a search. Filters and
the page live in the URL (?status=&type=&initiator=&q=&from=&to=&before=|after=), so a list can be
shared, reloaded and navigated with the browser's back button; every change is a navigation and
on_load reads the URL again."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations.conversation_list import (
    ConversationFilter,
    ConversationPage,
    ConversationSummary,
    conversation_page,
)
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState

logger = logging.getLogger(__name__)

PAGE_SIZE = 50
ALL = "all"
STATUSES = ("running", "awaiting_review", "approved", "aborted", "failed")
TASK_TYPES = ("code", "copy", "ops")
FILTER_PARAMS = ("status", "type", "initiator", "q", "from", "to")
MAX_TEXT = 200


@dataclass
class ConversationRow:
    """One table row, already formatted for display (all text)."""

    id: int
    href: str
    title: str
    task_type: str
    status: str
    status_label: str
    status_reason: str
    tokens: str
    created: str
    initiator: str


def to_row(summary: ConversationSummary) -> ConversationRow:
    return ConversationRow(
        id=summary.id,
        href=routes.conversation(summary.id),
        title=summary.title,
        task_type=summary.task_type,
        status=summary.status,
        status_label=summary.status.replace("_", " "),
        status_reason=summary.status_reason or "",
        tokens=f"{summary.tokens:,}",
        created=summary.created_at.strftime("%Y-%m-%d %H:%M UTC"),
        initiator=summary.initiator,
    )


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _cursor(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 19 else None


def clean_filters(params: dict[str, str]) -> dict[str, str]:
    """The URL's filters, each kept only if valid (a bad value is dropped, never an error page)."""
    status, task_type = params.get("status", ""), params.get("type", "")
    return {
        "status": status if status in STATUSES else "",
        "type": task_type if task_type in TASK_TYPES else "",
        "initiator": params.get("initiator", "").strip()[:64],
        "q": " ".join(params.get("q", "").split())[:MAX_TEXT],
        "from": params.get("from", "") if _day(params.get("from", "")) else "",
        "to": params.get("to", "") if _day(params.get("to", "")) else "",
    }


def list_href(filters: dict[str, str], **cursor: int) -> str:
    query = {name: value for name, value in filters.items() if value} | {k: str(v) for k, v in cursor.items()}
    return routes.CONVERSATIONS + (f"?{urlencode(query)}" if query else "")


def _load_page(actor: Actor, filters: dict[str, str], before: int | None, after: int | None) -> ConversationPage:
    return conversation_page(actor, ConversationFilter(
        status=filters["status"] or None, task_type=filters["type"] or None,
        initiator=filters["initiator"] or None, text=filters["q"] or None,
        created_from=_day(filters["from"]), created_to=_day(filters["to"]),
    ), before=before, after=after, size=PAGE_SIZE)


class ConversationListState(AppState):
    rows: rx.Field[list[ConversationRow]] = rx.field(default_factory=list)
    loading: bool = False
    error: str = ""
    status_filter: str = ALL
    type_filter: str = ALL
    initiator_filter: str = ""
    search: str = ""
    created_from: str = ""
    created_to: str = ""
    total: int = 0
    first_position: int = 0
    newer_href: str = ""
    older_href: str = ""

    def _filters(self) -> dict[str, str]:
        return {"status": "" if self.status_filter == ALL else self.status_filter,
                "type": "" if self.type_filter == ALL else self.type_filter,
                "initiator": self.initiator_filter, "q": self.search,
                "from": self.created_from, "to": self.created_to}

    @rx.var
    def filtered(self) -> bool:
        return (self.status_filter != ALL or self.type_filter != ALL or self.initiator_filter != ""
                or self.search != "" or self.created_from != "" or self.created_to != "")

    @rx.var
    def range_label(self) -> str:
        if not self.rows:
            return ""
        last = self.first_position + len(self.rows) - 1
        return f"{self.first_position:,}–{last:,} of {self.total:,}"

    @rx.event
    async def load(self):
        """on_load: the filters and the page from the URL."""
        params = self.router.url.query_parameters
        filters = clean_filters(params)
        self.status_filter, self.type_filter = filters["status"] or ALL, filters["type"] or ALL
        self.initiator_filter, self.search = filters["initiator"], filters["q"]
        self.created_from, self.created_to = filters["from"], filters["to"]
        before, after = _cursor(params.get("before", "")), _cursor(params.get("after", ""))
        async for update in self._reload(before, after):
            yield update

    @rx.event
    async def refresh(self):
        """The newest page again, with the same filters."""
        async for update in self._reload(None, None):
            yield update

    async def _reload(self, before: int | None, after: int | None):
        self.loading = True
        yield
        try:
            actor = await self._acting_actor()
            filters = self._filters()
            # The query is synchronous; a thread keeps the event loop free for other clients.
            page = await asyncio.to_thread(_load_page, actor, filters, before, after)
            self.rows = [to_row(summary) for summary in page.rows]
            self.total, self.first_position = page.total, page.first_position
            self.newer_href = list_href(filters, after=page.newer_cursor) if page.newer_cursor else ""
            self.older_href = list_href(filters, before=page.older_cursor) if page.older_cursor else ""
            self.error = ""
        except PermissionDenied:  # signed out meanwhile: require_login sends the browser to sign in
            self.rows = []
        except Exception:
            logger.exception("loading the conversation list failed")
            self.error = "Could not load conversations; see the server log."
        finally:
            self.loading = False

    def _go(self, **changes: str):
        return rx.redirect(list_href(clean_filters(self._filters() | changes)))

    @rx.event
    def filter_status(self, value: str):
        return self._go(status=value if value in STATUSES else "")

    @rx.event
    def filter_type(self, value: str):
        return self._go(type=value if value in TASK_TYPES else "")

    @rx.event
    def apply_search(self, form: dict):
        """The search form: words, initiator, dates (any may be empty). A new search starts at the newest."""
        return self._go(**{name: str(form.get(name, ""))[:MAX_TEXT] for name in ("q", "initiator", "from", "to")})

    @rx.event
    def clear_filters(self):
        return rx.redirect(routes.CONVERSATIONS)
