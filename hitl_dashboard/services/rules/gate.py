"""Where standing rules decide tool calls (issue 42; sign-offs a team allows: sign_off_gate.py): right
after tool-call requests are opened (the runner's
turn, an external request), in that transaction, an active rule whose conditions hold decides the
request through services/reviews/rule_decisions.py (the decide path's steps, the rule as the
decider); a deny rule wins over an approve rule. The rule's state is read in this transaction
(locked on PostgreSQL), so a pause or a revocation holds for the next call on every worker. Past its
daily cap a rule pauses itself and the call waits for a person. Evidence and self-pausing on
people's decisions and failed calls: services/rules/evidence.py."""

from __future__ import annotations

from datetime import UTC, datetime, time

from sqlalchemy import func, select
from sqlmodel import Session, col

from hitl_dashboard.db.models import Conversation, ReviewRequest, ToolCall, User, utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.rule_models import RuleObservation, StandingRule
from hitl_dashboard.domain.enums import ReviewKind
from hitl_dashboard.domain.standing_rules import LIVE_STATES, RuleState
from hitl_dashboard.services.reviews.rule_decisions import RuleDecider, record_rule_decision
from hitl_dashboard.services.rules import conditions as rule_conditions
from hitl_dashboard.services.rules.changes import change_state
from hitl_dashboard.services.rules.scope import matching_rules


def decide_by_rules(session: Session, conversation: Conversation, requests: list[ReviewRequest]) -> int:
    """How many of the requests (opened in this transaction) an active rule decided."""
    decided = 0
    for request in requests:
        if request.kind != ReviewKind.TOOL_CALL:
            continue  # content sign-offs bound to a hash stay with people
        call = session.get(ToolCall, request.subject_id)
        if call is None:
            continue
        for row in matching_rules(session, conversation.workspace_id, conversation.template, call.tool_name,
                                  call.arguments, (RuleState.ACTIVE.value,)):
            if decide_with(session, conversation, request, row.id, call.id):
                decided += 1
                break
    return decided


def decide_with(session: Session, conversation: Conversation, request: ReviewRequest, rule_id: int,
                tool_call_id: int | None) -> bool:
    """The rule decides the request if it is still active and under its daily cap (a tool call, or
    a sign-off: tool_call_id None); whether it did."""
    rule = session.get(StandingRule, rule_id, with_for_update=True, populate_existing=True)
    if rule is None or rule.state != RuleState.ACTIVE:
        return False  # paused or revoked a moment ago, on another worker: its state now holds
    if rule.daily_cap is not None and _decided_today(session, rule.id) >= rule.daily_cap:
        change_state(session, rule, RuleState.PAUSED, actor=f"rule:{rule.id}", paused_by="itself",
                     why=f"it reached its daily cap of {rule.daily_cap} decisions")
        return False
    owner = session.get(User, rule.owner_id)
    promoter = session.get(User, rule.promoted_by_id) if rule.promoted_by_id else None
    decider = RuleDecider(rule.id, rule.version, rule.effect, owner.username if owner else "?",
                          promoter.username if promoter else None, rule.reason,
                          rule_conditions.describe(rule.conditions))
    record_rule_decision(session, conversation, request, decider)
    session.add(RuleObservation(rule_id=rule.id, rule_version=rule.version, workspace_id=rule.workspace_id,
                                conversation_id=conversation.id, review_request_id=request.id,
                                tool_call_id=tool_call_id, mode=RuleState.ACTIVE.value, would=rule.effect))
    rule.decided += 1
    session.add(rule)
    return True


def _decided_today(session: Session, rule_id: int) -> int:
    midnight = datetime.combine(utcnow().date(), time(0), tzinfo=UTC)
    return session.connection().execute(
        select(func.count()).select_from(table_of(RuleObservation)).where(
            col(RuleObservation.rule_id) == rule_id, col(RuleObservation.mode) == RuleState.ACTIVE.value,
            col(RuleObservation.created_at) >= midnight)).scalar_one()


def expire_rules(session: Session, workspace_ids: frozenset[int] | None = None) -> int:
    """Live rules whose expiry passed become expired, each audited. Rules past expiry already decide
    nothing (matching_rules skips them); this records the state for lists and the audit trail."""
    query = select(StandingRule).where(col(StandingRule.state).in_([s.value for s in LIVE_STATES]),
                                       col(StandingRule.expires_at) <= utcnow())
    if workspace_ids is not None:
        query = query.where(col(StandingRule.workspace_id).in_(workspace_ids))
    due = list(session.scalars(query))
    for rule in due:
        change_state(session, rule, RuleState.EXPIRED, actor=f"rule:{rule.id}", why="its expiry passed")
    return len(due)
