"""The stdio MCP servers the operator allows a team saved from the web to run (issue 45), offered in
the team editor: listed beside it, and picked in a tool's fields, which fills its command and
arguments. Its own small state; the tool rows belong to the editor's."""

from __future__ import annotations

import asyncio
import dataclasses
import shlex

import reflex as rx

from hitl_dashboard.services.teams import stdio_policy
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.team_edits import edited


@dataclasses.dataclass
class AllowedServer:
    name: str = ""
    command: str = ""  # the whole command line, as shell words


class AllowedMcpState(AppState):
    servers: rx.Field[list[AllowedServer]] = rx.field(default_factory=list)
    variables: rx.Field[list[str]] = rx.field(default_factory=list)

    @rx.var
    def server_names(self) -> list[str]:
        return [s.name for s in self.servers]

    @rx.var
    def variables_text(self) -> str:
        return ", ".join(self.variables) or "none"

    @rx.event
    async def load(self):
        if await self._signed_in_workspace_admin() is None:
            return
        servers = await asyncio.to_thread(stdio_policy.allowed_servers)
        self.servers = [AllowedServer(name, command) for name, command in servers.items()]
        self.variables = stdio_policy.allowed_variables()

    @rx.event
    async def use(self, index: int, name: str):
        """Tool row `index` runs the allowed server `name`: its command and arguments."""
        if await self._signed_in_workspace_admin() is None or not isinstance(name, str):
            return
        line = stdio_policy.allowed_lines().get(name)
        if line is None:
            return
        editor = await self.get_state(AdminTeamsState)
        rows = edited(editor.tools, "tools", index, "command", line[0])
        rows = edited(rows, "tools", index, "args", shlex.join(line[1:])) if rows is not None else None
        if rows is not None:
            editor.tools, editor.saved_message = rows, ""
