"""A confirmation before an action that cannot be undone (aborting a conversation): the button opens
a dialog, and only the dialog's own button acts. Opening it is the browser's alone (no server event)."""

from __future__ import annotations

from typing import Any

import reflex as rx


def confirmed(trigger: rx.Component, *, title: str, description: str, confirm_label: str,
              on_confirm: Any, confirm_id: Any) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(trigger),
        rx.alert_dialog.content(
            rx.alert_dialog.title(title),
            rx.alert_dialog.description(description, size="2"),
            rx.flex(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray",
                                                 class_name="confirm-cancel")),
                rx.alert_dialog.action(rx.button(confirm_label, color_scheme="red", on_click=on_confirm,
                                                 id=confirm_id, class_name="confirm-action")),
                spacing="3", justify="end", margin_top="16px",
            ),
            max_width="440px",
        ),
    )
