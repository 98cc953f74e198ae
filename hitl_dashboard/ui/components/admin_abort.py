"""Admins only: "Abort conversation" with a required reason, on a conversation not yet finished; it
asks for confirmation first."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.confirm import confirmed
from hitl_dashboard.ui.states.admin_abort import AdminAbortState as A
from hitl_dashboard.ui.states.feeds import ConversationFeed


def admin_abort() -> rx.Component:
    finished = (ConversationFeed.status == "approved") | (ConversationFeed.status == "aborted")
    return rx.cond(
        A.is_admin & ~finished & (ConversationFeed.status != ""),
        rx.card(
            rx.vstack(
                rx.text("Admin: stop this conversation, whatever it is doing.", size="2", weight="medium"),
                rx.hstack(
                    rx.input(value=A.abort_reason, on_change=A.set_abort_reason, placeholder="Reason (required)",
                             aria_label="Reason for aborting the conversation (required)",
                             id="admin-abort-reason", width="100%", size="2"),
                    confirmed(
                        rx.button("Abort conversation", color_scheme="red", variant="soft", loading=A.aborting,
                                  disabled=A.abort_reason.strip() == "", id="admin-abort-button"),
                        title="Abort this conversation?", confirm_label="Abort conversation",
                        description="The agents stop for good and every open review closes. This cannot be undone.",
                        on_confirm=A.abort, confirm_id="admin-abort-confirm"),
                    width="100%",
                ),
                rx.cond(A.abort_error != "", rx.text(A.abort_error, color_scheme="red", size="2",
                                                      id="admin-abort-error")),
                spacing="2", width="100%",
            ),
            width="100%", id="admin-abort",
        ),
    )
