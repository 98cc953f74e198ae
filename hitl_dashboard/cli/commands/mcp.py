"""`mcp serve`: the MCP gateway over stdio (docs/mcp-gateway.md), for MCP clients that start local
servers. Its stdout is the protocol: nothing else is printed there."""

from __future__ import annotations

import os
from typing import Any

from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.domain.errors import ConfigurationError


def register(sub: Any) -> None:
    mcp = group(sub, "mcp", "the MCP gateway")
    p = leaf(mcp, "serve", "serve a team's gateway over stdio (HITL_TOKEN: an approvals-scope token)",
             handler="mcp serve")
    p.add_argument("--team", required=True, help="the team whose gateway section names the upstream servers")
    p.add_argument("--workspace", help="the team's workspace (its slug), when the token's user is in several")


@command("mcp serve")
def _serve(args) -> int:
    from hitl_dashboard.gateway.stdio import serve_stdio  # the mcp package: only this command needs it

    token = os.environ.get("HITL_TOKEN", "").strip()
    if not token:
        raise ConfigurationError(["HITL_TOKEN is not set: give the gateway an approvals-scope token "
                                  "(python -m hitl_dashboard tokens create <user> --name <agent> --scope approvals)"])
    serve_stdio(token, args.team, args.workspace)
    return 0
