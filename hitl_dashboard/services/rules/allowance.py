"""Whether a team lets standing rules take a step of a content sign-off chain (issue 42): only a gate
its CURRENT version lists in task_types.<type>.rules_may_sign_off. Read where a rule is made (refused,
naming the field) and again every time one would decide (a removed allowance holds at once: the rule
decides nothing and the sign-off waits for a person)."""

from __future__ import annotations

from sqlmodel import Session

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.names import listed
from hitl_dashboard.domain.standing_rules import RuleEffect
from hitl_dashboard.services.teams import versions
from hitl_dashboard.teams.model import TeamDefinition


def gate_problem(team: TeamDefinition, task_type: str, role: str) -> tuple[str, str] | None:
    """(the field, what is wrong) when rules may not sign off at this gate; None when they may."""
    spec = team.task_types.get(task_type)  # type: ignore[call-overload]
    if spec is None:
        return "task_type", (f"'{task_type}' is not a task type of team {team.name}; its task types are "
                             f"{listed(team.task_types)}")
    if role not in spec.sign_off:
        return "role", (f"'{role}' is not a sign-off role of {team.name}'s {task_type} work; its sign-off chain "
                        f"is {listed(spec.sign_off)}")
    if not spec.rule_may_sign_off(role):
        return "role", (f"team {team.name} does not allow standing rules to sign off as {role} for {task_type} "
                        f"work: content sign-offs stay with people unless the team file lists the role under "
                        f"task_types.{task_type}.rules_may_sign_off")
    return None


def allows(session: Session, workspace_id: int, team_name: str, task_type: str, role: str) -> bool:
    found = versions.current(session, team_name, workspace_id)
    return found is not None and gate_problem(found[1], task_type, role) is None


def check_rule_may_sign_off(session: Session, conversation: Conversation, role: str, effect: str) -> None:
    """The last guard before a rule's sign-off is recorded (the gate already checked; fail closed)."""
    if effect != RuleEffect.APPROVE:
        raise Conflict("a standing rule only approves a sign-off; revisions are asked for by people")
    if not allows(session, conversation.workspace_id, conversation.template, conversation.task_type, role):
        raise Conflict(f"team {conversation.template} does not allow standing rules to sign off as {role}")
