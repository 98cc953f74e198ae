"""What a signed-in user sees on a page their roles do not open."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.states.app_state import AppState


def access_denied(message: str) -> rx.Component:
    return rx.callout(
        message,
        icon="lock",
        color_scheme="amber",
        role="alert",
        id="access-denied",
        width="100%",
    )


def guarded(allowed: rx.Var[bool], message: str, *content: rx.Component) -> rx.Component:
    """content when allowed; the refusal once we know who is signed in; a quiet line before that."""
    return rx.cond(
        allowed,
        rx.fragment(*content),
        rx.cond(AppState.signed_in, access_denied(message), rx.text("Loading…", color_scheme="gray", size="2")),
    )
