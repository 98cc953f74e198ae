"""The one page template: a header bar and a centred content column."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui import routes

APP_TITLE = "HITL Dashboard"


def header() -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.link(
                rx.hstack(rx.icon("shield-check", size=22), rx.text(APP_TITLE, weight="bold", size="4"), align="center"),
                href=routes.HOME,
                underline="none",
                color_scheme="gray",
                high_contrast=True,
            ),
            rx.spacer(),
            rx.color_mode.button(size="2", variant="ghost"),
            align="center",
            width="100%",
        ),
        padding_x="1.5em",
        padding_y="0.75em",
        border_bottom=f"1px solid {rx.color('gray', 5)}",
        background_color=rx.color("gray", 2),
        width="100%",
    )


def page_layout(*children: rx.Component) -> rx.Component:
    return rx.vstack(
        header(),
        rx.container(rx.vstack(*children, spacing="4", width="100%"), size="4", padding_y="1.5em", width="100%"),
        spacing="0",
        min_height="100vh",
        width="100%",
    )
