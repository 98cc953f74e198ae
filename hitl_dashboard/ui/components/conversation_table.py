"""The conversation table. Titles come from users and agents: rendered as text only."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.badges import STATUS_COLORS
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.conversations import ConversationListState, ConversationRow


def status_badge(status: rx.Var[str], label: rx.Var[str]) -> rx.Component:
    return rx.badge(
        label,
        color_scheme=rx.match(status, *STATUS_COLORS.items(), "gray"),
        variant="soft",
    )


def conversation_row(row: RowVar[ConversationRow]) -> rx.Component:
    # data-label: the column name a card shows beside the value below 768 px (assets/app.css).
    return rx.table.row(
        rx.table.cell(rx.text("#", row.id, color_scheme="gray"), data_label="ID"),
        rx.table.row_header_cell(rx.link(row.title, href=row.href, weight="medium", class_name="conversation-title")),
        rx.table.cell(rx.badge(row.task_type, variant="outline"), data_label="Task type"),
        rx.table.cell(
            rx.vstack(
                status_badge(row.status, row.status_label),
                rx.cond(row.status_reason != "", rx.text(row.status_reason, size="1", color_scheme="gray")),
                spacing="1",
            ),
            data_label="Status",
        ),
        rx.table.cell(rx.text(row.initiator, size="2"), data_label="Started by"),
        rx.table.cell(rx.text(row.tokens), justify="end", data_label="Tokens"),
        rx.table.cell(rx.text(row.created, color_scheme="gray", size="2", white_space="nowrap"), data_label="Created"),
        key=row.id,
        class_name="conversation-row",
    )


def conversation_table() -> rx.Component:
    return rx.cond(
        ConversationListState.rows.length() > 0,
        rx.table.root(
            rx.table.header(
                rx.table.row(
                    rx.table.column_header_cell("ID"),
                    rx.table.column_header_cell("Title"),
                    rx.table.column_header_cell("Task type"),
                    rx.table.column_header_cell("Status"),
                    rx.table.column_header_cell("Started by"),
                    rx.table.column_header_cell("Tokens", justify="end"),
                    rx.table.column_header_cell("Created"),
                ),
            ),
            rx.table.body(rx.foreach(ConversationListState.rows, conversation_row)),
            variant="surface",
            size="2",
            width="100%",
            class_name="phone-cards",  # rows become cards below 768 px (assets/app.css)
        ),
        rx.cond(
            ConversationListState.loading,
            rx.text("Loading conversations…", color_scheme="gray"),
            rx.text(
                rx.cond(
                    ~ConversationListState.filtered,
                    "No conversations yet.",
                    "No conversations match these filters.",
                ),
                color_scheme="gray",
            ),
        ),
    )
