"""The one page template: a header bar with role-aware navigation and a content column."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState

APP_TITLE = "HITL Dashboard"


def nav_link(label: str, href: str, icon: str, id_: str) -> rx.Component:
    return rx.link(
        rx.hstack(rx.icon(icon, size=15), rx.text(label, size="2"), align="center", spacing="1"),
        href=href, underline="none", color_scheme="gray", high_contrast=True, id=id_,
    )


def navigation() -> rx.Component:
    return rx.el.nav(rx.hstack(
        rx.cond(AppState.review_roles.length() > 0, nav_link("Queues", routes.QUEUE, "inbox", "nav-queue")),
        nav_link("Conversations", routes.CONVERSATIONS, "messages-square", "nav-conversations"),
        nav_link("New", routes.NEW_CONVERSATION, "circle-plus", "nav-new"),
        rx.cond(AppState.can_read_audit, nav_link("Audit", routes.AUDIT, "scroll-text", "nav-audit")),
        rx.cond(AppState.can_read_audit, nav_link("Analytics", routes.ANALYTICS, "chart-column", "nav-analytics")),
        rx.cond(AppState.is_admin, nav_link("Users", routes.ADMIN_USERS, "users", "nav-users")),
        spacing="4",
        align="center",
    ), aria_label="Main")


def user_menu() -> rx.Component:
    return rx.hstack(
        rx.text(AppState.username, size="2", weight="medium", id="signed-in-user"),
        rx.button("Sign out", on_click=AppState.sign_out, size="1", variant="soft", color_scheme="gray",
                  id="sign-out"),
        align="center",
        spacing="2",
    )


def header() -> rx.Component:
    return rx.el.header(rx.box(
        rx.hstack(
            rx.link(
                rx.hstack(rx.icon("shield-check", size=22), rx.text(APP_TITLE, weight="bold", size="4"),
                          align="center"),
                href=routes.HOME, underline="none", color_scheme="gray", high_contrast=True,
            ),
            rx.cond(AppState.signed_in, navigation()),
            rx.spacer(),
            rx.cond(AppState.signed_in, user_menu()),
            rx.icon_button(rx.icon("keyboard", size=16), size="2", variant="ghost", color_scheme="gray",
                           on_click=rx.call_script("window.hitlShowKeys && window.hitlShowKeys()"),
                           aria_label="Keyboard shortcuts (?)", title="Keyboard shortcuts (?)", id="show-shortcuts"),
            rx.color_mode.button(size="2", variant="ghost", aria_label="Switch between light and dark theme",
                                 title="Switch between light and dark theme"),
            align="center",
            spacing="5",
            width="100%",
        ),
        padding_x="1.5em",
        padding_y="0.6em",
        border_bottom=f"1px solid {rx.color('gray', 5)}",
        background_color=rx.color("gray", 2),
        width="100%",
    ), style={"width": "100%"})


def page_layout(*children: rx.Component, size: str = "4") -> rx.Component:
    """size: a Radix container size ("1".."4"), or "wide" for the full window width."""
    content = rx.vstack(*children, spacing="4", width="100%")
    body = (
        rx.box(content, padding_x="1.5em", padding_y="1.25em", width="100%") if size == "wide"
        else rx.container(content, size=size, padding_y="1.25em", width="100%")
    )
    return rx.vstack(
        header(),
        rx.el.main(body, style={"width": "100%"}),
        spacing="0",
        min_height="100vh",
        width="100%",
    )
