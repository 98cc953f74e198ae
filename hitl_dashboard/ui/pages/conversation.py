"""Conversation page: status, sign-off progress, live transcript, revisions diff, decisions."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.admin_abort import admin_abort
from hitl_dashboard.ui.components.decision_panel import decision_panel
from hitl_dashboard.ui.components.diff_panel import diff_panel
from hitl_dashboard.ui.components.external_request import external_request
from hitl_dashboard.ui.components.forks import fork_dialog, fork_tree, replay_dialog
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
                    # The team version it runs on, to its end (a newer version only changes new ones).
                    rx.cond(Feed.team != "", rx.badge(rx.icon("users", size=12), "team ", Feed.team, variant="soft",
                                                      color_scheme="gray", id="team-version")),
                    rx.text("#", Feed.id, color_scheme="gray"),
                    rx.spacer(), export_buttons(),
                    align="center", width="100%", wrap="wrap",
                ),
                banner(),
                external_request(),
                fork_tree(),
                fork_dialog(),
                replay_dialog(),
                admin_abort(),
                signoff_progress(),
                # Below 768 px one column: decisions and the diff come before the transcript, in the
                # document too (reading and tab order match what a phone shows); from 768 px the
                # transcript takes the left column.
                rx.grid(
                    rx.vstack(decision_panel(), diff_panel(), width="100%", min_width="0", spacing="3",
                              grid_column=rx.breakpoints(initial="1", sm="2"), grid_row="1",
                              id="conversation-side"),
                    rx.vstack(rx.heading("Transcript", size="3", as_="h2"), transcript(), width="100%", min_width="0",
                              grid_column="1", grid_row=rx.breakpoints(initial="2", sm="1"),
                              id="conversation-transcript"),
                    spacing="4", width="100%",
                    grid_template_columns=rx.breakpoints(initial="minmax(0, 1fr)",
                                                         sm="minmax(0, 4fr) minmax(0, 7fr)"),
                ),
                spacing="3", width="100%",
            ),
        ),
        size="wide",
    )
