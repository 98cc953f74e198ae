"""Standing rules' evidence and self-pausing, read where people's decisions and tool results are
recorded (in those transactions):

- observe_human_decision: a person decided a tool call (or a sign-off whose gate the team lets rules
  take: services/rules/gate_scope.py) a live rule matches: in shadow this is the
  evidence (an agreement or a disagreement); an active rule that a person contradicted (denied,
  revised or edited a call it would have approved) pauses itself.
- call_failed: a call a rule approved failed when it ran: the rule pauses itself."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session, col

from hitl_dashboard.db.models import Conversation, Decision, ReviewRequest, ToolCall
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.rule_models import RuleObservation, StandingRule
from hitl_dashboard.domain.enums import Action, ReviewKind, SubjectType
from hitl_dashboard.domain.standing_rules import LIVE_STATES, RuleEffect, RuleState, agrees
from hitl_dashboard.services.rules.changes import pause_itself
from hitl_dashboard.services.rules.gate_scope import matching_gate_rules
from hitl_dashboard.services.rules.scope import matching_rules

_RULES = table_of(StandingRule)


def observe_human_decision(session: Session, conversation: Conversation, request: ReviewRequest, action: str,
                           edited: dict | None, *, content_edited: bool = False) -> None:
    """A person decided a tool-call request (or a sign-off: content_edited, approved with their own
    changes): the live rules it matches record it beside what they would have done; an active rule
    the person contradicted pauses itself."""
    if request.kind == ReviewKind.SIGNOFF:
        if action != Action.SKIP:  # a skip decides nothing: not evidence
            for row in matching_gate_rules(session, conversation, request, tuple(s.value for s in LIVE_STATES)):
                _observe(session, conversation, request, row, action, content_edited, None,
                         f"sign-off request #{request.id}")
        return
    if request.kind != ReviewKind.TOOL_CALL or request.subject_type != SubjectType.TOOL_CALL:
        return
    call = session.get(ToolCall, request.subject_id)
    if call is None:
        return
    rows = matching_rules(session, conversation.workspace_id, conversation.template, call.tool_name,
                          call.arguments, tuple(s.value for s in LIVE_STATES))
    for row in rows:
        _observe(session, conversation, request, row, action, edited is not None, call.id, f"call #{call.id}")


def _observe(session: Session, conversation: Conversation, request: ReviewRequest, row: Any, action: str,
             edited: bool, tool_call_id: int | None, what: str) -> None:
    agreed = agrees(row.effect, action, edited)
    session.add(RuleObservation(rule_id=row.id, rule_version=row.version, workspace_id=conversation.workspace_id,
                                conversation_id=conversation.id, review_request_id=request.id,
                                tool_call_id=tool_call_id, mode=row.state, would=row.effect, human_action=action,
                                human_edited=edited, agreed=agreed))
    counter = _RULES.c.agreements if agreed else _RULES.c.disagreements
    session.connection().execute(update(_RULES).where(_RULES.c.id == row.id).values({counter: counter + 1}))
    if not agreed and row.state == RuleState.ACTIVE:
        how = "edited" if action == Action.APPROVE else "denied or revised"
        pause_itself(session, row.id, f"a person {how} {what}, which it would have "
                                      f"{'approved' if row.effect == RuleEffect.APPROVE else 'denied'}",
                     review_request_id=request.id)


def call_failed(session: Session, call_id: int, error: str) -> None:
    """A call failed when it ran: the rule that approved it, if one did, pauses itself."""
    found = session.connection().execute(
        select(col(Decision.rule_id)).select_from(table_of(Decision))
        .join(table_of(ReviewRequest), col(ReviewRequest.id) == col(Decision.review_request_id))
        .where(col(ReviewRequest.subject_type) == SubjectType.TOOL_CALL, col(ReviewRequest.subject_id) == call_id,
               col(Decision.rule_id).is_not(None))).first()
    if found is not None and found[0] is not None:
        pause_itself(session, found[0], f"call #{call_id}, which it approved, failed: {error[:500]}",
                     tool_call_id=call_id)
