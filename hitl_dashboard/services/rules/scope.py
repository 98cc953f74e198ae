"""The standing rules that apply to a call: those of its workspace, team and tool in the given states,
not past their expiry, whose conditions hold for its arguments (deny rules first)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Text, cast, select
from sqlmodel import Session

from hitl_dashboard.db.models import utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.rule_models import StandingRule
from hitl_dashboard.domain.standing_rules import RuleEffect, expired, rule_matches
from hitl_dashboard.services.rules import conditions as rule_conditions

_RULES = table_of(StandingRule)
# The conditions as their stored text: the parsed ones are cached by it (services/rules/conditions.py).
_SCOPE_COLUMNS = (_RULES.c.id, _RULES.c.version, _RULES.c.effect,
                  cast(_RULES.c.conditions, Text).label("conditions"), _RULES.c.expires_at,
                  _RULES.c.state)


def _in_scope(session: Session, workspace_id: int, team: str, tool: str, states: tuple[str, ...]) -> list[Any]:
    query = select(*_SCOPE_COLUMNS).where(
        _RULES.c.workspace_id == workspace_id, _RULES.c.team == team, _RULES.c.tool == tool,
        _RULES.c.state.in_(states)).order_by(_RULES.c.id)
    return list(session.connection().execute(query))


def matching_rules(session: Session, workspace_id: int, team: str, tool: str, arguments: dict,
                   states: tuple[str, ...]) -> list[Any]:
    """The rules in scope (these states) whose conditions hold for the arguments; deny rules first."""
    now = utcnow()
    found = [r for r in _in_scope(session, workspace_id, team, tool, states)
             if not expired(_aware(r.expires_at), now)
             and rule_matches(rule_conditions.parsed(r.conditions), arguments)]
    return sorted(found, key=lambda r: (r.effect != RuleEffect.DENY, r.id))


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
