"""Sign-in page: the only page someone who is not signed in can reach."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.states.login import LoginState


def login() -> rx.Component:
    return page_layout(
        rx.center(
            rx.card(
                rx.form(
                    rx.vstack(
                        rx.heading("Sign in", size="6", as_="h1"),
                        rx.text("Use your reviewer account.", color_scheme="gray", size="2"),
                        rx.input(name="username", placeholder="Username", id="username", auto_focus=True,
                                 width="100%", size="3"),
                        rx.input(name="password", placeholder="Password", type="password", id="password",
                                 width="100%", size="3"),
                        rx.cond(LoginState.error != "",
                                rx.callout(LoginState.error, icon="triangle-alert", color_scheme="red",
                                           role="alert", width="100%")),
                        # Disabled until the page is connected: a click before that would submit
                        # the form natively (a GET with the password in the URL) and be lost.
                        rx.button("Sign in", type="submit", width="100%", size="3", id="sign-in",
                                  disabled=~rx.State.is_hydrated),
                        spacing="3",
                        width="100%",
                    ),
                    on_submit=LoginState.sign_in,
                    reset_on_submit=False,
                ),
                width="22em",
            ),
            padding_top="10vh",
            width="100%",
        ),
        size="2",
    )
