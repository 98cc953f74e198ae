"""Run an approved tool call exactly once, then hand the team the result as its next input.

The call is marked 'executing' and committed before it runs: if the runner dies mid-call
the next runner finds 'executing' and does not run it again (at most once), it reports it."""

from __future__ import annotations

import json

from hitl_dashboard.agents.tool_specs import execute_tool
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, ToolCall, utcnow, without_checkpoint
from hitl_dashboard.db.uow import UnitOfWork


async def run_approved_tool(conversation_id: int, tool_call_id: int, runner_id: str) -> dict[str, str]:
    with UnitOfWork() as uow:
        call = uow.session.get(ToolCall, tool_call_id)
        status, name, args = call.status, call.tool_name, dict(call.approved_arguments or {})
        if status == "approved":
            call.status = "executing"
            uow.session.add(call)
            uow.commit()
    if status == "approved":
        try:
            result, status = await execute_tool(name, args), "executed"
        except Exception as exc:  # noqa: BLE001 - a failing tool is reported to the agent, not fatal
            result, status = f"{name} failed: {exc}", "failed"
    elif status == "executing":
        result, status = f"{name} was interrupted by a runner restart; it was not run again.", "failed"
    else:
        result = call_result_or(name, status)
    with UnitOfWork() as uow:
        call = uow.session.get(ToolCall, tool_call_id)
        if call.status in ("executing", "approved"):
            call.status, call.result, call.executed_at = status, result, utcnow()
            uow.session.add(call)
            append_audit(uow.session, actor=runner_id[:64], action=f"tool.{status}", conversation_id=conversation_id,
                         content_hash=call.args_hash, details={"tool": name, "arguments": args, "result": result})
        else:
            result = call.result or result
        message = {
            "source": "tool_runner",
            "content": f"APPROVED tool call {name}({json.dumps(args, sort_keys=True)}) ran. Result: {result}",
        }
        conversation = uow.session.get(Conversation, conversation_id, options=without_checkpoint())
        conversation.next_input = message
        uow.session.add(conversation)
        uow.commit()
    return message


def call_result_or(name: str, status: str) -> str:
    return f"{name} is {status}."
