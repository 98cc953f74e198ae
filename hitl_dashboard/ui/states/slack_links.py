"""The Slack users of the Webhooks page (workspace admins): which Slack user acts as which member of
the workspace the tab shows, when they click Approve or Deny in a Slack message. Until now only the
API and the CLI could link them. Through services/slack/links.py, which checks the workspace admin
role again; each handler resolves the signed-in admin on the server first, bound to the tab's
workspace, so a link made here is that workspace's and only its links are listed."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.slack import links
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.browser_input import row_id
from hitl_dashboard.ui.views.formatting import stamp

NOT_ADMIN = "Only the workspace's admins may link Slack users."
MAX_ID, MAX_NAME = 32, 64  # Slack ids are at most 32 characters (services/slack/links.py), usernames 64


@dataclass
class SlackLinkRow:
    link_id: int = 0
    slack_team_id: str = ""
    slack_user_id: str = ""
    username: str = ""
    created: str = ""


def link_rows(actor: Actor) -> list[SlackLinkRow]:
    return [SlackLinkRow(link.id, link.slack_team_id, link.slack_user_id, link.username, stamp(link.created_at))
            for link in links.list_links(actor)]


class SlackLinksState(AppState):
    links: rx.Field[list[SlackLinkRow]] = rx.field(default_factory=list)
    slack_team: str = ""
    slack_user: str = ""
    member: str = ""
    error: str = ""
    error_field: str = ""

    @rx.event
    async def load(self):
        self.error, self.error_field = "", ""
        actor = await self._signed_in_workspace_admin()
        self.links = await asyncio.to_thread(link_rows, actor) if actor is not None else []

    @rx.event
    def set_slack_team(self, value: str):
        self.slack_team = str(value).strip().upper()[:MAX_ID]

    @rx.event
    def set_slack_user(self, value: str):
        self.slack_user = str(value).strip().upper()[:MAX_ID]

    @rx.event
    def set_member(self, value: str):
        self.member = str(value).strip()[:MAX_NAME]

    @rx.event
    async def link(self, _form: dict):
        actor = await self._signed_in_workspace_admin()
        if actor is None:
            self.error, self.error_field = NOT_ADMIN, ""
            return
        try:
            made = await asyncio.to_thread(links.link_user, actor, slack_team_id=self.slack_team,
                                           slack_user_id=self.slack_user, username=self.member)
        except DomainError as exc:
            self.error = str(exc)
            self.error_field = (exc.field or "") if isinstance(exc, InvalidInput) else ""
            return
        self.slack_team, self.slack_user, self.member, self.error, self.error_field = "", "", "", "", ""
        self.links = await asyncio.to_thread(link_rows, actor)
        return rx.toast.success(f"Slack user {made.slack_user_id} now acts as {made.username} here")

    @rx.event
    async def unlink(self, link_id: int):
        actor = await self._signed_in_workspace_admin()
        wanted = row_id(link_id)
        if actor is None or wanted is None:
            self.error, self.error_field = (NOT_ADMIN if actor is None else "That is not a Slack link."), ""
            return
        try:
            await asyncio.to_thread(links.unlink_user, actor, wanted)
        except DomainError as exc:
            self.error, self.error_field = str(exc), ""
            return
        self.error, self.error_field = "", ""
        self.links = await asyncio.to_thread(link_rows, actor)
        return rx.toast.success(f"Slack link {wanted} removed: its clicks decide nothing more")
