"""/tokens: every signed-in user's own API tokens, for scripts and bots that call the HTTP API."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.shown_once import shown_once
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.tokens import EXPIRY_DAYS, NEW_TOKEN_FIELD, SCOPE_CHOICES, TokenRow
from hitl_dashboard.ui.states.tokens import TokensState as Tokens

STATE_COLORS = {"active": "green", "expired": "amber", "revoked": "gray"}


def create_form() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.heading("Create a token", size="3", as_="h2"),
                rx.hstack(
                    rx.vstack(rx.text("Name", size="1", weight="medium"),
                              rx.input(value=Tokens.new_name, on_change=Tokens.set_new_name, id="token-name",
                                       name="name", placeholder="what uses it, e.g. ci-bot", max_length=100,
                                       width="16em", aria_label="Name"),
                              spacing="1"),
                    rx.vstack(rx.text("Expires after", size="1", weight="medium"),
                              rx.select.root(
                                  rx.select.trigger(id="token-expiry", aria_label="Expires after"),
                                  rx.select.content(*[rx.select.item(label, value=value)
                                                      for value, label in EXPIRY_DAYS.items()]),
                                  value=Tokens.new_expiry, on_change=Tokens.set_new_expiry),
                              spacing="1"),
                    rx.vstack(rx.text("May", size="1", weight="medium"),
                              rx.select.root(
                                  rx.select.trigger(id="token-scope", aria_label="What the token may do"),
                                  rx.select.content(*[rx.select.item(label, value=value)
                                                      for value, label in SCOPE_CHOICES.items()]),
                                  value=Tokens.new_scope, on_change=Tokens.set_new_scope),
                              spacing="1"),
                    rx.button(rx.icon("plus", size=14), "Create token", type="submit", loading=Tokens.creating,
                              id="create-token"),
                    spacing="4", align="end", wrap="wrap",
                ),
                rx.cond(Tokens.create_error != "", rx.text(Tokens.create_error, size="2", color_scheme="red",
                                                           role="alert", id="token-error")),
                rx.text("Send it as ", rx.code("Authorization: Bearer <token>"),
                        ". It acts as you, with your roles, or only asks for approvals (docs/external-approvals.md).",
                        size="1", color_scheme="gray"),
                spacing="3",
            ),
            on_submit=Tokens.create, reset_on_submit=False,
        ),
        width="100%",
    )


def token_row(row: RowVar[TokenRow]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.text(row.name, weight="medium")),
        rx.table.cell(rx.code(row.prefix, size="1")),
        rx.table.cell(rx.text(row.scope, size="1", class_name="token-scope")),
        rx.table.cell(rx.text(row.created, size="1")),
        rx.table.cell(rx.text(row.last_used, size="1", class_name="token-last-used")),
        rx.table.cell(rx.text(row.expires, size="1")),
        rx.table.cell(rx.badge(row.state, color_scheme=rx.match(row.state, *STATE_COLORS.items(), "gray"),
                               variant="soft", class_name="token-state")),
        rx.table.cell(rx.cond(row.state != "revoked",
                              rx.button("Revoke", size="1", variant="soft", color_scheme="red", high_contrast=True,
                                        on_click=Tokens.revoke(row.token_id), class_name="revoke-token"))),
        class_name="token-row", data_token_id=row.token_id.to_string(), data_prefix=row.prefix,
        key=row.token_id.to_string(),
    )


def tokens_page() -> rx.Component:
    return page_layout(
        rx.heading("API tokens", size="6", as_="h1"),
        rx.text("Your tokens for the HTTP API (", rx.link("/api/docs", href="/api/docs"), "). Revoke one as soon as "
                "it may have leaked.", size="2", color_scheme="gray"),
        rx.cond(
            AppState.signed_in,
            rx.vstack(
                shown_once(NEW_TOKEN_FIELD, Tokens.shown_prefix != "", rx.text("Your new token ", Tokens.shown_prefix,
                                                                              "…"), Tokens.hide_new_token),
                create_form(),
                rx.cond(Tokens.revoke_error != "", rx.text(Tokens.revoke_error, size="2", color_scheme="red",
                                                           role="alert", id="revoke-error")),
                rx.cond(
                    Tokens.rows.length() > 0,
                    rx.table.root(
                        rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in (
                            "Name", "Token", "May", "Created", "Last used", "Expires", "State", "")])),
                        rx.table.body(rx.foreach(Tokens.rows, token_row)),
                        size="1", variant="surface", width="100%", id="tokens-table",
                    ),
                    rx.text("You have no API tokens yet.", size="2", color_scheme="gray", id="no-tokens"),
                ),
                spacing="4", width="100%",
            ),
            rx.text("Loading…", color_scheme="gray", size="2"),
        ),
    )
