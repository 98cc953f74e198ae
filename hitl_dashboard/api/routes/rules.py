"""/api/rules (issue 42): standing rules that decide tool calls automatically. Rights are checked in
the services (services/rules/rules.py): the deciding role or a workspace admin makes and promotes a
rule, never its owner alone; another workspace's rule is 404."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, status

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.schemas.rules import CandidatePublic, PromoteIn, RuleIn, RulePublic, StopIn
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.rules import candidates, rules

router = APIRouter(prefix="/rules", tags=["rules"], responses=COMMON_RESPONSES, route_class=StrictJsonRoute)


def _public(view: rules.RuleView) -> RulePublic:
    return RulePublic(**asdict(view))


@router.get("", response_model=list[RulePublic])
def list_rules(actor: CurrentActor, state: str | None = None) -> list[RulePublic]:
    """The rules of your workspaces (or of `?workspace=`), oldest first."""
    return [_public(v) for v in rules.list_rules(actor, state=state)]


@router.get("/candidates", response_model=list[CandidatePublic])
def list_candidates(actor: CurrentActor, team: str | None = None) -> list[CandidatePublic]:
    """Rules the workspace's history supports: approved unchanged at least N times over T days, never
    denied, edited or revised; with counts and examples."""
    return [CandidatePublic(team=c.team, tool=c.tool, when=c.when, approved_unchanged=c.approved_unchanged,
                            contrary=c.contrary, examples=c.examples) for c in candidates.propose(actor, team=team)]


@router.get("/{rule_id}", response_model=RulePublic, responses=NOT_FOUND)
def show_rule(actor: CurrentActor, rule_id: IdPath) -> RulePublic:
    """The rule with its evidence: what it did or would have done, beside what people did."""
    return _public(rules.show_rule(actor, rule_id))


@router.post("", response_model=RulePublic, status_code=status.HTTP_201_CREATED)
def create_rule(body: RuleIn, actor: CurrentActor) -> RulePublic:
    """A new rule starts in shadow: it decides nothing until a second person makes it active."""
    command = rules.RuleCommand(team=body.team, tool=body.tool, when=body.when, effect=body.effect,
                                reason=body.reason, expires_in_days=body.expires_in_days, daily_cap=body.daily_cap,
                                task_type=body.task_type, role=body.role)
    return _public(rules.create_rule(actor, command))


@router.post("/{rule_id}/promote", response_model=RulePublic, responses={**NOT_FOUND, **CONFLICT})
def promote_rule(body: PromoteIn, actor: CurrentActor, rule_id: IdPath) -> RulePublic:
    return _public(rules.promote_rule(actor, rule_id, override_reason=body.override_reason))


@router.post("/{rule_id}/pause", response_model=RulePublic, responses={**NOT_FOUND, **CONFLICT})
def pause_rule(body: StopIn, actor: CurrentActor, rule_id: IdPath) -> RulePublic:
    return _public(rules.pause_rule(actor, rule_id, reason=body.reason))


@router.post("/{rule_id}/revoke", response_model=RulePublic, responses={**NOT_FOUND, **CONFLICT})
def revoke_rule(body: StopIn, actor: CurrentActor, rule_id: IdPath) -> RulePublic:
    return _public(rules.revoke_rule(actor, rule_id, reason=body.reason))
