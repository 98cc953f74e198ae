"""The workspace page (issue 41): the members of the workspace shown and their roles there (its
workspace admins and the instance admin); and, for the instance admin, every workspace: create,
rename, archive. Every event checks the caller's rights again in the services."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import reflex as rx

from hitl_dashboard.domain.enums import WORKSPACE_ROLES
from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.workspaces import workspaces
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import stamp

MEMBER_ROLES = [r.value for r in WORKSPACE_ROLES]


@dataclass
class MemberRow:
    username: str = ""
    display_name: str = ""
    roles: list[str] = field(default_factory=list)
    active: bool = True


@dataclass
class WorkspaceRow:
    slug: str = ""
    name: str = ""
    archived: bool = False
    created: str = ""


def _members(actor: Actor, slug: str) -> list[MemberRow]:
    return [MemberRow(m.username, m.display_name, m.roles, m.active) for m in workspaces.list_members(actor, slug)]


def _workspaces(actor: Actor) -> list[WorkspaceRow]:
    if not actor.is_admin:
        return []
    return [WorkspaceRow(w.slug, w.name, w.archived_at is not None, stamp(w.created_at))
            for w in workspaces.list_workspaces(actor, include_archived=True)]


def _ordered(roles: list[str]) -> list[str]:
    return [r for r in MEMBER_ROLES if r in roles]


class AdminWorkspacesState(AppState):
    members: list[MemberRow] = []
    all_workspaces: list[WorkspaceRow] = []
    # Adding a member, or changing one's roles (the same form: a username and roles).
    member_name: str = ""
    member_roles: rx.Field[list[str]] = rx.field(default_factory=list)
    member_error: str = ""
    # Creating a workspace (the instance admin).
    new_slug: str = ""
    new_name: str = ""
    create_error: str = ""
    # Renaming one (a dialog): its slug, and the new name.
    renaming: str = ""
    rename_name: str = ""

    async def _manager(self) -> Actor | None:
        try:
            return await self._acting_actor()
        except PermissionDenied:
            return None

    async def _reload(self, actor: Actor) -> None:
        try:
            self.members = await asyncio.to_thread(_members, actor, self.workspace)
        except DomainError:
            self.members = []
        self.all_workspaces = await asyncio.to_thread(_workspaces, actor)

    @rx.event
    async def load(self):
        actor = await self._manager()
        if actor is not None:
            await self._reload(actor)

    @rx.event
    def set_member_name(self, value: str):
        self.member_name = (value if isinstance(value, str) else "").strip().lower()[:64]

    @rx.event
    def toggle_member_role(self, role: str, checked: bool):
        self.member_roles = _ordered([r for r in self.member_roles if r != role] + ([role] if checked else []))

    @rx.event
    def edit_member(self, username: str):
        row = next((m for m in self.members if m.username == username), None)
        if row is not None:
            self.member_name, self.member_roles, self.member_error = row.username, _ordered(row.roles), ""

    @rx.event
    async def save_member(self, _form: dict | None = None):
        actor = await self._manager()
        if actor is None:
            return
        try:
            await asyncio.to_thread(workspaces.set_member, actor, self.workspace, username=self.member_name,
                                    roles=list(self.member_roles))
        except DomainError as exc:
            self.member_error = str(exc)
            return
        saved = self.member_name
        self.member_name, self.member_roles, self.member_error = "", [], ""
        await self._reload(actor)
        yield rx.toast.success(f"Saved the roles of {saved} in this workspace")

    @rx.event
    async def remove_member(self, username: str):
        actor = await self._manager()
        if actor is None or not isinstance(username, str):
            return
        try:
            await asyncio.to_thread(workspaces.remove_member, actor, self.workspace, username=username)
        except DomainError as exc:
            self.member_error = str(exc)
            return
        await self._reload(actor)
        yield rx.toast.success(f"{username} is no longer in this workspace")

    @rx.event
    def set_new_slug(self, value: str):
        self.new_slug = (value if isinstance(value, str) else "").strip().lower()[:40]

    @rx.event
    def set_new_name(self, value: str):
        self.new_name = (value if isinstance(value, str) else "")[:100]

    @rx.event
    async def create_workspace(self, _form: dict | None = None):
        actor = await self._manager()
        if actor is None:
            return
        try:
            await asyncio.to_thread(workspaces.create_workspace, actor, slug=self.new_slug, name=self.new_name)
        except DomainError as exc:
            self.create_error = str(exc)
            return
        made = self.new_slug
        self.new_slug, self.new_name, self.create_error = "", "", ""
        await self._reload(actor)
        yield rx.toast.success(f"Created workspace {made}")

    @rx.event
    async def archive_workspace(self, slug: str):
        actor = await self._manager()
        if actor is None or not isinstance(slug, str):
            return
        try:
            await asyncio.to_thread(workspaces.archive_workspace, actor, slug)
        except DomainError as exc:
            self.create_error = str(exc)
            return
        await self._reload(actor)
        yield rx.toast.success(f"Archived workspace {slug}")

    @rx.event
    def start_rename(self, slug: str):
        row = next((w for w in self.all_workspaces if w.slug == slug), None)
        if row is not None:
            self.renaming, self.rename_name, self.create_error = row.slug, row.name, ""

    @rx.event
    def close_rename(self, opened: bool = False):
        if not opened:
            self.renaming = ""

    @rx.event
    def set_rename_name(self, value: str):
        self.rename_name = (value if isinstance(value, str) else "")[:100]

    @rx.event
    async def save_rename(self):
        actor = await self._manager()
        if actor is None or not self.renaming:
            return
        try:
            await asyncio.to_thread(workspaces.rename_workspace, actor, self.renaming, name=self.rename_name)
        except DomainError as exc:
            self.create_error = str(exc)
            return
        self.renaming = ""
        await self._reload(actor)
        await self._acting_actor()  # the switcher shows the new name
