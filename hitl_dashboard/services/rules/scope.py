"""The standing rules that apply to a call: those of its workspace, team and tool in the given states,
not past their expiry, whose conditions hold for its arguments (deny rules first)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Text, bindparam, cast, select
from sqlmodel import Session

from hitl_dashboard.db.models import utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.rule_models import StandingRule
from hitl_dashboard.domain.standing_rules import RuleEffect, call_keys, rule_matches
from hitl_dashboard.services.rules import conditions as rule_conditions

_RULES = table_of(StandingRule)
# Built once (issue 33's lesson). The conditions as their stored text: the parsed ones are cached by
# it (services/rules/conditions.py); expiry is compared in SQL, so no timestamp is parsed per rule.
_IN_SCOPE = (
    select(_RULES.c.id, _RULES.c.version, _RULES.c.effect, cast(_RULES.c.conditions, Text).label("conditions"),
           _RULES.c.state)
    .where(_RULES.c.workspace_id == bindparam("workspace_id"), _RULES.c.team == bindparam("team"),
           _RULES.c.tool == bindparam("tool"), _RULES.c.state.in_(bindparam("states", expanding=True)),
           _RULES.c.match_key.in_(bindparam("keys", expanding=True)), _RULES.c.expires_at > bindparam("now"))
    .order_by(_RULES.c.id)
)


def matching_rules(session: Session, workspace_id: int, team: str, tool: str, arguments: dict,
                   states: tuple[str, ...]) -> list[Any]:
    """The rules in scope (these states, not past their expiry) whose conditions hold for the
    arguments; deny rules first."""
    rows = session.connection().execute(_IN_SCOPE, {"workspace_id": workspace_id, "team": team, "tool": tool,
                                                    "states": list(states), "keys": call_keys(arguments),
                                                    "now": utcnow()})
    parsed = rule_conditions.parsed
    found = [r for r in rows if rule_matches(parsed(r.conditions), arguments)]
    return sorted(found, key=lambda r: (r.effect != RuleEffect.DENY, r.id)) if len(found) > 1 else found
