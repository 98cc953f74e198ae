"""The card that marks a conversation as an external approval request: who asked, with which
token, the link back to their run (http/https only, checked when it came in; opened with
rel=noopener) and their context as sanitized markdown (never raw HTML)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.transcript import safe_markdown
from hitl_dashboard.ui.states.external_request import ExternalRequestState as X


def external_request() -> rx.Component:
    return rx.cond(
        X.is_external,
        rx.card(
            rx.vstack(
                rx.hstack(
                    rx.badge(rx.icon("globe", size=12), "External request", color_scheme="iris",
                             id="external-badge"),
                    rx.text(X.kind, size="1", color_scheme="gray"),
                    rx.spacer(),
                    rx.cond(X.link != "", rx.link("Open the caller's run", rx.icon("external-link", size=12),
                                                  href=X.link, is_external=True, rel="noopener noreferrer",
                                                  size="2", id="external-link")),
                    align="center", width="100%", wrap="wrap",
                ),
                rx.text("Asked by ", rx.code(X.caller, id="external-caller"),
                        rx.cond(X.token_name != "", rx.fragment(" with the token ", rx.code(X.token_name))),
                        ", request id ", rx.code(X.request_id), size="2"),
                rx.cond(X.context != "", rx.box(safe_markdown(X.context), width="100%", id="external-context")),
                rx.cond(X.result_status != "", rx.text("The caller reported what ran: ", rx.code(X.result_status),
                                                       size="2", id="external-result")),
                spacing="2", width="100%",
            ),
            width="100%", id="external-request", variant="surface",
        ),
    )
