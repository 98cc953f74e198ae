"""Audit filters and the event table. Every value is shown as text."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.audit import ANY, AuditRow, AuditState
from hitl_dashboard.ui.states.audit_event import AuditEventState
from hitl_dashboard.ui.views.formatting import ROLE_LABELS

ACTION_COLORS = (
    ("decision.recorded", "green"), ("decision.override", "red"), ("review.requested", "amber"),
    ("review.escalated", "red"), ("review.expired", "red"), ("conversation.aborted", "gray"),
    ("conversation.failed", "red"),
)


def _field(label: str, control: rx.Component, name: str) -> rx.Component:
    """The label names its control (id filter-<name>): a placeholder is no name."""
    return rx.vstack(
        rx.el.label(rx.text(label, size="1", weight="medium", color_scheme="gray", as_="span"),
                    html_for=f"filter-{name}"),
        control,
        rx.cond(AuditState.error_field == name, rx.text(AuditState.error, size="1", color_scheme="red")),
        spacing="1",
    )


def _input(name: str, **props) -> rx.Component:
    return rx.input(value=getattr(AuditState, name), on_change=lambda v: AuditState.set_filter(name, v), size="1",
                    id=f"filter-{name}", name=name, **props)


def _select(name: str, width: str, *items: rx.Component) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(width=width, id=f"filter-{name}", aria_label=f"Filter by {name}"),
        rx.select.content(*items),
        value=getattr(AuditState, name), on_change=lambda v: AuditState.set_filter(name, v), size="1",
    )


def filters() -> rx.Component:
    return rx.form(
        rx.hstack(
            _field("User", _input("user", placeholder="username", width="9em"), "user"),
            _field("Role", _select("role", "10em", rx.select.item("Any role", value=ANY),
                                   *[rx.select.item(label, value=role) for role, label in ROLE_LABELS.items()]),
                   "role"),
            _field("Action", _select("action", "13em", rx.select.item("Any action", value=ANY),
                                     rx.foreach(AuditState.actions, lambda a: rx.select.item(a, value=a))),
                   "action"),
            _field("Conversation", _input("conversation", placeholder="#", width="6em"), "conversation"),
            _field("From", _input("since", type="date", aria_label="From (day)"), "since"),
            _field("To", _input("until", type="date", aria_label="To (day)"), "until"),
            rx.el.label(
                rx.checkbox(checked=AuditState.show_sessions, on_change=AuditState.toggle_sessions,
                            id="filter-show-sessions", size="1", aria_label="Show sign-ins and sign-outs"),
                rx.text("Show sign-ins and sign-outs", size="1"),
                display="flex", align_items="center", gap="0.4em", padding_bottom="0.3em",
            ),
            rx.button(rx.icon("filter", size=14), "Apply", type="submit", size="1", id="apply-filters"),
            rx.button("Clear", type="button", size="1", variant="soft", color_scheme="gray",
                      on_click=AuditState.clear_filters, id="clear-filters"),
            align="end", spacing="3", wrap="wrap",
        ),
        on_submit=AuditState.apply_filters,
        reset_on_submit=False,
        width="100%",
    )


def event_row(row: RowVar[AuditRow]) -> rx.Component:
    return rx.table.row(
        # data-label: the column name a card shows beside the value below 768 px (assets/app.css).
        rx.table.cell(rx.text(row.seq, color_scheme="gray", size="1"), data_label="Seq"),
        rx.table.cell(rx.text(row.at, size="1", white_space="nowrap"), data_label="Time (UTC)"),
        rx.table.cell(rx.text(row.actor, weight="medium", size="1"), class_name="audit-actor", data_label="Actor"),
        rx.table.cell(rx.text(row.role, size="1", color_scheme="gray"), data_label="Role"),
        rx.table.cell(rx.badge(row.action, size="1", variant="soft",
                               color_scheme=rx.match(row.action, *ACTION_COLORS, "gray")),
                      class_name="audit-action", data_label="Action"),
        rx.table.cell(rx.cond(row.conversation_id > 0,
                              rx.link("#", row.conversation_id, href=row.conversation_href, size="1")),
                      data_label="Conv."),
        rx.table.cell(rx.code(row.short_hash, size="1", variant="ghost"), data_label="Content hash"),
        rx.table.cell(rx.text(row.summary, size="1", color_scheme="gray", class_name="audit-summary"),
                      max_width="26em", data_label="Details"),
        rx.table.cell(rx.icon_button(rx.icon("panel-right-open", size=14), size="1", variant="ghost",
                                     on_click=AuditEventState.show(row.seq), aria_label="Open event context",
                                     class_name="open-event")),
        key=row.seq, class_name="audit-row", data_seq=row.seq,
    )


def event_table() -> rx.Component:
    header = rx.table.header(rx.table.row(*[
        rx.table.column_header_cell(title) for title in
        ("Seq", "Time (UTC)", "Actor", "Role", "Action", "Conv.", "Content hash", "Details", "")
    ]))
    return rx.cond(
        AuditState.rows.length() > 0,
        rx.table.root(header, rx.table.body(rx.foreach(AuditState.rows, event_row)),
                      size="1", variant="surface", width="100%", id="audit-table", class_name="phone-cards"),
        rx.text(rx.cond(AuditState.loading, "Loading events…", "No events match these filters."),
                color_scheme="gray", size="2", id="audit-empty"),
    )


def pager() -> rx.Component:
    return rx.hstack(
        rx.button(rx.icon("chevron-left", size=14), "Newer", size="1", variant="soft",
                  disabled=AuditState.cursors.length() <= 1, on_click=AuditState.newer, id="newer-events"),
        rx.button("Older", rx.icon("chevron-right", size=14), size="1", variant="soft",
                  disabled=~AuditState.has_older, on_click=AuditState.older, id="older-events"),
        rx.cond(AuditState.loading, rx.spinner(size="1")),
        spacing="2", align="center",
    )
