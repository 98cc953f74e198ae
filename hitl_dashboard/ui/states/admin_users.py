"""Admin users page: the user list, adding a user, changing a user's roles."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import reflex as rx

from hitl_dashboard.domain.enums import Role
from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.auth import user_status, users
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import stamp

ALL_ROLES = [r.value for r in Role]


@dataclass
class UserRow:
    username: str = ""
    display_name: str = ""
    roles: list[str] = field(default_factory=list)
    active: bool = True
    demo: bool = False
    created: str = ""


def user_rows(actor: Actor, workspace: str) -> list[UserRow]:
    """Every user, with the roles that count in the workspace shown: the instance's and theirs there."""
    held = users.roles_by_workspace(actor)
    return [UserRow(u.username, u.display_name, _ordered([*held.get(u.id, {}).get("*", []),
                                                          *held.get(u.id, {}).get(workspace, [])]),
                    u.is_active, u.is_demo, stamp(u.created_at))
            for u in users.list_users(actor)]


def _ordered(roles: list[str]) -> list[str]:
    return [r for r in ALL_ROLES if r in roles]


class AdminUsersState(AppState):
    rows: list[UserRow] = []
    # The add form.
    new_username: str = ""
    new_password: str = ""
    new_roles: rx.Field[list[str]] = rx.field(default_factory=list)
    add_error: str = ""
    add_error_field: str = ""
    adding: bool = False
    # The roles dialog.
    editing: str = ""
    edit_roles: rx.Field[list[str]] = rx.field(default_factory=list)
    edit_error: str = ""
    # The deactivate / reactivate confirmation: the username, and which of the two.
    confirming: str = ""
    confirm_deactivate: bool = True
    status_error: str = ""

    @rx.event
    async def load(self):
        actor = await self._signed_in_admin()
        if actor is not None:
            self.rows = await asyncio.to_thread(user_rows, actor, self.workspace)

    @rx.event
    def set_new_username(self, value: str):
        self.new_username = value.strip().lower()[:64]

    @rx.event
    def set_new_password(self, value: str):
        self.new_password = value[:1024]

    @rx.event
    def toggle_new_role(self, role: str, checked: bool):
        self.new_roles = _ordered([r for r in self.new_roles if r != role] + ([role] if checked else []))

    @rx.event
    def toggle_edit_role(self, role: str, checked: bool):
        self.edit_roles = _ordered([r for r in self.edit_roles if r != role] + ([role] if checked else []))

    @rx.event
    async def add_user(self, _form: dict):
        actor = await self._signed_in_admin()
        if actor is None:
            self.add_error, self.add_error_field = "Only an admin may add users.", ""
            return
        self.adding = True
        yield
        try:
            await asyncio.to_thread(users.create_user, username=self.new_username, password=self.new_password,
                                    roles=self.new_roles, by=actor, workspace_id=actor.workspace_id)
        except DomainError as exc:
            self.add_error = str(exc)
            self.add_error_field = exc.field if isinstance(exc, InvalidInput) and exc.field else "username"
            return
        finally:
            self.adding = False
        added = self.new_username
        self.new_username, self.new_password, self.new_roles, self.add_error, self.add_error_field = "", "", [], "", ""
        self.rows = await asyncio.to_thread(user_rows, actor, self.workspace)
        yield rx.toast.success(f"Added {added}")

    @rx.event
    def edit(self, username: str):
        row = next((r for r in self.rows if r.username == username), None)
        if row is not None:
            self.editing, self.edit_roles, self.edit_error = username, _ordered(row.roles), ""

    @rx.event
    def close_edit(self, opened: bool = False):
        if not opened:
            self.editing, self.edit_error = "", ""

    @rx.event
    async def save_roles(self):
        actor = await self._signed_in_admin()
        if actor is None or not self.editing:
            return
        try:
            await asyncio.to_thread(users.set_roles, username=self.editing, roles=self.edit_roles, by=actor,
                                    workspace_id=actor.workspace_id)
        except DomainError as exc:
            self.edit_error = str(exc)
            return
        saved, self.editing = self.editing, ""
        self.rows = await asyncio.to_thread(user_rows, actor, self.workspace)
        return rx.toast.success(f"Saved the roles of {saved}")

    @rx.event
    def ask_status_change(self, username: str, deactivate: bool):
        """Opens the confirmation; nothing changes until set_active below, which checks the rights."""
        row = next((r for r in self.rows if r.username == username), None)
        if row is not None:
            self.confirming, self.confirm_deactivate, self.status_error = username, bool(deactivate), ""

    @rx.event
    def close_confirm(self, opened: bool = False):
        if not opened:
            self.confirming, self.status_error = "", ""

    @rx.event
    async def set_active(self):
        """Deactivates or reactivates the user being confirmed. An admin may deactivate themself
        unless they are the last active admin (the service refuses that, for anyone)."""
        actor = await self._signed_in_admin()
        if actor is None or not self.confirming:
            self.status_error = "Only an admin may change who can sign in."
            return
        name, deactivate = self.confirming, self.confirm_deactivate
        try:
            if deactivate:
                await asyncio.to_thread(user_status.deactivate_user, actor, name)
            else:
                await asyncio.to_thread(user_status.reactivate_user, actor, name)
        except DomainError as exc:
            self.status_error = str(exc)
            return
        self.confirming = ""
        if deactivate and name == actor.username:  # their own session is among those just revoked
            yield AppState.require_login
            return
        self.rows = await asyncio.to_thread(user_rows, actor, self.workspace)
        yield rx.toast.success(f"Deactivated {name}" if deactivate else f"Reactivated {name}")
