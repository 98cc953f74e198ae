"""/tokens: the signed-in user's own API tokens (services/auth/tokens: create_own_token, own_tokens,
revoke_own_token). Every handler resolves the user on the server; the ids and values a browser
sends only ever reach that user's own tokens.

A new token is shown once without ever being a state var: it goes to the page in a set_value event
(into a read-only field that is always in the page), so it is not kept in the server's copy of the
tab's state (on disk or in Redis) and a reload shows it no more."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.domain.permissions import APPROVALS_SCOPE, FULL_SCOPE, Actor
from hitl_dashboard.services.auth import tokens
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.browser_input import row_id
from hitl_dashboard.ui.views.formatting import stamp

NEW_TOKEN_FIELD = "new-token-value"
# Expiry choices in days: a closed list, so a forged value is refused, not guessed at.
EXPIRY_DAYS = {"1": "1 day", "7": "7 days", "30": "30 days", "90": "90 days", "365": "1 year", "never": "Never"}
DEFAULT_EXPIRY = "90"
# What a token may do (domain/permissions TOKEN_SCOPES): all its user may, or only ask for external
# approvals (docs/external-approvals.md), for a script outside the product that must not read the rest.
SCOPE_CHOICES = {FULL_SCOPE: "Everything you may do", APPROVALS_SCOPE: "Only ask for approvals"}


@dataclass
class TokenRow:
    token_id: int = 0
    name: str = ""
    prefix: str = ""
    created: str = ""
    last_used: str = ""
    expires: str = ""
    state: str = ""  # active | expired | revoked
    scope: str = ""


def _as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives back naive UTC


def token_row(token: tokens.ApiToken, now: datetime) -> TokenRow:
    expired = token.expires_at is not None and _as_utc(token.expires_at) <= now
    state = "revoked" if token.revoked_at is not None else "expired" if expired else "active"
    return TokenRow(token.id or 0, token.name or "(no name)", token.prefix + "…", stamp(token.created_at),
                    stamp(token.last_used_at) if token.last_used_at else "never",
                    stamp(token.expires_at) if token.expires_at else "never", state,
                    SCOPE_CHOICES.get(token.scope, token.scope))


def token_rows(actor: Actor) -> list[TokenRow]:
    now = datetime.now(UTC)
    return [token_row(t, now) for t in tokens.own_tokens(actor)]


class TokensState(AppState):
    rows: rx.Field[list[TokenRow]] = rx.field(default_factory=list)
    new_name: str = ""
    new_expiry: str = DEFAULT_EXPIRY
    new_scope: str = FULL_SCOPE
    create_error: str = ""
    creating: bool = False
    # Whether the panel with the new token is open, and the token's prefix; never the token itself.
    shown_prefix: rx.Field[str] = rx.field("")
    revoke_error: str = ""

    @rx.event
    async def load(self):
        self.shown_prefix, self.create_error, self.revoke_error = "", "", ""
        actor = await self._actor_or_none()
        if actor is not None:
            self.rows = await asyncio.to_thread(token_rows, actor)

    async def _actor_or_none(self) -> Actor | None:
        try:
            return await self._signed_in_actor()
        except PermissionDenied:
            return None

    @rx.event
    def set_new_name(self, value: str):
        self.new_name = str(value)[:100]

    @rx.event
    def set_new_expiry(self, value: str):
        if value in EXPIRY_DAYS:
            self.new_expiry = value

    @rx.event
    def set_new_scope(self, value: str):
        if value in SCOPE_CHOICES:
            self.new_scope = value

    @rx.event
    async def create(self, _form: dict):
        actor = await self._actor_or_none()
        if actor is None:
            self.create_error = "Sign in again to create a token."
            return
        if self.new_expiry not in EXPIRY_DAYS:  # only set_new_expiry writes it, but check what is used
            self.create_error = "Pick an expiry from the list."
            return
        if self.new_scope not in SCOPE_CHOICES:
            self.create_error = "Pick what the token may do from the list."
            return
        self.creating = True
        yield
        ttl_hours = None if self.new_expiry == "never" else float(self.new_expiry) * 24
        try:
            row, plaintext = await asyncio.to_thread(tokens.create_own_token, actor, name=self.new_name,
                                                     ttl_hours=ttl_hours, scope=self.new_scope)
        except DomainError as exc:
            self.create_error = str(exc)
            return
        finally:
            self.creating = False
        self.new_name, self.create_error, self.shown_prefix = "", "", row.prefix
        self.rows = await asyncio.to_thread(token_rows, actor)
        yield rx.set_value(NEW_TOKEN_FIELD, plaintext)

    @rx.event
    def hide_new_token(self):
        self.shown_prefix = ""
        return rx.set_value(NEW_TOKEN_FIELD, "")

    @rx.event
    async def revoke(self, token_id: int):
        actor = await self._actor_or_none()
        if actor is None:
            self.revoke_error = "Sign in again to revoke a token."
            return
        wanted = row_id(token_id)
        if wanted is None:
            self.revoke_error = "That is not a token id."
            return
        try:
            revoked = await asyncio.to_thread(tokens.revoke_own_token, actor, wanted)
        except DomainError as exc:
            self.revoke_error = str(exc)
            return
        self.revoke_error = ""
        self.rows = await asyncio.to_thread(token_rows, actor)
        return rx.toast.success(f"Revoked {revoked.name or revoked.prefix}")
