"""What a team written by a web admin may make the server run (issue 45). A stdio MCP server is a
command run as the server's user; env_from and headers_env hand it (or a URL) the server's
variables. A web admin (the instance's or a workspace's) must not own the server by saving a team,
so a team saved through the API or the browser editor may name only the command lines and
variables the operator lists (MCP_STDIO_COMMANDS, MCP_ALLOWED_ENV: settings_mcp.py).

The MCP part of the policy on teams saved from the web (web_policy.py, which applies it with the
rest: tool functions, model keys): team files on disk and `teams import` are the operator's."""

from __future__ import annotations

import shlex

from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.model import McpServerDef, TeamDefinition


def allowed_lines() -> dict[str, list[str]]:
    """{name: command line}: what the editor offers."""
    return get_settings().stdio_commands()


def allowed_servers() -> dict[str, str]:
    """{name: command line, as shell words}."""
    return {name: shlex.join(line) for name, line in allowed_lines().items()}


def allowed_variables() -> list[str]:
    return sorted(get_settings().allowed_env())


def mcp_problems(team: TeamDefinition) -> list[str]:
    """One 'field: what is wrong' line per refused command line or variable of the team's MCP tools."""
    problems: list[str] = []
    for name, tool in team.tools.items():
        if tool.mcp is not None:
            problems += _server_problems(f"tools.{name}.mcp", tool.mcp)
    for name, server in (team.gateway.servers.items() if team.gateway else ()):
        problems += _server_problems(f"gateway.servers.{name}", server)  # the MCP gateway's upstreams
    return problems


def _server_problems(where: str, server: McpServerDef) -> list[str]:
    problems: list[str] = []
    if server.transport == "stdio":
        assert server.command is not None
        line = [server.command, *server.args]
        allowed = get_settings().stdio_commands()
        if line not in allowed.values():
            problems.append(f"{where}.command: the stdio command `{shlex.join(line)}` is not one the operator "
                            f"allows a team saved from the web to run; {_allowed_commands(allowed)}")
    variables = get_settings().allowed_env()
    for field, mapping in (("env_from", server.env_from), ("headers_env", server.headers_env)):
        refused = sorted(set(mapping.values()) - variables)
        if refused:
            problems.append(f"{where}.{field}: a team saved from the web may not pass the server's variable(s) "
                            f"{', '.join(refused)}; {_allowed_variables(variables)}")
    return problems


def _allowed_commands(allowed: dict[str, list[str]]) -> str:
    if not allowed:
        return ("none is allowed: the operator lists them in MCP_STDIO_COMMANDS (or a team file on disk, or "
                "`hitl_dashboard teams import`, may run any)")
    listed = "; ".join(f"{name}: `{shlex.join(line)}`" for name, line in allowed.items())
    return f"the allowed ones (MCP_STDIO_COMMANDS) are {listed}"


def _allowed_variables(variables: frozenset[str]) -> str:
    if not variables:
        return "none is allowed: the operator lists them in MCP_ALLOWED_ENV"
    return f"the allowed ones (MCP_ALLOWED_ENV) are {', '.join(sorted(variables))}"
