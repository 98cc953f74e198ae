"""The MCP gateway bench's upstream server (not a benchmark itself): FastMCP over streamable HTTP on
the port given, with `echo` (answers at once; the bench's ungated tool) and `deploy` (gated there).

    python bench/_mcp_upstream.py PORT"""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP


def main(port: int) -> None:
    server = FastMCP("bench-upstream", host="127.0.0.1", port=port, log_level="WARNING")

    @server.tool()
    def echo(text: str) -> str:
        """Answers with its argument."""
        return text

    @server.tool()
    def deploy(service: str, version: str) -> str:
        """Deploys (the bench never approves one)."""
        return f"deployed {service} {version}"

    server.run("streamable-http")


if __name__ == "__main__":
    main(int(sys.argv[1]))
