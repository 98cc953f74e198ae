"""The context of one audit event, shown in a dialog: its details and the exact reviewed content."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit.audit_context import event_context
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import role_label, stamp

SUBJECT_LABELS = {"code_revision": "Code revision", "message": "Message", "tool_call": "Tool call"}
# Languages the code block knows; anything else is shown as plain text.
LANGUAGES = {"python", "javascript", "typescript", "json", "markdown", "bash", "sql", "yaml", "go", "rust",
             "java", "html", "css", "diff"}


@dataclass
class ContentPartRow:
    title: str = ""
    language: str = "text"
    text: str = ""


@dataclass
class EventView:
    seq: int = 0
    at: str = ""
    actor: str = ""
    role: str = ""
    action: str = ""
    conversation_href: str = ""
    content_hash: str = ""
    event_hash: str = ""
    details_json: str = ""
    has_reviewed: bool = False
    subject: str = ""
    required_role: str = ""
    hash_matches: bool = False
    parts: list[ContentPartRow] = field(default_factory=list)


def event_view(actor: Actor, seq: int) -> EventView:
    context = event_context(actor, seq)
    e, reviewed = context.event, context.reviewed
    view = EventView(
        seq=e.seq, at=stamp(e.at), actor=e.actor, role=role_label(e.actor_role) if e.actor_role else "",
        action=e.action, conversation_href=routes.conversation(e.conversation_id) if e.conversation_id else "",
        content_hash=e.content_hash or "", event_hash=e.hash,
        details_json=json.dumps(e.details or {}, indent=2, sort_keys=True, ensure_ascii=False),
    )
    if reviewed is not None:
        view.has_reviewed = True
        view.subject = f"{SUBJECT_LABELS.get(reviewed.subject_type, reviewed.subject_type)}: {reviewed.subject_label}"
        view.required_role = role_label(reviewed.required_role)
        view.hash_matches = reviewed.hash_matches
        view.parts = [ContentPartRow(p.title, p.language if p.language in LANGUAGES else "text", p.text)
                      for p in reviewed.parts]
    return view


class AuditEventState(AppState):
    opened: bool = False
    view: EventView = EventView()
    error: str = ""

    @rx.event
    async def show(self, seq: int):
        self.opened, self.view, self.error = True, EventView(seq=int(seq)), ""
        yield
        try:
            actor = await self._signed_in_actor()
            self.view = await asyncio.to_thread(event_view, actor, int(seq))
        except DomainError as exc:
            self.error = str(exc)

    @rx.event
    def set_opened(self, value: bool):
        self.opened = value
