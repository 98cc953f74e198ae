"""Standing rules' use cases (issue 42): list, show with evidence, create, promote, pause, revoke,
and a workspace's thresholds. Rights are checked here, in the rule's workspace: the role that decides
the team's tool calls (its tool_approver) or a workspace admin makes, promotes and pauses rules;
making one active needs a second person (not its owner) and K shadow agreements with no
disagreement, or a workspace admin's override with a reason. A rule of a workspace the caller is not
in is answered as not found."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.memberships import resolve_workspace
from hitl_dashboard.db.models import User, utcnow
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.db.rule_models import RuleObservation, StandingRule, WorkspaceRuleSettings
from hitl_dashboard.domain.content_rules import gate_label
from hitl_dashboard.domain.errors import InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, check_can_manage_workspace
from hitl_dashboard.domain.standing_rules import (
    DEFAULT_EXPIRY_DAYS,
    MAX_EXPIRY_DAYS,
    RuleEffect,
    RuleSettings,
    RuleState,
    check_may_author,
    check_promotion,
    check_transition,
    rule_key,
)
from hitl_dashboard.services.rules import conditions as rule_conditions
from hitl_dashboard.services.rules.changes import audit, change_state
from hitl_dashboard.services.rules.gate import expire_rules
from hitl_dashboard.services.rules.gate_rules import checked_gate_rule
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import transaction


@dataclass(frozen=True)
class RuleCommand:
    team: str
    tool: str
    when: Any  # one condition {argument, equals | one_of}, or a list of them (all must hold)
    effect: str = RuleEffect.APPROVE.value
    reason: str | None = None  # a deny rule's: what the agent reads
    expires_in_days: int = DEFAULT_EXPIRY_DAYS
    daily_cap: int | None = None
    workspace: str | None = None
    # A rule on a content sign-off gate instead of a tool (tool ""): the gate's task type and role.
    task_type: str | None = None
    role: str | None = None


@dataclass(frozen=True)
class RuleView:
    id: int
    workspace_id: int
    team: str
    tool: str
    effect: str
    when: str
    conditions: list
    reason: str | None
    state: str
    state_reason: str | None
    version: int
    owner: str
    promoted_by: str | None
    override_reason: str | None
    daily_cap: int | None
    expires_at: str
    agreements: int
    disagreements: int
    decided: int
    created_at: str
    evidence: list[dict[str, Any]] = field(default_factory=list)
    task_type: str | None = None  # a sign-off gate's rule: its gate (tool "")
    role: str | None = None

    @property
    def scope(self) -> str:
        """What it decides, as a reader says it: a tool, or `sign-off code/security_reviewer`."""
        return self.tool or f"sign-off {gate_label(self.task_type or '?', self.role or '?')}"


def settings_of(session: Session, workspace_id: int) -> RuleSettings:
    row = session.get(WorkspaceRuleSettings, workspace_id)
    return RuleSettings(row.min_approvals, row.window_days, row.min_agreements) if row else RuleSettings()


def set_settings(actor: Actor, workspace: str | None, *, min_approvals: int, window_days: int,
                 min_agreements: int) -> RuleSettings:
    for name, value in (("min_approvals", min_approvals), ("window_days", window_days),
                        ("min_agreements", min_agreements)):
        if not 1 <= value <= 10_000:
            raise InvalidInput(f"{name} must be between 1 and 10000", name)
    with transaction() as uow:
        found = resolve_workspace(uow.session, actor, workspace)
        check_can_manage_workspace(actor, found.id)
        row = uow.session.get(WorkspaceRuleSettings, found.id) or WorkspaceRuleSettings(
            workspace_id=found.id, min_approvals=min_approvals, window_days=window_days, min_agreements=min_agreements)
        row.min_approvals, row.window_days, row.min_agreements = min_approvals, window_days, min_agreements
        uow.session.add(row)
        append_audit(uow.session, actor=actor.username, action="rule.settings", workspace_id=found.id,
                     details={"min_approvals": min_approvals, "window_days": window_days,
                              "min_agreements": min_agreements})
        return settings_of(uow.session, found.id)


def create_rule(actor: Actor, command: RuleCommand) -> RuleView:
    with transaction() as uow:
        workspace = resolve_workspace(uow.session, actor, command.workspace, for_new_work=True)
        return view_of(uow.session, add_rule(uow.session, actor, workspace.id, command))


def add_rule(session: Session, actor: Actor, workspace_id: int, command: RuleCommand, **audited: Any) -> StandingRule:
    """The rule, in shadow, in the caller's transaction (create_rule's step; a review card's rule is
    made in the transaction of its approval). InvalidInput names the field; PermissionDenied
    without the deciding role or workspace_admin in that workspace."""
    _check_command(command)
    found = versions.current(session, command.team, workspace_id)
    if found is None:
        raise InvalidInput(f"no team '{command.team}' in this workspace", "team")
    team = found[1]
    gate = command.task_type is not None or command.role is not None
    if gate:
        stored = checked_gate_rule(team, tool=command.tool, task_type=command.task_type, role=command.role,
                                   effect=command.effect, when=command.when, username=actor.username,
                                   roles=actor.roles_in(workspace_id))
    else:
        if not command.tool:
            raise InvalidInput("name the tool whose calls the rule decides (or a sign-off gate: task_type and "
                               "role)", "tool")
        if command.tool not in team.tools:
            raise InvalidInput(f"'{command.tool}' is not a tool of team {team.name}; its tools are "
                               f"{', '.join(sorted(team.tools)) or 'none'}", "tool")
        check_may_author(actor.username, actor.roles_in(workspace_id), team.tool_approver, "make a standing rule")
        stored = rule_conditions.checked_conditions(team, command.tool, command.when)
    rule = StandingRule(workspace_id=workspace_id, team=team.name, tool="" if gate else command.tool,
                        task_type=command.task_type if gate else None, sign_off_role=command.role if gate else None,
                        effect=command.effect, reason=(command.reason or "").strip() or None, conditions=stored,
                        match_key="" if gate else rule_key(stored),
                        state=RuleState.SHADOW.value, owner_id=actor.user_id, daily_cap=command.daily_cap,
                        expires_at=utcnow() + timedelta(days=command.expires_in_days))
    session.add(rule)
    session.flush()
    audit(session, rule, "rule.created", actor=actor.username,
          details={"conditions": stored, "reason": rule.reason, "daily_cap": rule.daily_cap,
                   "expires_at": rule.expires_at.isoformat(), **audited})
    return rule


def _check_command(command: RuleCommand) -> None:
    if command.effect not in (RuleEffect.APPROVE, RuleEffect.DENY):
        raise InvalidInput(f"effect must be 'approve' or 'deny', not {command.effect!r}", "effect")
    if not 1 <= command.expires_in_days <= MAX_EXPIRY_DAYS:
        raise InvalidInput(f"expires_in_days must be between 1 and {MAX_EXPIRY_DAYS}", "expires_in_days")
    if command.daily_cap is not None and not 1 <= command.daily_cap <= 100_000:
        raise InvalidInput("daily_cap must be between 1 and 100000", "daily_cap")
    if command.effect == RuleEffect.DENY and not (command.reason or "").strip():
        raise InvalidInput("a deny rule needs the reason the agent reads", "reason")


def list_rules(actor: Actor, *, workspace: str | None = None, state: str | None = None) -> list[RuleView]:
    with transaction() as uow:
        ids = actor.visible_workspaces() if not workspace else frozenset(
            {resolve_workspace(uow.session, actor, workspace).id})
        expire_rules(uow.session, ids)
        query = select(StandingRule).where(in_workspaces(StandingRule.workspace_id, ids))
        if state:
            query = query.where(StandingRule.state == state)
        rows = list(uow.session.exec(query.order_by(col(StandingRule.id))))
        return [view_of(uow.session, r) for r in rows]


def show_rule(actor: Actor, rule_id: int) -> RuleView:
    with transaction() as uow:
        rule = own_rule(uow.session, actor, rule_id)
        expire_rules(uow.session, frozenset({rule.workspace_id}))
        return view_of(uow.session, rule, evidence=True)


def promote_rule(actor: Actor, rule_id: int, *, override_reason: str | None = None) -> RuleView:
    with transaction() as uow:
        session = uow.session
        rule = own_rule(session, actor, rule_id, lock=True)
        expire_rules(session, frozenset({rule.workspace_id}))
        check_transition(rule.state, RuleState.ACTIVE)
        needed = settings_of(session, rule.workspace_id).min_agreements
        overridden = check_promotion(
            username=actor.username, user_id=actor.user_id, roles=actor.roles_in(rule.workspace_id),
            deciding_role=_deciding_role(session, rule), owner_id=rule.owner_id, state=rule.state,
            agreements=rule.agreements, disagreements=rule.disagreements, needed=needed,
            override_reason=override_reason)
        rule.promoted_by_id = actor.user_id
        rule.override_reason = override_reason.strip() if overridden and override_reason else None
        change_state(session, rule, RuleState.ACTIVE, actor=actor.username, why=rule.override_reason,
                     agreements=rule.agreements, disagreements=rule.disagreements, needed=needed,
                     override=overridden)
        return view_of(session, rule)


def pause_rule(actor: Actor, rule_id: int, *, reason: str | None = None) -> RuleView:
    return _stop(actor, rule_id, RuleState.PAUSED, reason)


def revoke_rule(actor: Actor, rule_id: int, *, reason: str | None = None) -> RuleView:
    return _stop(actor, rule_id, RuleState.REVOKED, reason)


def _stop(actor: Actor, rule_id: int, to: RuleState, reason: str | None) -> RuleView:
    with transaction() as uow:
        session = uow.session
        rule = own_rule(session, actor, rule_id, lock=True)
        if actor.user_id != rule.owner_id:
            check_may_author(actor.username, actor.roles_in(rule.workspace_id), _deciding_role(session, rule),
                             f"{'pause' if to == RuleState.PAUSED else 'revoke'} a standing rule")
        check_transition(rule.state, to)
        change_state(session, rule, to, actor=actor.username, why=(reason or "").strip() or None)
        return view_of(session, rule)


def own_rule(session: Session, actor: Actor, rule_id: int, *, lock: bool = False) -> StandingRule:
    """The rule, if the caller is in its workspace; NotFound otherwise (as if it did not exist)."""
    rule = session.get(StandingRule, rule_id, with_for_update=lock)
    if rule is None or not actor.sees(rule.workspace_id):
        raise NotFound(f"standing rule {rule_id} does not exist")
    return rule


def _deciding_role(session: Session, rule: StandingRule) -> str:
    if rule.sign_off_role:  # a sign-off gate's rule: the role whose step it takes
        return rule.sign_off_role
    found = versions.current(session, rule.team, rule.workspace_id)
    return found[1].tool_approver if found else "admin"  # a team since removed: only admins act on its rules


def view_of(session: Session, rule: StandingRule, *, evidence: bool = False) -> RuleView:
    names = dict(session.exec(select(User.id, User.username).where(
        col(User.id).in_([i for i in (rule.owner_id, rule.promoted_by_id) if i is not None]))).all())
    seen = []
    if evidence:
        rows = session.exec(select(RuleObservation).where(RuleObservation.rule_id == rule.id)
                            .order_by(col(RuleObservation.id).desc()).limit(50))
        seen = [{"review_request_id": o.review_request_id, "tool_call_id": o.tool_call_id,
                 "conversation_id": o.conversation_id, "mode": o.mode, "would": o.would,
                 "human_action": o.human_action, "human_edited": o.human_edited, "agreed": o.agreed,
                 "rule_version": o.rule_version, "at": o.created_at.isoformat()} for o in rows]
    return RuleView(
        id=rule.id, workspace_id=rule.workspace_id, team=rule.team, tool=rule.tool, effect=rule.effect,
        when=rule_conditions.describe(rule.conditions), conditions=list(rule.conditions), reason=rule.reason,
        state=rule.state, state_reason=rule.state_reason, version=rule.version,
        owner=names.get(rule.owner_id, "?"),
        promoted_by=names.get(rule.promoted_by_id) if rule.promoted_by_id else None,
        override_reason=rule.override_reason, daily_cap=rule.daily_cap, expires_at=rule.expires_at.isoformat(),
        agreements=rule.agreements, disagreements=rule.disagreements, decided=rule.decided,
        created_at=rule.created_at.isoformat(), evidence=seen, task_type=rule.task_type, role=rule.sign_off_role)
