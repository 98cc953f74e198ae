"""The approval wrapper that keeps agents from running risky tools early.

An agent only ever holds a wrapper. With approval `always` (or `when` the team's rule matches the
arguments) calling it records intent and returns a "pending approval" result; the platform runs
the real function after a human approved, exactly once, with the approved (possibly edited)
arguments (services/tool_execution). With approval `never` (or `when` the rule does not match)
the function runs at once, in the agent's turn."""

from __future__ import annotations

from autogen_core import CancellationToken
from autogen_core.tools import BaseTool
from pydantic import BaseModel

from hitl_dashboard.agents.tools import ToolSpec, team_tool
from hitl_dashboard.teams.model import TeamDefinition

PENDING_MARKER = "PENDING_APPROVAL"

__all__ = ["ApprovalRequiredTool", "PENDING_MARKER", "agent_tool"]


# BaseTool bounds the result type to BaseModel, yet passes a str result through as it is
# (return_value_as_string): the agent reads this tool's str results as the real tool's.
class ApprovalRequiredTool(BaseTool[BaseModel, str]):  # type: ignore[type-var]
    """Same name and schema as the real tool; runs it only when the approval mode lets it."""

    def __init__(self, spec: ToolSpec):
        approval = spec.definition.approval
        note = {"always": " Requires human approval.", "when": " May require human approval."}.get(approval, "")
        super().__init__(spec.args_model, str, spec.name, spec.description + note)
        self._spec = spec

    async def run(self, args: BaseModel, cancellation_token: CancellationToken) -> str:
        if self._spec.definition.needs_approval(args.model_dump()):
            return f"{PENDING_MARKER}: {self.name} is waiting for human approval and has not run."
        return await self._spec.run(args)


def agent_tool(team: TeamDefinition, name: str) -> ApprovalRequiredTool:
    return ApprovalRequiredTool(team_tool(team, name))
