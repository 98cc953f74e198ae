"""The MCP gateway's section of a team file (issue 43, docs/mcp-gateway.md): the upstream MCP
servers the gateway stands in front of, and per tool whether a call waits for a person.

In the team file, so it is versioned and audited as the team is (team.saved with what changed),
the approver role, SLAs and standing rules are the team's, and a web-saved team's stdio commands
obey the operator's list (services/teams/stdio_policy.py) as its MCP tools do."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from hitl_dashboard.teams.tool_model import ApprovalMode, ApprovalRule, McpServerDef, _Strict

ServerName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")]


class GatewayToolDef(_Strict):
    """One upstream tool's approval: `always`, `never`, or `when` the rule matches its arguments."""

    approval: ApprovalMode = "always"
    when: ApprovalRule | None = None

    @model_validator(mode="after")
    def _consistent(self) -> GatewayToolDef:
        if (self.approval == "when") != (self.when is not None):
            raise ValueError("approval 'when' needs a when rule, and a when rule needs approval 'when'")
        return self

    def needs_approval(self, arguments: dict[str, Any]) -> bool:
        if self.when is not None:
            return self.when.matches(arguments)
        return self.approval == "always"


class GatewayServerDef(McpServerDef):
    """An upstream server (stdio or streamable_http; sse too) and its tools' approvals, by the
    server's own tool names. A tool not listed follows default_approval: `always` (fail closed)."""

    approvals: dict[str, GatewayToolDef] = Field(default_factory=dict)
    default_approval: Literal["always", "never"] = "always"

    @model_validator(mode="after")
    def _no_single_tool(self) -> GatewayServerDef:
        if self.tool is not None:
            raise ValueError("a gateway server offers all its tools: name their approvals under approvals, not tool")
        return self

    def needs_approval(self, tool: str, arguments: dict[str, Any]) -> bool:
        found = self.approvals.get(tool)
        return self.default_approval == "always" if found is None else found.needs_approval(arguments)


class GatewayDef(_Strict):
    servers: dict[ServerName, GatewayServerDef] = Field(min_length=1)
