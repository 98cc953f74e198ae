"""A rule's state changes, each audited in the caller's transaction with the rule's id and version."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import utcnow
from hitl_dashboard.db.rule_models import StandingRule
from hitl_dashboard.domain.standing_rules import RuleState


def change_state(session: Session, rule: StandingRule, to: RuleState, *, actor: str, why: str | None,
                 **details: Any) -> StandingRule:
    before = rule.state
    rule.state, rule.state_reason = to.value, why
    rule.version += 1
    rule.updated_at = utcnow()
    session.add(rule)
    audit(session, rule, f"rule.{to.value}", actor=actor, details={"from": before, "why": why, **details})
    return rule


def audit(session: Session, rule: StandingRule, action: str, *, actor: str, details: dict[str, Any]) -> None:
    append_audit(session, actor=actor, action=action, workspace_id=rule.workspace_id,
                 details={"rule_id": rule.id, "rule_version": rule.version, "team": rule.team, "tool": rule.tool,
                          "effect": rule.effect, "state": rule.state,
                          **({"task_type": rule.task_type, "role": rule.sign_off_role} if rule.sign_off_role else {}),
                          **details})


def pause_itself(session: Session, rule_id: int, why: str, **details: Any) -> None:
    """A rule takes itself back (a call it approved failed, a person contradicted it, its daily cap):
    from the next call on, on every worker (the gate reads the state in its transaction)."""
    rule = session.get(StandingRule, rule_id, with_for_update=True)
    if rule is not None and rule.state == RuleState.ACTIVE:
        change_state(session, rule, RuleState.PAUSED, actor=f"rule:{rule_id}", why=why, paused_by="itself",
                     **details)
