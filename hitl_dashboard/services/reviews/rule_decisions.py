"""A standing rule's decision of a tool-call request, or of a content sign-off whose gate the team
file allows (issue 42): the decide path's own steps (services/reviews/decide.py: close the request,
the decision row bound to the request's content hash, the audit event, the transcript note, the
webhook, then the tool call's decision and, for an external request, its outcome; or the sign-off
chain's next step), with the rule as the decider: no person, no queue. Called in the transaction
that opened the request, so the request is never seen open by anyone; that transaction holds the
conversation (the runner's lease and lock, or the new external conversation)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, Decision, Message, ReviewRequest, ToolCall, WebhookDelivery, utcnow
from hitl_dashboard.db.rows import get_existing, insert_row
from hitl_dashboard.domain.enums import Action, MessageKind, ReviewKind, ReviewStatus
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.standing_rules import DECIDABLE_KINDS, RuleEffect, rule_actor_name
from hitl_dashboard.services.external_outcomes.outcomes import end_status, is_external
from hitl_dashboard.services.reviews.decide import CLOSE_REQUEST, advance_sign_off, set_conversation_status
from hitl_dashboard.services.reviews.review_requests import Subject, touch_queue
from hitl_dashboard.services.reviews.tool_decisions import describe_call, record_tool_decision
from hitl_dashboard.services.rules.allowance import check_rule_may_sign_off
from hitl_dashboard.services.webhooks import webhooks


@dataclass(frozen=True)
class RuleDecider:
    rule_id: int
    rule_version: int
    effect: str  # approve | deny
    made_by: str  # the rule's owner's username
    promoted_by: str | None
    reason: str | None  # a deny rule's reason, read by the agent
    conditions: str  # as a reader writes them

    @property
    def name(self) -> str:
        return rule_actor_name(self.rule_id)


def record_rule_decision(session, conversation: Conversation, request: ReviewRequest, rule: RuleDecider) -> int:
    """The decision's id. A tool-call request, or a sign-off the team's current version lets rules
    take (TaskTypeDef.rules_may_sign_off), which a rule only approves; anything else is refused."""
    if request.kind not in DECIDABLE_KINDS:
        raise Conflict(f"a standing rule decides tool-call approvals and allowed sign-offs only, not a "
                       f"{request.kind} review")
    if request.kind == ReviewKind.SIGNOFF:
        check_rule_may_sign_off(session, conversation, request.required_role, rule.effect)
    action = Action.APPROVE if rule.effect == RuleEffect.APPROVE else Action.REVISE  # a tool call's denial
    closed = {"status": ReviewStatus.DECIDED, "version": request.version + 1, "assignee_id": None,
              "closed_at": utcnow()}
    result = session.connection().execute(CLOSE_REQUEST,
                                          {**closed, "request_id": request.id, "seen_version": request.version})
    if result.rowcount != 1:
        raise Conflict(f"review request {request.id} was closed before rule {rule.rule_id} could decide it")
    for name, value in closed.items():
        set_committed_value(request, name, value)
    reason = rule.reason if action != Action.APPROVE else None
    row = dict(
        review_request_id=request.id, conversation_id=conversation.id, action=action, reason=reason,
        instructions=None, target_agent=None, edited_args=None, line_comments=None, reviewer_id=None,
        rule_id=rule.rule_id, rule_version=rule.rule_version, role=request.required_role, is_override=False,
        override_reason=None, content_hash=request.content_hash, idempotency_key=None, request_fingerprint=None,
        created_at=utcnow(),
    )
    decision_id = insert_row(session, Decision, row)
    append_audit(
        session, actor=rule.name, actor_role=request.required_role, action="decision.recorded",
        conversation_id=conversation.id, review_request_id=request.id, content_hash=request.content_hash,
        details={"action": action, "reason": reason, "decision_id": decision_id, "decided_by": "rule",
                 "rule_id": rule.rule_id, "rule_version": rule.rule_version, "rule_made_by": rule.made_by,
                 "rule_promoted_by": rule.promoted_by, "conditions": rule.conditions},
    )
    _note(session, conversation, request, rule, action)
    # Nobody was asked: the request's review.requested deliveries (queued when it opened, in this
    # transaction) are dropped; receivers hear only that the rule decided it.
    session.execute(delete(WebhookDelivery).where(col(WebhookDelivery.event_id) == f"review.requested:{request.id}"))
    webhooks.review_decided(session, decision_id, row, request, conversation, rule.name)
    actor = Actor(user_id=0, username=rule.name, roles=frozenset(), workspace_id=conversation.workspace_id)
    if request.kind == ReviewKind.SIGNOFF:  # the next role's step opens (and waits for a person, unless allowed)
        advance_sign_off(session, conversation, request, Subject(request.subject_type, request.subject_id,
                                                                 request.subject_label, request.content_hash), actor)
        touch_queue(session, request.required_role)
        return decision_id
    why = f"denied automatically by standing rule {rule.rule_id}: {rule.reason or 'no reason given'}"
    record_tool_decision(session, actor, conversation, request, action, why, None)
    if action != Action.APPROVE:
        call = get_existing(session, ToolCall, request.subject_id)
        call.result = f"Standing rule {rule.rule_id} (made by {rule.made_by}) says: {rule.reason or 'no reason given'}"
        session.add(call)
    if is_external(conversation):
        set_conversation_status(session, conversation, end_status(action),
                                f"{action} automatically by standing rule {rule.rule_id}", actor)
    touch_queue(session, request.required_role)
    return decision_id


def _note(session, conversation: Conversation, request: ReviewRequest, rule: RuleDecider, action: str) -> None:
    verb = "APPROVED" if action == Action.APPROVE else "DENIED"
    if request.kind == ReviewKind.SIGNOFF:
        verb = f"SIGNED OFF as {request.required_role} ({request.subject_label})"
    text = (f"{verb} automatically by rule {rule.rule_id} (version {rule.rule_version}), made by {rule.made_by}"
            + (f", made active by {rule.promoted_by}" if rule.promoted_by else "") + f": when {rule.conditions}")
    if request.kind == ReviewKind.TOOL_CALL:
        call = get_existing(session, ToolCall, request.subject_id)
        if action == Action.APPROVE:
            text += f"\nApproved to run: {describe_call(call.tool_name, call.arguments)}"
        else:
            text += f"\nDenied: {describe_call(call.tool_name, call.arguments)} will not run. {rule.reason or ''}"
    insert_row(session, Message, dict(
        conversation_id=conversation.id, workspace_id=conversation.workspace_id, seq=conversation.next_seq,
        source=rule.name, kind=MessageKind.DECISION, content=text.strip(), prompt_tokens=0, completion_tokens=0,
        created_at=utcnow(), model=None, author_id=None))
    conversation.next_seq += 1
