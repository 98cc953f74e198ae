"""The transcript note of a decision: what was decided, by whom, exactly (a step of
services/reviews/decide.py, in its transaction)."""

from __future__ import annotations

import json

from sqlmodel import Session

from hitl_dashboard.db.models import Conversation, Message, ReviewRequest, ToolCall, utcnow
from hitl_dashboard.db.rows import get_existing, insert_row
from hitl_dashboard.domain.decisions import DecisionInput, render_line_comments
from hitl_dashboard.domain.edits import edits_message
from hitl_dashboard.domain.enums import Action, MessageKind, ReviewKind
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.reviews.edits import PlannedEdit
from hitl_dashboard.services.reviews.tool_decisions import describe_call


def transcript_note(session: Session, conversation: Conversation, actor: Actor, request: ReviewRequest,
                    decision: DecisionInput, is_override: bool, edited: dict | None,
                    planned: PlannedEdit | None) -> int:
    """What was decided, exactly: an override says so and why; a tool call shows the arguments
    that will run next to the ones the agent proposed; an approval with the reviewer's changes
    shows them as diffs (untold_edits reads them back for the agents). Returns the note's id: a Core
    INSERT, as for the decision row (no ORM flush on the decision's path)."""
    who = (f"{actor.username} (admin override of the {request.required_role} review: {decision.override_reason})"
           if is_override else f"{actor.username} ({request.required_role})")
    text = f"{decision.action.upper()} by {who}"
    detail = decision.instructions or decision.reason
    if detail:
        text += f": {detail}"
    if request.kind == ReviewKind.TOOL_CALL:
        call = get_existing(session, ToolCall, request.subject_id)
        if decision.action == Action.APPROVE:
            text += f"\nApproved to run: {describe_call(call.tool_name, call.arguments, edited)}"
        elif decision.action != Action.ABORT:
            text += f"\nDenied: {call.tool_name}({json.dumps(call.arguments, sort_keys=True)}) will not run"
    if decision.line_comments:
        text += "\n" + render_line_comments(decision.line_comments)
    if planned:
        text += "\n" + edits_message(actor.username, request.required_role, list(planned.changes))
    note_id = insert_row(session, Message, dict(
        conversation_id=conversation.id, workspace_id=conversation.workspace_id, seq=conversation.next_seq,
        source=actor.username, kind=MessageKind.DECISION, content=text, prompt_tokens=0, completion_tokens=0,
        created_at=utcnow(), model=None, author_id=None))
    conversation.next_seq += 1
    return note_id
