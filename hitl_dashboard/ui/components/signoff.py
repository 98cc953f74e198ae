"""Status banner and sign-off progress."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.badges import status_badge
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.feeds import ConversationFeed
from hitl_dashboard.ui.views.conversation_view import StepRow


def banner() -> rx.Component:
    """The status; a wait's deadline counts down in the browser (assets/ticking.js, data-due-ms),
    like the decision card's SLA badge."""
    return rx.callout(
        rx.fragment(
            ConversationFeed.banner,
            rx.cond(ConversationFeed.banner_due_ms > 0,
                    rx.el.span(", ", rx.el.span(ConversationFeed.banner_due, class_name="tick-text"),
                               class_name="banner-due", custom_attrs={"data-due-ms": ConversationFeed.banner_due_ms})),
        ),
        icon=rx.match(ConversationFeed.status, ("approved", "circle-check"), ("failed", "circle-x"),
                      ("aborted", "ban"), ("running", "loader"), "hourglass"),
        color_scheme=rx.match(ConversationFeed.status, ("approved", "green"), ("failed", "red"),
                              ("aborted", "gray"), ("running", "blue"), "amber"),
        id="status-banner", width="100%",
    )


def step(item: RowVar[StepRow]) -> rx.Component:
    return rx.badge(
        rx.icon(rx.match(item.state, ("approved", "circle-check"), ("pending", "circle-dashed"), "ban"), size=14),
        item.label, " ", item.state,
        color_scheme=rx.cond(item.approved, "green", "gray"), variant="soft", size="2",
        class_name="signoff-step", data_state=item.state,
    )


def signoff_progress() -> rx.Component:
    return rx.hstack(
        status_badge(ConversationFeed.status),
        rx.text("Sign-off:", size="2", color_scheme="gray"),
        rx.foreach(ConversationFeed.steps, step),
        rx.spacer(),
        rx.text(ConversationFeed.tokens, " tokens", size="1", color_scheme="gray"),
        align="center", spacing="2", width="100%", wrap="wrap", id="signoff",
    )
