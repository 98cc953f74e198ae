"""The connection to the server, as reviewers see it. Reflex's default overlay shows an error toast
("Cannot connect to server: websocket error") while the server restarts; the client reconnects by
itself and then re-runs the page's on_load (hydrate_and_load), which re-checks the session and
reloads what the page shows. So instead: a calm "reconnecting" notice while the socket is down, and
`page_is_stale` for controls that must not act on content that may be out of date."""

from __future__ import annotations

import reflex as rx
from reflex_components_core.core.banner import has_connection_errors

# Down, or back but not yet re-hydrated (on_load still running): what is shown may be out of date.
page_is_stale = has_connection_errors | ~rx.State.is_hydrated


def reconnecting_notice() -> rx.Component:
    return rx.cond(
        has_connection_errors,
        rx.box(
            rx.hstack(
                rx.spinner(size="1"),
                rx.text("Reconnecting to the server… what you see may be out of date; decisions wait until "
                        "the page is current again.", size="2"),
                align="center", spacing="2",
            ),
            role="status", aria_live="polite", id="reconnecting",
            position="fixed", bottom="1em", left="50%", transform="translateX(-50%)", z_index="1000",
            padding="0.5em 1em", border_radius="999px", box_shadow="0 4px 16px rgba(0,0,0,0.2)",
            background_color=rx.color("amber", 3), border=f"1px solid {rx.color('amber', 7)}",
        ),
    )


def install_overlay(app: rx.App) -> None:
    """Replace Reflex's connection toaster and pulser with the notice above (app_wraps' Overlay slot)."""
    app.app_wraps[(5, "Overlay")] = lambda stateful: reconnecting_notice() if stateful else None
