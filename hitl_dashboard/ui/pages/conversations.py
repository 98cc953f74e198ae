"""Conversations page: the most recent conversations, filtered by status and task type."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.conversation_table import conversation_table
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.states.conversations import ALL, PAGE_SIZE, STATUSES, TASK_TYPES, ConversationListState


def filter_select(label: str, options: tuple[str, ...], value, on_change, id_: str) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(placeholder=label, width="11em", id=id_),
        rx.select.content(
            rx.select.item(f"Any {label.lower()}", value=ALL),
            *[rx.select.item(option.replace("_", " "), value=option) for option in options],
        ),
        value=value, on_change=on_change, size="2",
    )


def conversations_page() -> rx.Component:
    return page_layout(
        rx.hstack(
            rx.vstack(
                rx.heading("Conversations", size="7", as_="h1"),
                rx.text(f"The most recent {PAGE_SIZE}, newest first.", color_scheme="gray"),
                spacing="1",
            ),
            rx.spacer(),
            filter_select("Status", STATUSES, ConversationListState.status_filter,
                          ConversationListState.filter_status, "filter-status"),
            filter_select("Task type", TASK_TYPES, ConversationListState.type_filter,
                          ConversationListState.filter_type, "filter-task-type"),
            rx.button(
                rx.icon("refresh-cw", size=16),
                "Refresh",
                on_click=ConversationListState.load,
                loading=ConversationListState.loading,
                variant="soft",
                id="refresh-conversations",
            ),
            align="end",
            width="100%",
        ),
        rx.cond(
            ConversationListState.error != "",
            rx.callout(ConversationListState.error, icon="triangle-alert", color_scheme="red", role="alert"),
        ),
        conversation_table(),
    )
