"""Live feeds: shared states that every browser watching the same thing is linked to.

The server refreshes a feed by its token (ui/live.py) and Reflex pushes the change to each
linked browser. Tokens may not contain '_' (Reflex rule), hence role names with dashes."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.views.conversation_view import (
    ConversationView, MessageRow, ReviewRow, RevisionRow, StepRow,
)
from hitl_dashboard.ui.views.queue_view import QueueRow


def queue_token(role: str) -> str:
    return "queue-" + role.replace("_", "-")


def conversation_token(conversation_id: int) -> str:
    return f"conv-{conversation_id}"


class QueueFeed(rx.SharedState):
    role: str = ""
    rows: list[QueueRow] = []
    loaded: bool = False

    def fill(self, role: str, rows: list[QueueRow]) -> None:
        self.role, self.rows, self.loaded = role, rows, True


class ConversationFeed(rx.SharedState):
    id: int = 0
    title: str = ""
    task: str = ""
    task_type: str = ""
    status: str = ""
    banner: str = ""
    initiator_id: int = 0
    tokens: str = ""
    agents: list[str] = []
    messages: list[MessageRow] = []
    steps: list[StepRow] = []
    reviews: list[ReviewRow] = []
    revisions: list[RevisionRow] = []
    found: bool = False
    # The message being streamed right now (not yet committed): shown as "typing".
    streaming_source: str = ""
    streaming_text: str = ""

    def fill(self, view: ConversationView) -> None:
        for name in ("id", "title", "task", "task_type", "status", "banner", "initiator_id", "tokens", "agents",
                     "messages", "steps", "reviews", "revisions", "found"):
            setattr(self, name, getattr(view, name))
        self.streaming_source, self.streaming_text = "", ""

    @rx.var
    def revision_keys(self) -> list[str]:
        seen: list[str] = []
        for revision in self.revisions:
            if revision.key not in seen:
                seen.append(revision.key)
        return seen

    @rx.var
    def typing(self) -> bool:
        return self.streaming_source != ""
