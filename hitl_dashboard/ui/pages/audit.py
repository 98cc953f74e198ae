"""Audit page (managers and admins): chain status, charts, the filtered trail, downloads."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.audit_charts import anchor_badge, chain_badge, charts, window_picker
from hitl_dashboard.ui.components.audit_event_dialog import event_dialog
from hitl_dashboard.ui.components.audit_table import event_table, filters, pager
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.audit import AuditState

DENIED = "You need the manager or admin role to read the audit trail."


def download_button(label: str, fmt: str) -> rx.Component:
    return rx.button(
        rx.icon("download", size=14), label, size="1", variant="soft",
        loading=AuditState.exporting == fmt, on_click=AuditState.download(fmt), id=f"download-{fmt}",
    )


def audit_page() -> rx.Component:
    return page_layout(
        rx.hstack(
            rx.heading("Audit trail", size="6", as_="h1"),
            rx.cond(AppState.can_read_audit, rx.hstack(chain_badge(), anchor_badge(), spacing="2", wrap="wrap")),
            rx.spacer(),
            rx.cond(AppState.can_read_audit, rx.hstack(
                rx.text("Whole trail:", size="1", color_scheme="gray"),
                download_button("CSV", "csv"), download_button("JSONL", "jsonl"),
                align="center", spacing="2",
            )),
            align="center", width="100%", spacing="3", wrap="wrap",
        ),
        guarded(
            AppState.can_read_audit, DENIED,
            rx.vstack(
                rx.hstack(rx.heading("Activity", size="3", as_="h2"), rx.spacer(), window_picker(), align="center",
                          width="100%"),
                charts(),
                rx.heading("Events", size="3", as_="h2", margin_top="0.5em"),
                filters(),
                rx.cond(
                    (AuditState.error != "") & (AuditState.error_field == ""),
                    rx.callout(AuditState.error, icon="triangle-alert", color_scheme="red", size="1"),
                ),
                event_table(),
                pager(),
                event_dialog(),
                spacing="3", width="100%",
            ),
        ),
        size="wide",
    )
