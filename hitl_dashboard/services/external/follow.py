"""The caller follows its own request: reads the outcome (at once, or by a bounded long poll that
any later call resumes, since the outcome lives in the database), and reports what it ran.

Only the caller that asked (the token's user) sees its request: anyone else gets the same "does
not exist" as for an unknown id, so ids cannot be probed."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio
import anyio.to_thread

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import Conversation, Message, utcnow
from hitl_dashboard.domain.enums import MessageKind, ToolCallStatus
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.external import APPROVED, MAX_RESULT
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.external.views import ApprovalView, approval_view
from hitl_dashboard.services.external_outcomes.outcomes import outcome, tool_call_of
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.tool_decisions import describe_arguments
from hitl_dashboard.services.rules.evidence import call_failed
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.settings import get_settings

# A waiting caller costs one small read per pause (a decision made in any process is seen): the pauses
# grow from the first to the longest, so a quick decision is seen at once and a long wait stays cheap.
FIRST_PAUSE_S, LONGEST_PAUSE_S = 0.25, 2.0


def own_request(session, actor: Actor, approval_id: int, *,
                lock: bool = False) -> tuple[ExternalRequest, Conversation]:
    row = session.get(ExternalRequest, approval_id)
    if row is None or row.caller_id != actor.user_id:
        raise NotFound(f"approval {approval_id} does not exist")
    conversation = session.get(Conversation, row.conversation_id, with_for_update=lock)
    assert conversation is not None
    return row, conversation


def get_approval(actor: Actor, approval_id: int) -> ApprovalView:
    with reading() as uow:
        row, conversation = own_request(uow.session, actor, approval_id)
        return approval_view(uow.session, row, conversation)


async def wait_for_outcome(actor: Actor, approval_id: int, wait_s: float,
                           on_pending: Callable[[ApprovalView], Awaitable[None]] | None = None,
                           limiter: anyio.CapacityLimiter | None = None) -> ApprovalView:
    """The view as soon as it is decided, or once `wait_s` (at most EXTERNAL_MAX_WAIT_S) has passed
    with it still pending. Holds no thread and no connection between its reads. on_pending: called
    after each read that found it still pending (the MCP gateway's progress notifications); limiter:
    the threads its reads run on (default: anyio's)."""
    deadline = time.monotonic() + min(max(wait_s, 0.0), get_settings().external_max_wait_s)
    pause = FIRST_PAUSE_S
    while True:
        view = await anyio.to_thread.run_sync(get_approval, actor, approval_id, limiter=limiter)
        left = deadline - time.monotonic()
        if view.outcome.decided or left <= 0:
            return view
        if on_pending is not None:
            await on_pending(view)
        await anyio.sleep(min(pause, left))
        pause = min(pause * 1.5, LONGEST_PAUSE_S)


def report_result(actor: Actor, approval_id: int, *, ok: bool, text: str) -> ApprovalView:
    """What ran, once: the same report again answers as the first; a different one is a conflict.
    Shown in the transcript and the audit trail as the runner's own tool results are."""
    if len(text) > MAX_RESULT:
        raise InvalidInput(f"the result is longer than {MAX_RESULT} characters", "result")
    status = "ok" if ok else "error"
    with transaction() as uow:
        session = uow.session
        row, conversation = own_request(session, actor, approval_id, lock=True)
        if row.reported_at is not None:
            if (row.result_status, row.result) != (status, text):
                raise Conflict(f"approval {approval_id} already has a different report; a result is reported once")
            return approval_view(session, row, conversation)
        if outcome(session, row, conversation).status != APPROVED:
            raise Conflict(f"approval {approval_id} is not approved: nothing may have run")
        row.result_status, row.result, row.reported_at = status, text, utcnow()
        session.add(row)
        call = tool_call_of(session, conversation.id)
        if call is not None:
            call.status = ToolCallStatus.EXECUTED if ok else ToolCallStatus.FAILED
            call.result, call.executed_at = text, utcnow()
            session.add(call)
            if not ok:
                call_failed(session, call.id, text)  # a standing rule that approved it pauses itself
            append_audit(session, actor=actor.username, action=f"tool.{call.status}", conversation_id=conversation.id,
                         content_hash=call.args_hash,
                         details={"tool": call.tool_name, "arguments": call.approved_arguments,
                                  "proposed_arguments": call.arguments, "result": text, "reported_by": actor.username,
                                  "origin": "external"})
            what = f"{'Ran' if ok else 'Tried to run'} {describe_arguments(call)}"
        else:
            append_audit(session, actor=actor.username, action="external.reported", conversation_id=conversation.id,
                         details={"status": status, "result": text})
            what = "The caller reports " + ("it was used" if ok else "an error")
        session.add(Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id,
                            seq=conversation.next_seq, source=actor.username,
                            kind=MessageKind.TOOL_RESULT,
                            content=f"{what} (reported by {actor.username})\nResult: {cut_visibly(text, MAX_RESULT)}"))
        conversation.next_seq += 1
        conversation.updated_at = utcnow()
        session.add(conversation)
        view = approval_view(session, row, conversation)
    live.publish_turn(conversation.id)
    return view
