"""An audit event's context: its details, and the exact content that was under review at its hash."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.audit_event import AuditEventState as Event
from hitl_dashboard.ui.states.audit_event import ContentPartRow


def _meta(label: str, value: rx.Component) -> rx.Component:
    return rx.data_list.item(rx.data_list.label(label, min_width="8em"), rx.data_list.value(value))


def _code(text, language="text") -> rx.Component:
    # react-syntax-highlighter renders text nodes only: agent output can never become markup here.
    return rx.code_block(text, language=language, wrap_long_lines=True, show_line_numbers=True,
                         custom_style={"fontSize": "12px", "margin": "0", "maxHeight": "22em"}, width="100%")


def content_part(part: RowVar[ContentPartRow]) -> rx.Component:
    return rx.vstack(
        rx.hstack(rx.icon("file-code", size=14), rx.text(part.title, size="2", weight="medium"), align="center",
                  spacing="1"),
        _code(part.text, part.language),
        spacing="1", width="100%", class_name="reviewed-part",
    )


def reviewed_content() -> rx.Component:
    v = Event.view
    return rx.vstack(
        rx.hstack(
            rx.heading("Content under review", size="3", as_="h2"),
            rx.badge(v.subject, variant="outline"),
            rx.cond(
                v.hash_matches,
                rx.badge(rx.icon("check", size=12), "matches the hash", color_scheme="green", id="hash-check"),
                rx.badge(rx.icon("x", size=12), "does not match the hash", color_scheme="red", id="hash-check"),
            ),
            align="center", spacing="2", wrap="wrap",
        ),
        rx.text("Reviewed by the ", v.required_role, " role. This is exactly what the hash in the audit chain covers.",
                size="1", color_scheme="gray"),
        rx.foreach(v.parts, content_part),
        spacing="2", width="100%", id="reviewed-content",
    )


def event_dialog() -> rx.Component:
    v = Event.view
    return rx.dialog.root(
        rx.dialog.content(
            rx.hstack(
                rx.dialog.title("Audit event #", v.seq, margin="0"),
                rx.spacer(),
                rx.dialog.close(rx.icon_button(rx.icon("x", size=16), variant="ghost", size="1",
                                               aria_label="Close", id="close-event")),
                align="center", width="100%",
            ),
            rx.cond(
                Event.error != "",
                rx.callout(Event.error, icon="triangle-alert", color_scheme="red"),
                rx.vstack(
                    rx.data_list.root(
                        _meta("Time", rx.text(v.at)),
                        _meta("Actor", rx.text(v.actor, weight="medium", id="event-actor")),
                        _meta("Role", rx.text(v.role)),
                        _meta("Action", rx.code(v.action, id="event-action")),
                        _meta("Conversation", rx.cond(v.conversation_href != "",
                                                      rx.link(v.conversation_href, href=v.conversation_href), "—")),
                        _meta("Content hash", rx.code(v.content_hash, size="1", word_break="break-all")),
                        _meta("Event hash", rx.code(v.event_hash, size="1", word_break="break-all")),
                        size="1", orientation="horizontal",
                    ),
                    rx.heading("Details", size="3", as_="h2"),
                    _code(v.details_json, "json"),
                    rx.cond(v.has_reviewed, reviewed_content()),
                    spacing="3", width="100%",
                ),
            ),
            max_width="min(960px, 94vw)", id="event-dialog",
        ),
        open=Event.opened,
        on_open_change=Event.set_opened,
    )
