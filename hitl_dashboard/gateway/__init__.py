"""The MCP gateway's protocol adapter (issue 43, docs/mcp-gateway.md), on the official `mcp` package:
an MCP server (streamable HTTP at /mcp/<team>, and stdio: `python -m hitl_dashboard mcp serve`) in
front of the upstream MCP servers a team file declares. What a call means (approval, the review,
at most once, the records) is services/mcp_gateway's; this package speaks MCP, as api/ speaks HTTP."""
