"""The stdio MCP servers a team saved from the browser may run (issue 45): listed in the editor, and
offered in a stdio tool's fields (ui/states/allowed_mcp.py)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.team_fields import field, select
from hitl_dashboard.ui.states.allowed_mcp import AllowedMcpState as Allowed
from hitl_dashboard.ui.states.allowed_mcp import AllowedServer


def _server(server: RowVar[AllowedServer]) -> rx.Component:
    # A command is one long path where the checkout lies deep (CI's did): it wraps anywhere on a phone.
    return rx.hstack(rx.badge(server.name, variant="soft"),
                     rx.code(server.command, size="1", overflow_wrap="anywhere", min_width="0"),
                     spacing="2", align="center", wrap="wrap", class_name="allowed-mcp-server",
                     data_server=server.name)


def allowed_servers() -> rx.Component:
    return rx.callout(rx.vstack(
        rx.text("Stdio MCP servers a team saved here may run, as the operator allows them (MCP_STDIO_COMMANDS):",
                weight="bold"),
        rx.cond(Allowed.servers.length() > 0, rx.foreach(Allowed.servers, _server),
                rx.text("none: a team saved here may declare no stdio MCP server (team files on disk and "
                        "`hitl_dashboard teams import` are the operator's, and may).")),
        rx.text("Variables a team saved here may pass on (MCP_ALLOWED_ENV): ", Allowed.variables_text, size="1"),
        spacing="1"), icon="server", color_scheme="gray", size="1", id="allowed-mcp-servers", width="100%")


def server_picker(index: rx.Var[int]) -> rx.Component:
    """In a stdio tool's fields: picking an allowed server fills the command and the arguments."""
    return rx.cond(Allowed.servers.length() > 0, field(
        "Allowed server", select(Allowed.server_names, rx.Var.create(""), lambda name: Allowed.use(index, name),
                                 "tool-allowed-server-" + index.to_string(), "Allowed server",
                                 none="pick one to fill the command"),
        "tools." + index.to_string() + ".allowed_server"))
