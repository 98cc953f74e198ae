"""Home page: the most recent conversations."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.conversation_table import conversation_table
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.states.conversations import PAGE_SIZE, ConversationListState


def home() -> rx.Component:
    return page_layout(
        rx.hstack(
            rx.vstack(
                rx.heading("Conversations", size="7", as_="h1"),
                rx.text(f"The most recent {PAGE_SIZE}, newest first.", color_scheme="gray"),
                spacing="1",
            ),
            rx.spacer(),
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
