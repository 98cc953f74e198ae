"""The MCP gateway's use cases (issue 43, docs/mcp-gateway.md): which team's upstream servers a
caller reaches, whether a call waits for a person, the review it becomes, and what is recorded.
The MCP protocol itself is the adapter's (hitl_dashboard/gateway/); nothing here imports `mcp`."""
