"""Run the approved tool calls of a turn exactly once each, then hand the team every outcome.

A call is marked 'executing' and committed before it runs: if the runner dies mid-call the
next runner finds 'executing' and does not run it again (at most once), it reports it.
Every outcome is also written to the transcript, so reviewers see what really ran."""

from __future__ import annotations

from hitl_dashboard.agents.tools import execute_tool
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, Message, ToolCall, utcnow, without_checkpoint
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import MessageKind, ToolCallStatus
from hitl_dashboard.services.reviews.tool_decisions import describe_arguments
from hitl_dashboard.services.rules.evidence import call_failed
from hitl_dashboard.services.runner.identity import RUNNER_ACTOR, runner_details
from hitl_dashboard.services.teams.versions import pinned

SOURCE = "tool_runner"


def tool_call_ids(next_input: dict) -> list[int]:
    """The calls a 'tool_execution' input names (one id in inputs stored before batches existed)."""
    if "tool_call_ids" in next_input:
        return [int(i) for i in next_input["tool_call_ids"]]
    return [int(next_input["tool_call_id"])]


async def run_approved_tools(conversation_id: int, ids: list[int], runner_id: str) -> dict[str, str]:
    reports = [await _run_one(conversation_id, call_id, runner_id) for call_id in ids]
    message = {"source": SOURCE, "content": "\n".join(reports)}
    with UnitOfWork() as uow:
        conversation = get_existing(uow.session, Conversation, conversation_id, options=without_checkpoint())
        conversation.next_input = message
        uow.session.add(conversation)
        uow.commit()
    return message


async def _run_one(conversation_id: int, tool_call_id: int, runner_id: str) -> str:
    with UnitOfWork() as uow:
        call = get_existing(uow.session, ToolCall, tool_call_id)
        status, name, args = call.status, call.tool_name, dict(call.approved_arguments or {})
        team = pinned(get_existing(uow.session, Conversation, conversation_id, options=without_checkpoint()))
        if status == ToolCallStatus.APPROVED:
            call.status = ToolCallStatus.EXECUTING
            uow.session.add(call)
            uow.commit()
    if status == ToolCallStatus.APPROVED:
        try:
            result, status = await execute_tool(team, name, args), ToolCallStatus.EXECUTED
        except Exception as exc:  # noqa: BLE001 - a failing tool is reported to the agent, not fatal
            result, status = f"{name} failed: {exc}", ToolCallStatus.FAILED
    elif status == ToolCallStatus.EXECUTING:
        result, status = f"{name} was interrupted by a runner restart; it was not run again.", ToolCallStatus.FAILED
    else:
        result = None
    with UnitOfWork() as uow:
        call = get_existing(uow.session, ToolCall, tool_call_id)
        conversation = get_existing(uow.session, Conversation, conversation_id, options=without_checkpoint())
        if result is not None and call.status in (ToolCallStatus.EXECUTING, ToolCallStatus.APPROVED):
            call.status, call.result, call.executed_at = status, result, utcnow()
            uow.session.add(call)
            append_audit(uow.session, actor=RUNNER_ACTOR, action=f"tool.{status}", conversation_id=conversation_id,
                         content_hash=call.args_hash,
                         details={"tool": name, "arguments": args, "proposed_arguments": call.arguments,
                                  "result": result, **runner_details(runner_id)})
            _transcript(uow, conversation, f"{_verb(call.status)} {describe_arguments(call)}\nResult: {result}")
            if status == ToolCallStatus.FAILED:
                call_failed(uow.session, tool_call_id, result)  # a standing rule that approved it pauses itself
        report = _report(call)
        uow.commit()
    return report


def _verb(status: str) -> str:
    verbs: dict[str, str] = {ToolCallStatus.EXECUTED: "Ran", ToolCallStatus.FAILED: "Tried to run"}
    return verbs.get(status, "Did not run")


def _report(call: ToolCall) -> str:
    """The line the agent reads about one call."""
    if call.status == ToolCallStatus.DENIED:
        return f"DENIED tool call {describe_arguments(call)}: it was not run. {call.result or ''}".strip()
    if call.status == ToolCallStatus.EXECUTED:
        return f"APPROVED tool call {describe_arguments(call)} ran. Result: {call.result}"
    return f"APPROVED tool call {describe_arguments(call)} did not complete. Result: {call.result or call.status}"


def _transcript(uow: UnitOfWork, conversation: Conversation, content: str) -> None:
    uow.session.add(Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id,
                            seq=conversation.next_seq, source=SOURCE, kind=MessageKind.TOOL_RESULT, content=content))
    conversation.next_seq += 1
    uow.session.add(conversation)
