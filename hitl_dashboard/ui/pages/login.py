"""Sign-in page: the only page someone who is not signed in can reach. Its forms are posted by the
browser itself to the HTTP sign-in routes (a cookie and a redirect come back; see post_form)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.post_form import hidden_field, post_form
from hitl_dashboard.ui.states.login import SSO_START, LoginState

PASSWORD_SIGN_IN = "/auth/sign-in"


def password_form() -> rx.Component:
    return post_form(
        rx.vstack(
            rx.input(name="username", placeholder="Username", id="username", auto_focus=True, width="100%",
                     size="3", auto_complete="username", aria_label="Username"),
            rx.input(name="password", placeholder="Password", type="password", id="password", width="100%",
                     size="3", auto_complete="current-password", aria_label="Password"),
            hidden_field("next", LoginState.return_to),
            # Disabled until the page's on_load has run: it fills `next` (the deep link) from the URL.
            rx.button("Sign in", type="submit", width="100%", size="3", id="sign-in", disabled=~rx.State.is_hydrated),
            spacing="3",
            width="100%",
        ),
        action=PASSWORD_SIGN_IN,
        width="100%",
    )


def sso_form() -> rx.Component:
    # A GET form, not a link: the browser must load /auth/sso/start itself (a link would be routed
    # inside the page, which has no such page).
    return post_form(
        rx.cond(LoginState.return_to != "", hidden_field("next", LoginState.return_to)),
        rx.button(rx.icon("key-round", size=16), "Sign in with ", LoginState.sso_label, type="submit", width="100%",
                  size="3", variant="outline", id="sso-sign-in", disabled=~rx.State.is_hydrated),
        action=SSO_START,
        method="get",
        width="100%",
    )


def login() -> rx.Component:
    return page_layout(
        rx.center(
            rx.card(
                rx.vstack(
                    rx.heading("Sign in", size="6", as_="h1"),
                    rx.cond(LoginState.notice != "",
                            rx.callout(LoginState.notice, icon="info", color_scheme="blue", width="100%",
                                       id="sign-in-notice")),
                    rx.cond(LoginState.error != "",
                            rx.callout(LoginState.error, icon="triangle-alert", color_scheme="red", role="alert",
                                       width="100%")),
                    rx.cond(LoginState.password_enabled,
                            rx.vstack(rx.text("Use your reviewer account.", color_scheme="gray", size="2"),
                                      password_form(), spacing="3", width="100%")),
                    rx.cond(LoginState.sso_enabled, sso_form()),
                    spacing="3",
                    width="100%",
                ),
                width="22em",
            ),
            padding_top="10vh",
            width="100%",
        ),
        size="2",
    )
