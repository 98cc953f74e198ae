"""The shared base state: who is signed in. Every page state derives from it.

The browser keeps only an opaque session token (LocalStorage, so a reload keeps the
session); every event resolves it again on the server, so roles are never taken from
the client and a revoked session stops working at once. Services enforce permissions;
the UI only hides what the user may not do."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.enums import QUEUE_ROLES
from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.auth.tokens import resolve_token
from hitl_dashboard.ui import routes


class AppState(rx.State):
    session_token: str = rx.LocalStorage("", name="hitl_session", sync=True)
    user_id: rx.Field[int] = rx.field(0)
    username: str = ""
    roles: rx.Field[list[str]] = rx.field(default_factory=list)

    @rx.var
    def signed_in(self) -> bool:
        return self.user_id > 0

    @rx.var
    def review_roles(self) -> list[str]:
        """The queues this user sees: the review roles held; every queue for an admin."""
        if "admin" in self.roles:  # admins also own the queue that overdue requests escalate to
            return list(QUEUE_ROLES)
        return [r for r in QUEUE_ROLES if r in self.roles]

    @rx.var
    def can_read_audit(self) -> bool:
        return "manager" in self.roles or "admin" in self.roles

    @rx.var
    def is_admin(self) -> bool:
        return "admin" in self.roles

    async def _signed_in_actor(self) -> Actor:
        """The signed-in user, checked against the database now. Raises PermissionDenied. Private:
        a public method would be an event any browser could call."""
        actor = await asyncio.to_thread(resolve_token, self.session_token, "session")
        # Assigned only when they changed: Reflex sends every assigned field to the browser, equal or
        # not, and each tab's queue poll checks the user (this state and its computed vars each time).
        if (self.user_id, self.username, self.roles) != (actor.user_id, actor.username, sorted(actor.roles)):
            self.user_id, self.username, self.roles = actor.user_id, actor.username, sorted(actor.roles)
        return actor

    async def _signed_in_admin(self) -> Actor | None:
        """The signed-in user if they hold the admin role now; None otherwise (the admin pages)."""
        try:
            actor = await self._signed_in_actor()
        except PermissionDenied:
            return None
        return actor if actor.is_admin else None

    @rx.event
    async def require_login(self):
        """on_load of every protected page: unknown or expired session -> sign-in page."""
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            self._forget()
            return rx.redirect(routes.LOGIN)

    def _forget(self) -> None:
        self.session_token, self.user_id, self.username, self.roles = "", 0, "", []

    @rx.event
    async def sign_out(self):
        from hitl_dashboard.services.auth.sign_ins import sign_out

        token = self.session_token
        self._forget()
        if token:
            await asyncio.to_thread(sign_out, token)
        return rx.redirect(routes.LOGIN)

    @rx.event
    async def go_home(self):
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            self._forget()
            return rx.redirect(routes.LOGIN)
        return rx.redirect(routes.QUEUE if self.review_roles else routes.CONVERSATIONS)

    @rx.event
    async def go_to_review(self):
        """/reviews/<id> (links in webhooks and Slack) opens the review's conversation."""
        from hitl_dashboard.services.reviews.review_queries import conversation_of_review

        try:
            await self._signed_in_actor()
        except PermissionDenied:
            self._forget()
            return rx.redirect(routes.LOGIN)
        try:
            review_id = int(self.router.url.path.rstrip("/").rsplit("/", 1)[-1])
            conversation_id = await asyncio.to_thread(conversation_of_review, review_id)
        except (ValueError, DomainError):
            return rx.redirect(routes.QUEUE)
        return rx.redirect(routes.conversation(conversation_id))


def path_id(path: str) -> int | None:
    """The trailing number of a path like /conversations/42, or None."""
    try:
        return int(path.rstrip("/").rsplit("/", 1)[-1])
    except ValueError:
        return None
