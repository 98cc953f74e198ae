"""A rule's evidence as the Rules page shows it (issue 42, "the page shows agreements and every
disagreement"): every disagreement it ever recorded, whole, and its latest agreements, each with the
call's arguments, what the rule would have done, what the person did, who and when, and the rule's
version then. A rule of a workspace the caller is not in is not found (rules.own_rule)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import Decision, ToolCall, User
from hitl_dashboard.db.rule_models import RuleObservation
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.rules import rules
from hitl_dashboard.services.rules.gate import expire_rules
from hitl_dashboard.services.transactions import transaction

RECENT_AGREEMENTS = 20


@dataclass(frozen=True)
class Observed:
    """One person's decision on a call the rule matched, beside what the rule would have done."""
    conversation_id: int
    tool_call_id: int | None  # None: a sign-off gate's rule observed a sign-off, not a call
    review_request_id: int
    arguments: dict
    would: str  # approve | deny
    human_action: str
    human_edited: bool
    decided_by: str
    at: str
    rule_version: int
    mode: str  # shadow | active: the rule's state when it observed


@dataclass(frozen=True)
class RuleEvidence:
    rule: rules.RuleView
    disagreements: list[Observed]  # every one, oldest first
    agreements: list[Observed]  # the latest `recent`, newest first


def rule_evidence(actor: Actor, rule_id: int, *, recent: int = RECENT_AGREEMENTS) -> RuleEvidence:
    with transaction() as uow:  # expire_rules may mark the rule expired
        session = uow.session
        rule = rules.own_rule(session, actor, rule_id)
        expire_rules(session, frozenset({rule.workspace_id}))
        mine = select(RuleObservation).where(RuleObservation.rule_id == rule.id)
        against = list(session.exec(mine.where(col(RuleObservation.agreed).is_(False))
                                    .order_by(col(RuleObservation.id))))
        agreed = list(session.exec(mine.where(col(RuleObservation.agreed).is_(True))
                                   .order_by(col(RuleObservation.id).desc()).limit(max(0, min(recent, 500)))))
        observed = _observed(session, against + agreed)
        return RuleEvidence(rules.view_of(session, rule), observed[:len(against)], observed[len(against):])


def _observed(session: Session, rows: list[RuleObservation]) -> list[Observed]:
    """Each observation with its call's arguments and the person who decided: two queries, not one per row."""
    call_ids = {o.tool_call_id for o in rows if o.tool_call_id is not None}
    calls = dict(session.exec(select(ToolCall.id, ToolCall.arguments)
                              .where(col(ToolCall.id).in_(call_ids))).all()) if call_ids else {}
    people = {request: name for request, name in session.exec(
        select(Decision.review_request_id, User.username).join(User, col(User.id) == Decision.reviewer_id)
        .where(col(Decision.review_request_id).in_({o.review_request_id for o in rows}))
        .order_by(col(Decision.id)))} if rows else {}
    return [Observed(o.conversation_id, o.tool_call_id, o.review_request_id, dict(calls.get(o.tool_call_id or 0) or {}),
                     o.would, o.human_action or "", o.human_edited, people.get(o.review_request_id, "?"),
                     o.created_at.isoformat(timespec="seconds"), o.rule_version, o.mode) for o in rows]
