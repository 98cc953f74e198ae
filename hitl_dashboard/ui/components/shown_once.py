"""A secret shown once (a new API token, a webhook's signing secret): a read-only field the server
fills with a set_value event, a copy button, and the warning that it cannot be shown again. The
field is always in the page (hidden while closed), so the event always finds it."""

from __future__ import annotations

import reflex as rx

# Clipboard API where the page is a secure context (https, localhost); the selection copy elsewhere.
COPY_JS = ("(() => {{ const f = document.getElementById('{field}'); f.select();"
           " (navigator.clipboard ? navigator.clipboard.writeText(f.value) : Promise.reject())"
           ".catch(() => document.execCommand('copy')); }})()")


def shown_once(field_id: str, is_open: rx.Var[bool], title: rx.Component | str, on_done) -> rx.Component:
    return rx.callout.root(
        rx.callout.icon(rx.icon("key-round")),
        rx.vstack(
            rx.text(title, weight="bold", size="2"),
            rx.text("Copy it now: it is not stored and cannot be shown again.", size="2"),
            rx.hstack(
                rx.input(id=field_id, read_only=True, size="2", width="100%", font_family="monospace",
                         aria_label="The new secret", class_name="shown-once-value"),
                rx.button(rx.icon("copy", size=14), "Copy", size="2", variant="soft", high_contrast=True, type="button",
                          on_click=rx.call_script(COPY_JS.format(field=field_id)), id=f"{field_id}-copy"),
                rx.button("Done", size="2", variant="outline", high_contrast=True, type="button", on_click=on_done,
                          id=f"{field_id}-done"),
                width="100%", spacing="2",
            ),
            spacing="2", width="100%",
        ),
        color_scheme="green", width="100%", role="status", id=f"{field_id}-panel",
        display=rx.cond(is_open, "flex", "none"),
    )
