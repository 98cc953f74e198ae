"""Download buttons for the conversation (Markdown, JSON) and the link on each message."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.transcript_export import TranscriptExportState as T
from hitl_dashboard.ui.views.conversation_view import MessageRow


def export_buttons() -> rx.Component:
    def button(label: str, fmt: str) -> rx.Component:
        return rx.button(rx.icon("download", size=14), label, size="1", variant="soft",
                         loading=T.transcript_exporting == fmt, on_click=T.download_transcript(fmt),
                         id=f"download-transcript-{fmt}")

    return rx.hstack(button("Markdown", "markdown"), button("JSON", "json"), spacing="2",
                     on_mount=T.jump_to_linked_message)


def message_anchor_id(message: RowVar[MessageRow]) -> StringVar:
    """The element id a message link (#message-N, also in exports) points at."""
    return "message-" + message.seq.to_string()


def message_link(message: RowVar[MessageRow]) -> rx.Component:
    return rx.link(rx.icon("link", size=12), href="#" + message_anchor_id(message), color_scheme="gray",
                   title="Link to this message", class_name="message-link")
