"""The shared base state: who is signed in. Every page state derives from it.

The browser's sign-in is an HttpOnly cookie that scripts cannot read; it reaches the server with
the websocket's handshake (Reflex keeps the handshake's headers per connection, server-side, and
never sends the cookie header to the page). Every event resolves it again, so roles are never taken
from the client and an ended sign-in stops working at once. Signing in and out are HTTP routes
(api/routes/sign_in.py) followed by a full page load, which opens a websocket with the new cookie.
Services enforce permissions; the UI only hides what the user may not do."""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from hitl_dashboard.domain.enums import QUEUE_ROLES, Role
from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.return_paths import safe_return_path
from hitl_dashboard.services.auth.browser_sign_ins import SIGN_IN_COOKIE, csrf_token_for, signed_in_actor
from hitl_dashboard.services.workspaces.workspaces import workspace_choices
from hitl_dashboard.ui import routes


def cookie_value(header: str, name: str) -> str:
    """One cookie's value from a Cookie header ("a=1; b=2"); "" when absent."""
    for part in (header or "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value.strip().strip('"')
    return ""


def login_url(notice: str = "", return_to: str = "") -> str:
    params = {key: value for key, value in (("notice", notice), ("next", safe_return_path(return_to))) if value}
    return routes.LOGIN + ("?" + urlencode(params) if params else "")


class AppState(rx.State):
    user_id: rx.Field[int] = rx.field(0)
    username: str = ""
    roles: rx.Field[list[str]] = rx.field(default_factory=list)
    # The sign-out forms send it back (api/browser_auth.check_csrf). Derived from the sign-in and
    # worthless without its cookie, so the page may hold it; the sign-in itself it never sees.
    csrf_token: str = ""
    # Where sign-ins were kept before they moved to the HttpOnly cookie (alembic 0017 ended them all).
    # Read only to notice such a browser, sign it out once with a message, and empty the key.
    old_local_sign_in: str = rx.LocalStorage("", name="hitl_session", sync=True)
    # The workspace the lists, queues and charts show (issue 41): the browser remembers its choice,
    # the server checks it against the user's memberships at every event (_acting_actor).
    workspace: str = rx.LocalStorage("", name="hitl_workspace", sync=True)
    workspaces: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)  # slug, name: the switcher

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

    @rx.var
    def can_manage_workspace(self) -> bool:
        """The members of the workspace shown: its workspace admins and the instance admin."""
        return "workspace_admin" in self.roles or "admin" in self.roles

    def _sign_in_token(self) -> str:
        return cookie_value(self.router.headers.cookie, SIGN_IN_COOKIE)

    async def _signed_in_actor(self) -> Actor:
        """The signed-in user, checked against the database now. Raises PermissionDenied. Private:
        a public method would be an event any browser could call."""
        token = self._sign_in_token()
        try:
            actor = await asyncio.to_thread(signed_in_actor, token)
        except PermissionDenied:
            self._forget()
            raise
        # Assigned only when they changed: Reflex sends every assigned field to the browser, equal or
        # not, and each tab's queue poll checks the user (this state and its computed vars each time).
        # The roles shown are those held in the workspace this tab shows (the menus, the queue tabs).
        shown = next((int(w["id"]) for w in self.workspaces if w["slug"] == self.workspace), None)
        roles = sorted(actor.roles_in(shown) if shown is not None else actor.roles)
        if (self.user_id, self.username, self.roles) != (actor.user_id, actor.username, roles):
            self.user_id, self.username, self.roles = actor.user_id, actor.username, roles
        csrf = csrf_token_for(token)
        if self.csrf_token != csrf:
            self.csrf_token = csrf
        return actor

    def _to_sign_in(self) -> EventSpec:
        """To the sign-in page, which brings the browser back to this page afterwards. Says why when
        this browser had a sign-in: ended (idle, expired, signed out elsewhere), or from before the upgrade."""
        here = self.router.url.path + (f"?{self.router.url.query}" if self.router.url.query else "")
        return rx.redirect(login_url(self._why_signed_out(), here))

    def _why_signed_out(self) -> str:
        if self.old_local_sign_in:
            self.old_local_sign_in = ""  # the browser drops its copy: a page script can read it no more
            return "upgraded"
        return "expired" if self._sign_in_token() else ""

    async def _acting_actor(self) -> Actor:
        """The signed-in user bound to the workspace this tab shows: every list, count and live feed of
        a page reads through it, so a tab never holds rows of another workspace. A remembered
        workspace the user is no longer in falls back to their first (the switcher's order)."""
        actor = await self._signed_in_actor()
        choices = await asyncio.to_thread(workspace_choices, actor)
        asked = self.router.url.query_parameters.get("workspace", "")  # a link names its workspace
        if isinstance(asked, str) and any(c[1] == asked for c in choices):
            self.workspace = asked
        listed = [{"id": str(ws_id), "slug": slug, "name": name} for ws_id, slug, name in choices]
        if self.workspaces != listed:
            self.workspaces = listed
        chosen = next((c for c in choices if c[1] == self.workspace), choices[0] if choices else None)
        if chosen is None:
            raise PermissionDenied(f"{actor.username} is in no workspace: ask an admin to add you to one")
        if self.workspace != chosen[1]:
            self.workspace = chosen[1]
        bound = actor.within(chosen[0], "")
        if self.roles != sorted(bound.roles):
            self.roles = sorted(bound.roles)
        return bound

    @rx.event
    async def switch_workspace(self, slug: str):
        """The header's switcher: checked on the server (a slug the user is not in changes nothing)."""
        try:
            actor = await self._signed_in_actor()
        except PermissionDenied:
            return self._to_sign_in()
        choices = await asyncio.to_thread(workspace_choices, actor)
        if isinstance(slug, str) and any(c[1] == slug for c in choices) and slug != self.workspace:
            from hitl_dashboard.ui.fanout import forget_every_watch

            await forget_every_watch(self.router.session.client_token)  # the old workspace's feeds
            self.workspace = slug
            return rx.redirect(self.router.url.path)

    async def _signed_in_workspace_admin(self) -> Actor | None:
        """The signed-in user if they manage the workspace the tab shows (its workspace admin, or the
        instance admin), bound to it; None otherwise. The webhooks page's check."""
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return None
        return actor if actor.roles & {Role.WORKSPACE_ADMIN.value, Role.ADMIN.value} else None

    async def _signed_in_admin(self) -> Actor | None:
        """The signed-in user if they hold the admin role now, bound to the workspace the tab shows
        (what the admin pages change: teams and webhooks are a workspace's); None otherwise."""
        try:
            actor = await self._acting_actor()
        except PermissionDenied:
            return None
        return actor if actor.is_admin else None

    @rx.event
    async def require_login(self):
        """on_load of every protected page: no live sign-in -> the sign-in page, and back here after.
        Also what a tab is told to send when its user's sessions end (ui/states/session_watch.py):
        refused, the tab's feeds stop pushing to it."""
        shown = self.workspace
        try:
            await self._acting_actor()
        except PermissionDenied:
            from hitl_dashboard.ui.fanout import forget_every_watch

            await forget_every_watch(self.router.session.client_token)
            return self._to_sign_in()
        if shown and shown != self.workspace:
            # Removed from the workspace this tab showed: its feeds stop now, and the page loads again
            # in a workspace the user is still in.
            from hitl_dashboard.ui.fanout import forget_every_watch

            await forget_every_watch(self.router.session.client_token)
            return rx.redirect(self.router.url.path)

    @rx.event
    async def reopen(self):
        """The user's rights changed (ui/states/session_watch.py): the page loads again, so each of
        its feeds is opened again through its own check. Signed out: require_login has sent it on."""
        if self.user_id:
            query = f"?{self.router.url.query}" if self.router.url.query else ""
            return rx.redirect(self.router.url.path + query)

    def _forget(self) -> None:
        self.user_id, self.username, self.roles, self.csrf_token = 0, "", [], ""

    @rx.event
    async def go_home(self):
        # Bound to a workspace: review roles are held in one (a reviewer whose only workspace is not
        # the default one landed on the conversations, not on their queue).
        try:
            await self._acting_actor()
        except PermissionDenied:
            if not self.user_id:  # signed out (the check forgot the user)
                return rx.redirect(login_url(self._why_signed_out()))
            # Signed in, but in no workspace: the conversations page says so.
        return rx.redirect(routes.QUEUE if self.review_roles else routes.CONVERSATIONS)

    @rx.event
    async def go_to_review(self):
        """/reviews/<id> (links in webhooks and Slack) opens the review's conversation."""
        from hitl_dashboard.services.reviews.review_queries import conversation_of_review

        try:
            review_id = int(self.router.url.path.rstrip("/").rsplit("/", 1)[-1])
            actor = await self._signed_in_actor()
            conversation_id = await asyncio.to_thread(conversation_of_review, actor, review_id)
        except (ValueError, DomainError):
            return rx.redirect(routes.QUEUE)
        return rx.redirect(routes.conversation(conversation_id))


def path_id(path: str) -> int | None:
    """The trailing number of a path like /conversations/42, or None."""
    try:
        return int(path.rstrip("/").rsplit("/", 1)[-1])
    except ValueError:
        return None
