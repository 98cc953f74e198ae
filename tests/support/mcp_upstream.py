"""An upstream MCP server of the gateway tests' own (issue 43): `deploy` (gated in the test team) and
`status` (not gated), each appending the arguments it received to the file MCP_UPSTREAM_LOG names
(or `--log PATH`), so a test counts how often, and with what, it really ran.

Run over stdio: python tests/support/mcp_upstream.py [--log PATH]; over streamable HTTP in a test's
thread: `serving_http(log)` (uvicorn on a free port of 127.0.0.1)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from mcp.server.fastmcp import FastMCP


def build(log: str | None = None) -> FastMCP:
    server = FastMCP("test-upstream")

    def record(tool: str, arguments: dict) -> None:
        with open(log or _log_path(), "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, **arguments}) + "\n")

    @server.tool()
    def deploy(service: str, version: str, replicas: int = 1) -> str:
        """Deploy a service version."""
        record("deploy", {"service": service, "version": version, "replicas": replicas})
        return f"deployed {service} {version} x{replicas}"

    @server.tool()
    def status(service: str) -> str:
        """A service's status."""
        record("status", {"service": service})
        return f"{service}: green"

    return server


def ran(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@contextlib.contextmanager
def serving_http(log: Path) -> Iterator[str]:
    """The upstream over streamable HTTP on a free port; its URL."""
    from tests.support.served_asgi import serving_asgi

    with serving_asgi(build(str(log)).streamable_http_app()) as base_url:
        yield f"{base_url}/mcp"


def _log_path() -> str:
    if "--log" in sys.argv[1:-1]:
        return sys.argv[sys.argv.index("--log") + 1]
    return os.environ["MCP_UPSTREAM_LOG"]


if __name__ == "__main__":
    build().run("stdio")
