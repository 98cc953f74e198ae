"""Making a standing rule on a content sign-off gate (issue 42): its scope is a team's task type and
one of its sign-off roles instead of a tool; the team's current version must allow that gate
(task_types.<type>.rules_may_sign_off), or it is refused naming the field. It only approves, and
its conditions are checked by the tool rules' checker against the fixed arguments describing the
content (domain/content_rules.py)."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.standing_rules import RuleEffect, check_may_author
from hitl_dashboard.services.rules import conditions as rule_conditions
from hitl_dashboard.services.rules.allowance import gate_problem
from hitl_dashboard.teams.model import TeamDefinition


def checked_gate_rule(team: TeamDefinition, *, tool: str, task_type: str | None, role: str | None, effect: str,
                      when: Any, username: str, roles: frozenset[str]) -> list[dict[str, Any]]:
    """The rule's stored conditions, or InvalidInput naming the field (PermissionDenied: the caller
    holds neither the gate's role nor workspace_admin)."""
    if tool:
        raise InvalidInput("a rule on a sign-off gate names a task_type and a role, not a tool", "tool")
    if not task_type:
        raise InvalidInput("a rule on a sign-off gate needs the task_type whose chain it is part of", "task_type")
    if not role:
        raise InvalidInput("a rule on a sign-off gate needs the sign-off role whose step it takes", "role")
    problem = gate_problem(team, task_type, role)
    if problem is not None:
        raise InvalidInput(problem[1], problem[0])
    if effect != RuleEffect.APPROVE:
        raise InvalidInput("a rule on a sign-off gate only approves: asking for a revision of content needs "
                           "instructions a person writes", "effect")
    check_may_author(username, roles, role, "make a standing rule on this sign-off")
    return rule_conditions.checked_gate_conditions(team, when)
