"""On every page of a reviewer: the hidden link to their queues' summary feed. Its data attributes
feed assets/queue_watch.js (unread count in the tab title, desktop notifications); the button
turns the notifications on, asking the browser's permission only when clicked."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.queue_summary import QueueSummary

ENABLE_JS = "window.hitlQueueWatch && window.hitlQueueWatch.toggleNotifications()"


def queue_watch() -> rx.Component:
    return rx.cond(
        AppState.review_roles.length() > 0,
        rx.el.div(
            # The script clicks the hidden button when the tab becomes visible again; changes are pushed.
            rx.el.button(id="queue-watch-refresh", type="button", tab_index=-1, aria_hidden="true",
                         on_click=QueueSummary.refresh),
            id="queue-watch", hidden=True, on_mount=QueueSummary.refresh,
            # Data, not markup: the script reads titles with JSON.parse and shows them as plain text.
            custom_attrs={"data-user": AppState.user_id.to_string(),
                          "data-loaded": rx.cond(QueueSummary.loaded, "true", "false"),
                          "data-arrivals": QueueSummary.arrivals.to_string()},
        ),
    )


def notifications_button() -> rx.Component:
    """Its label follows <html data-notify> (set by the script; styles in assets/app.css)."""
    return rx.button(
        rx.icon("bell", size=14),
        rx.el.span("Enable desktop notifications", class_name="notify-off"),
        rx.el.span("Desktop notifications on", class_name="notify-on"),
        on_click=rx.call_script(ENABLE_JS), size="2", variant="soft", color_scheme="gray",
        id="enable-notifications", type="button",
    )


def count_badge(role: rx.Var[str]) -> rx.Component:
    """A queue tab's number of open requests (QueueSummary: one grouped count per role set and change, pushed)."""
    return rx.cond(
        QueueSummary.loaded,
        # counts: a dict state var, an ObjectVar when read on the class; mypy sees a dict.
        rx.badge(QueueSummary.counts[role].to_string(), variant="solid", radius="full",  # type: ignore[index, attr-defined]
                 class_name="tab-count"),
    )
