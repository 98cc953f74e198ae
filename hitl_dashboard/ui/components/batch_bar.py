"""The queue's batch bar (issue 42): how many reviews are selected, Approve and Deny for all of them
(each after a confirmation, opened in the browser alone), and what the last batch did: how many
were decided, and each refused review with its reason."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.queue_batch import BatchResultRow, QueueBatch


def _dialog(action: str, label: str, color: str, *extra: rx.Component) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(rx.button(f"{label} selected", size="2", color_scheme=color,
                                          disabled=(QueueBatch.count == 0) | QueueBatch.sending,
                                          id=f"batch-{action}")),
        rx.alert_dialog.content(
            rx.alert_dialog.title(f"{label} {QueueBatch.count} reviews?"),
            rx.alert_dialog.description(
                "Each review is checked on its own: one that changed, was decided or claimed by someone "
                "else, or is not yours to decide is refused, and the others go through.", size="2"),
            *extra,
            rx.flex(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray",
                                                 class_name="confirm-cancel")),
                rx.alert_dialog.action(rx.button(f"{label} {QueueBatch.count}", color_scheme=color,
                                                 on_click=QueueBatch.send(action), id=f"batch-confirm-{action}",
                                                 class_name="confirm-action")),
                spacing="3", justify="end", margin_top="16px",
            ),
            max_width="460px",
        ),
    )


def _refused_row(row: RowVar[BatchResultRow]) -> rx.Component:
    return rx.list_item(rx.text.strong("#", row.review_id.to_string(), " ", row.title), ": ", row.reason,
                        class_name="batch-refused-row", data_review_id=row.review_id)


def batch_bar() -> rx.Component:
    deny_reason = rx.text_area(placeholder="Why (the agents read it; default: denied in a batch by you)",
                               value=QueueBatch.reason, on_change=QueueBatch.set_reason.debounce(300),
                               margin_top="12px", id="batch-deny-reason", aria_label="Reason for denying")
    return rx.vstack(
        rx.hstack(
            rx.text(QueueBatch.count, " selected", size="2", id="batch-count"),
            _dialog("approve", "Approve", "green"),
            _dialog("deny", "Deny", "amber", deny_reason),
            rx.button("Clear", size="2", variant="ghost", on_click=QueueBatch.clear, id="batch-clear",
                      disabled=QueueBatch.count == 0),
            # On a phone the queue is cards with no header row, so no header checkbox: this selects
            # (or unselects) every review the filter shows, as that checkbox does.
            rx.button("All shown", size="2", variant="soft", color_scheme="gray", on_click=QueueBatch.toggle_shown,
                      id="batch-select-shown-phone", display=rx.breakpoints(initial="flex", sm="none")),
            rx.cond(QueueBatch.sending, rx.spinner(size="2")),
            align="center", spacing="3", wrap="wrap",
        ),
        rx.cond(QueueBatch.error != "", rx.callout(QueueBatch.error, icon="triangle-alert", color_scheme="red",
                                                   id="batch-error")),
        rx.cond(QueueBatch.summary != "", rx.callout.root(
            rx.callout.icon(rx.icon("list-checks")),
            rx.callout.text(QueueBatch.summary, id="batch-summary"),
            rx.cond(QueueBatch.refused.length() > 0,
                    rx.unordered_list(rx.foreach(QueueBatch.refused, _refused_row), id="batch-refused")),
            color_scheme=rx.cond(QueueBatch.refused.length() > 0, "amber", "green"), id="batch-result")),
        spacing="2", width="100%", id="batch-bar",
    )
