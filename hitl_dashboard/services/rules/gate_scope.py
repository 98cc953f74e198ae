"""The standing rules of a content sign-off gate that apply to a request (issue 42): those of its
workspace, team, task type and role in the given states, not past their expiry, whose conditions hold
for every file it covers; none when the conversation's team version or the team's current version
does not allow the gate, or the gates flagged the content as risky; a `file` condition never holds
when the files cannot be found under the request's hash (fail closed: a person looks). Read where a
rule would decide and where people's decisions are observed as evidence."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Text, bindparam, cast, select
from sqlmodel import Session

from hitl_dashboard.db.models import Conversation, ReviewRequest, utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.rule_models import StandingRule
from hitl_dashboard.domain.content_rules import sign_off_rule_matches
from hitl_dashboard.domain.enums import SubjectType
from hitl_dashboard.domain.external import EXTERNAL
from hitl_dashboard.services.audit.audit_context import revisions_under_review
from hitl_dashboard.services.rules import conditions as rule_conditions
from hitl_dashboard.services.rules.allowance import allows, gate_problem
from hitl_dashboard.services.teams.versions import pinned

_RULES = table_of(StandingRule)
# Built once (issue 33's lesson). A gate's rules have no tool (""), so tool rules are never read here
# and these are never read for a tool call.
_AT_GATE = (
    select(_RULES.c.id, _RULES.c.version, _RULES.c.effect, cast(_RULES.c.conditions, Text).label("conditions"),
           _RULES.c.state)
    .where(_RULES.c.workspace_id == bindparam("workspace_id"), _RULES.c.team == bindparam("team"),
           _RULES.c.tool == "", _RULES.c.task_type == bindparam("task_type"),
           _RULES.c.sign_off_role == bindparam("role"), _RULES.c.state.in_(bindparam("states", expanding=True)),
           _RULES.c.expires_at > bindparam("now"))
    .order_by(_RULES.c.id)
)


def matching_gate_rules(session: Session, conversation: Conversation, request: ReviewRequest,
                        states: tuple[str, ...]) -> list[Any]:
    """The rules of the request's gate in these states (not past expiry) whose conditions hold for
    its content; none unless both the version the conversation runs on and the team's current
    version allow the gate (fail closed). The pinned version is read first, in memory: a team that
    allows no gate (the default) costs a sign-off no query here."""
    if set(request.risk_flags or ()) - {EXTERNAL}:
        return []  # the gates flagged this content as risky: a person looks
    if gate_problem(pinned(conversation), conversation.task_type, request.required_role) is not None:
        return []
    rows = list(session.connection().execute(_AT_GATE, {
        "workspace_id": conversation.workspace_id, "team": conversation.template,
        "task_type": conversation.task_type, "role": request.required_role, "states": list(states),
        "now": utcnow()}))
    if not rows or not allows(session, conversation.workspace_id, conversation.template, conversation.task_type,
                              request.required_role):
        return []
    files = _files_covered(session, request)
    parsed = rule_conditions.parsed
    return [r for r in rows if sign_off_rule_matches(parsed(r.conditions), files, conversation.task_type)]


def _files_covered(session: Session, request: ReviewRequest) -> list[str]:
    """Every file the sign-off covers; none when they cannot be found under its hash (fail closed)
    or it covers a message."""
    if request.subject_type != SubjectType.CODE_REVISION:
        return []
    revisions, matches = revisions_under_review(session, request)
    return [r.key for r in revisions] if matches else []
