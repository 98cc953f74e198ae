"""A small MCP server over stdio for the tests (issue 10): one tool, `deploy`, which appends each
call to the file named by MCP_DEPLOY_LOG, so a test can count how often it really ran.
Run: python tests/support/mcp_deploy_server.py (the team file's mcp.command and args)."""

from __future__ import annotations

import json
import os
from typing import Literal

from mcp.server.fastmcp import FastMCP

server = FastMCP("test-deploys")


@server.tool()
def deploy(service: str, version: str, environment: Literal["staging", "production"] = "production") -> str:
    """Deploy a service version to an environment."""
    with open(os.environ["MCP_DEPLOY_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"service": service, "version": version, "environment": environment}) + "\n")
    return f"MCP deployed {service} {version} to {environment}"


if __name__ == "__main__":
    server.run("stdio")
