"""A small MCP server over stdio for the tests (issue 10): one tool, `deploy`, which appends each
call to the file named by `--log PATH` or else by MCP_DEPLOY_LOG, so a test can count how often it
really ran. Run: python tests/support/mcp_deploy_server.py [--log PATH] (the team file's mcp.command
and args; `--log` serves an app whose environment the test does not set, as the shared e2e app's)."""

from __future__ import annotations

import json
import os
import sys
from typing import Literal

from mcp.server.fastmcp import FastMCP

server = FastMCP("test-deploys")


@server.tool()
def deploy(service: str, version: str, environment: Literal["staging", "production"] = "production") -> str:
    """Deploy a service version to an environment."""
    with open(_log_path(), "a", encoding="utf-8") as log:
        log.write(json.dumps({"service": service, "version": version, "environment": environment}) + "\n")
    return f"MCP deployed {service} {version} to {environment}"


def _log_path() -> str:
    if "--log" in sys.argv[1:-1]:
        return sys.argv[sys.argv.index("--log") + 1]
    return os.environ["MCP_DEPLOY_LOG"]


if __name__ == "__main__":
    server.run("stdio")
