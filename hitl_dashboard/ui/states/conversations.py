"""State of the conversation list: the newest conversations, filtered by status and task type."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations.conversation_queries import ConversationSummary, list_conversations
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState

logger = logging.getLogger(__name__)

PAGE_SIZE = 50
ALL = "all"
STATUSES = ("running", "awaiting_review", "approved", "aborted", "failed")
TASK_TYPES = ("code", "copy", "ops")


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
    )


def _load_rows(actor: Actor, status: str = ALL, task_type: str = ALL) -> list[ConversationRow]:
    summaries = list_conversations(actor, status=None if status == ALL else status,
                                   task_type=None if task_type == ALL else task_type, limit=PAGE_SIZE)
    return [to_row(summary) for summary in summaries]


class ConversationListState(AppState):
    rows: list[ConversationRow] = []
    loading: bool = False
    error: str = ""
    status_filter: str = ALL
    type_filter: str = ALL

    @rx.event
    async def load(self):
        async for update in self._reload():
            yield update

    async def _reload(self):
        self.loading = True
        yield
        try:
            actor = await self._signed_in_actor()
            # The query is synchronous; a thread keeps the event loop free for other clients.
            self.rows = await asyncio.to_thread(_load_rows, actor, self.status_filter, self.type_filter)
            self.error = ""
        except PermissionDenied:  # signed out meanwhile: require_login sends the browser to sign in
            self.rows = []
        except Exception:
            logger.exception("loading the conversation list failed")
            self.error = "Could not load conversations; see the server log."
        finally:
            self.loading = False

    @rx.event
    async def filter_status(self, value: str):
        self.status_filter = value if value in STATUSES else ALL
        async for update in self._reload():
            yield update

    @rx.event
    async def filter_type(self, value: str):
        self.type_filter = value if value in TASK_TYPES else ALL
        async for update in self._reload():
            yield update
