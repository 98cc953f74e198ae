"""A caller that runs the approved call itself (the MCP gateway) records that it is starting,
durably, before it runs anything: then a caller killed while the call runs, and asked again after a
restart, finds the call started and never runs it a second time (at most once). A call already
reported answers with what was reported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import utcnow
from hitl_dashboard.domain.enums import ToolCallStatus
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.external.follow import own_request
from hitl_dashboard.services.external_outcomes.outcomes import tool_call_of
from hitl_dashboard.services.transactions import transaction


@dataclass(frozen=True)
class Forwarding:
    run: bool  # True: this caller recorded the start and must run the call now, once
    arguments: dict[str, Any]  # what may run (the reviewer's edits included)
    reported: tuple[str, str] | None = None  # (ok | error, text) of a call reported before

    @property
    def interrupted(self) -> bool:
        """Started before and never reported: whether it ran is unknown, so it is not run again."""
        return not self.run and self.reported is None


def start_forwarding(actor: Actor, approval_id: int, *, by: str) -> Forwarding:
    with transaction() as uow:
        session = uow.session
        row, conversation = own_request(session, actor, approval_id, lock=True)
        call = tool_call_of(session, conversation.id)
        if call is None or call.status not in (ToolCallStatus.APPROVED, ToolCallStatus.EXECUTING,
                                                ToolCallStatus.EXECUTED, ToolCallStatus.FAILED):
            raise Conflict(f"approval {approval_id} is not approved: nothing may run")
        arguments = call.approved_arguments if call.approved_arguments is not None else call.arguments
        if row.reported_at is not None:
            return Forwarding(False, arguments, (row.result_status or "error", row.result or ""))
        if call.status != ToolCallStatus.APPROVED:
            return Forwarding(False, arguments)
        call.status, call.executed_at = ToolCallStatus.EXECUTING, utcnow()
        session.add(call)
        append_audit(session, actor=actor.username, action="tool.forwarding", conversation_id=conversation.id,
                     content_hash=call.args_hash,
                     details={"tool": call.tool_name, "arguments": arguments, "by": by, "approval_id": approval_id})
        return Forwarding(True, arguments)
