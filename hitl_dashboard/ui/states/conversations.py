"""State of the conversation list on the home page."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.conversation_queries import ConversationSummary, list_conversations
from hitl_dashboard.ui.states.app_state import AppState

logger = logging.getLogger(__name__)

PAGE_SIZE = 50


@dataclass
class ConversationRow:
    """One table row, already formatted for display (all text)."""

    id: int
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
        title=summary.title,
        task_type=summary.task_type,
        status=summary.status,
        status_label=summary.status.replace("_", " "),
        status_reason=summary.status_reason or "",
        tokens=f"{summary.tokens:,}",
        created=summary.created_at.strftime("%Y-%m-%d %H:%M UTC"),
    )


def _load_rows() -> list[ConversationRow]:
    with UnitOfWork() as uow:
        return [to_row(summary) for summary in list_conversations(uow, limit=PAGE_SIZE)]


class ConversationListState(AppState):
    rows: list[ConversationRow] = []
    loading: bool = False
    error: str = ""

    @rx.event
    async def load(self):
        self.loading = True
        yield
        try:
            # The query is synchronous; a thread keeps the event loop free for other clients.
            self.rows = await asyncio.to_thread(_load_rows)
            self.error = ""
        except Exception:
            logger.exception("loading the conversation list failed")
            self.error = "Could not load conversations; see the server log."
        finally:
            self.loading = False
