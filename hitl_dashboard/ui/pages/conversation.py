"""Conversation page: status, sign-off progress, live transcript, revisions diff, decisions."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.admin_abort import admin_abort
from hitl_dashboard.ui.components.decision_panel import decision_panel
from hitl_dashboard.ui.components.diff_panel import diff_panel
from hitl_dashboard.ui.components.forks import fork_dialog, fork_tree
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.signoff import banner, signoff_progress
from hitl_dashboard.ui.components.transcript import transcript
from hitl_dashboard.ui.components.transcript_export import export_buttons
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.states.feeds import FeedError


def conversation_page() -> rx.Component:
    return page_layout(
        rx.cond(
            FeedError.conversation != "",
            rx.callout(FeedError.conversation, icon="triangle-alert", color_scheme="red", id="conversation-error"),
            rx.vstack(
                rx.hstack(
                    rx.heading(Feed.title, size="5", as_="h1", id="conversation-title"),
                    rx.badge(Feed.task_type, variant="outline"),
                    rx.text("#", Feed.id, color_scheme="gray"),
                    rx.spacer(), export_buttons(),
                    align="center", width="100%",
                ),
                banner(),
                fork_tree(),
                fork_dialog(),
                admin_abort(),
                signoff_progress(),
                rx.grid(
                    rx.vstack(rx.heading("Transcript", size="3", as_="h2"), transcript(), width="100%", min_width="0"),
                    rx.vstack(decision_panel(), diff_panel(), width="100%", min_width="0", spacing="3"),
                    columns="2", spacing="4", width="100%",
                    grid_template_columns="minmax(0, 4fr) minmax(0, 7fr)",
                ),
                spacing="3", width="100%",
            ),
        ),
        size="wide",
    )
