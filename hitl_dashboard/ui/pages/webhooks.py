"""/webhooks (admins): where events are sent, how the recent deliveries went, and which Slack users
may decide from Slack messages."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.shown_once import shown_once
from hitl_dashboard.ui.components.slack_links import slack_links_section
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.webhooks import EVENTS, FORMATS, SECRET_FIELD, DeliveryRow, WebhookRow
from hitl_dashboard.ui.states.webhooks import WebhooksState as Hooks

DENIED = "You need the workspace_admin role (or admin) to manage this workspace's webhooks."
STATUS_COLORS = {"delivered": "green", "pending": "amber", "failed": "red", "cancelled": "gray"}


def field_error(name: str) -> rx.Component:
    return rx.cond(Hooks.add_error_field == name,
                   rx.text(Hooks.add_error, size="1", color_scheme="red", role="alert", class_name="field-error"))


def add_form() -> rx.Component:
    return rx.card(rx.form(
        rx.vstack(
            rx.heading("Add a webhook", size="3", as_="h2"),
            rx.hstack(
                rx.vstack(rx.text("URL", size="1", weight="medium"),
                          rx.input(value=Hooks.new_url, on_change=Hooks.set_new_url, id="webhook-url", name="url",
                                   placeholder="https://example.com/hooks/hitl", width="100%",
                                   max_length=2000, aria_label="URL"),
                          # Never wider than the card: a phone has less than 28em.
                          field_error("url"), spacing="1", width="28em", max_width="100%"),
                rx.vstack(rx.text("Format", size="1", weight="medium"),
                          rx.select.root(rx.select.trigger(id="webhook-format", aria_label="Format"),
                                         rx.select.content(*[rx.select.item(f, value=f) for f in FORMATS]),
                                         value=Hooks.new_format, on_change=Hooks.set_new_format),
                          field_error("format"), spacing="1"),
                spacing="4", align="start", wrap="wrap", width="100%",
            ),
            rx.vstack(rx.text("Events", size="1", weight="medium"),
                      rx.hstack(*[rx.checkbox(event, checked=Hooks.new_events.contains(event),
                                              on_change=lambda checked, event=event: Hooks.toggle_event(event, checked),
                                              id=f"event-{event.replace('.', '-')}",
                                              name=f"event-{event.replace('.', '-')}", size="1")
                                  for event in EVENTS], spacing="3", wrap="wrap"),
                      field_error("events"), spacing="1"),
            rx.cond((Hooks.add_error != "") & (Hooks.add_error_field == ""),
                    rx.text(Hooks.add_error, size="2", color_scheme="red", role="alert")),
            rx.button(rx.icon("plus", size=14), "Add webhook", type="submit", loading=Hooks.adding, id="add-webhook"),
            rx.text("Each delivery is a POST signed with X-HITL-Signature: sha256=<HMAC-SHA256 of the body with "
                    "the signing secret>.", size="1", color_scheme="gray"),
            spacing="3",
        ),
        on_submit=Hooks.add, reset_on_submit=False,
    ), width="100%")


def webhook_row(row: RowVar[WebhookRow]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.text(row.url, size="2", class_name="webhook-url", word_break="break-all")),
        rx.table.cell(rx.text(row.events, size="1")),
        rx.table.cell(rx.text(row.format, size="1")),
        rx.table.cell(rx.text(row.created, size="1")),
        rx.table.cell(rx.hstack(
            rx.button("Send test", size="1", variant="soft", high_contrast=True,
                      on_click=Hooks.send_test(row.webhook_id), loading=Hooks.testing == row.webhook_id,
                      class_name="test-webhook"),
            rx.button("Rotate secret", size="1", variant="soft", color_scheme="amber", high_contrast=True,
                      on_click=Hooks.rotate_secret(row.webhook_id), class_name="rotate-secret"),
            rx.button("Remove", size="1", variant="soft", color_scheme="red", high_contrast=True,
                      on_click=Hooks.ask_remove(row.webhook_id),
                      class_name="remove-webhook"),
            spacing="2", wrap="wrap")),
        class_name="webhook-row", data_webhook_id=row.webhook_id.to_string(), key=row.webhook_id.to_string(),
    )


def delivery_row(row: RowVar[DeliveryRow]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(row.created, size="1")),
        rx.table.cell(rx.text(row.webhook_id, size="1")),
        rx.table.cell(rx.text(row.event, size="1", class_name="delivery-event")),
        rx.table.cell(rx.badge(row.status, color_scheme=rx.match(row.status, *STATUS_COLORS.items(), "gray"),
                               variant="soft", class_name="delivery-status")),
        rx.table.cell(rx.text(row.status_code, size="1", class_name="delivery-code")),
        rx.table.cell(rx.text(row.attempts, size="1")),
        rx.table.cell(rx.text(row.error, size="1", color_scheme="gray", word_break="break-word")),
        class_name="delivery-row", data_webhook_id=row.webhook_id.to_string(), key=row.delivery_id.to_string(),
    )


def remove_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Remove webhook ", Hooks.removing.to_string()),
            rx.alert_dialog.description("It receives nothing more; its pending deliveries are cancelled. Its past "
                                        "deliveries and the audit trail keep what was sent.", size="2"),
            rx.hstack(rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray")),
                      rx.button("Remove", color_scheme="red", on_click=Hooks.remove, id="confirm-remove"),
                      justify="end", spacing="2", margin_top="1em"),
        ),
        open=Hooks.removing != 0, on_open_change=Hooks.close_remove,
    )


def webhooks_page() -> rx.Component:
    return page_layout(
        rx.heading("Webhooks", size="6", as_="h1"),
        guarded(
            AppState.can_manage_workspace, DENIED,
            rx.vstack(
                shown_once(SECRET_FIELD, Hooks.secret_title != "", rx.text(Hooks.secret_title), Hooks.hide_secret),
                add_form(),
                rx.cond(Hooks.action_error != "", rx.text(Hooks.action_error, size="2", color_scheme="red",
                                                          role="alert", id="webhook-error")),
                rx.cond(Hooks.rows.length() > 0,
                        rx.table.root(
                            rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in (
                                "URL", "Events", "Format", "Added", "")])),
                            rx.table.body(rx.foreach(Hooks.rows, webhook_row)),
                            size="1", variant="surface", width="100%", id="webhooks-table",
                            class_name="phone-cards"),  # a card per webhook on a phone (assets/app.css)
                        rx.text("No webhooks yet.", size="2", color_scheme="gray", id="no-webhooks")),
                rx.hstack(rx.heading("Recent deliveries", size="3", as_="h2"),
                          rx.button(rx.icon("refresh-cw", size=12), "Refresh", size="1", variant="ghost",
                                    on_click=Hooks.refresh, id="refresh-deliveries"), align="center", spacing="3"),
                rx.cond(Hooks.deliveries.length() > 0,
                        rx.table.root(
                            rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in (
                                "Queued", "Webhook", "Event", "Status", "Response", "Attempts", "Error")])),
                            rx.table.body(rx.foreach(Hooks.deliveries, delivery_row)),
                            size="1", variant="surface", width="100%", id="deliveries-table",
                            class_name="phone-cards"),
                        rx.text("Nothing sent yet.", size="2", color_scheme="gray", id="no-deliveries")),
                slack_links_section(),
                remove_dialog(),
                spacing="4", width="100%",
            ),
        ),
    )
