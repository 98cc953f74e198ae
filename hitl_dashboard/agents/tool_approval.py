"""The approval wrapper that keeps agents from running risky tools early.

An agent only ever holds the wrapper: calling it records intent and returns a
"pending approval" result. The platform runs the real function after a human approved,
exactly once, with the approved (possibly edited) arguments (services/tool_execution)."""

from __future__ import annotations

from autogen_core import CancellationToken
from autogen_core.tools import BaseTool
from pydantic import BaseModel

from hitl_dashboard.agents.tools import TOOLS, ToolSpec

PENDING_MARKER = "PENDING_APPROVAL"

__all__ = ["TOOLS", "ApprovalRequiredTool", "PENDING_MARKER"]


class ApprovalRequiredTool(BaseTool[BaseModel, str]):
    """Same name and schema as the real tool; never runs it."""

    def __init__(self, spec: ToolSpec):
        super().__init__(spec.args_model, str, spec.name, spec.description + " Requires human approval.")

    async def run(self, args: BaseModel, cancellation_token: CancellationToken) -> str:
        return f"{PENDING_MARKER}: {self.name} is waiting for human approval and has not run."
