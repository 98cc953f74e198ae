"""A standing rule's conditions are the team file's `when` rules, read and checked by the same code:
teams/model.ApprovalRule (the operators; an unknown one is refused with the same words) and
domain/approval_rules.rule_problems against the tool's declared arguments (an undeclared argument or
a value of the wrong type is refused), as services/teams/team_checks.py checks a team file."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from hitl_dashboard.agents.tools import ToolUnavailable, declared_parameters
from hitl_dashboard.domain.approval_rules import rule_problems, rule_text
from hitl_dashboard.domain.content_rules import GATE_SUBJECT, sign_off_arguments
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.teams.model import ApprovalRule, TeamDefinition

MAX_CONDITIONS = 8


def checked_conditions(team: TeamDefinition, tool: str, when: Any) -> list[dict[str, Any]]:
    """The conditions as stored (a list of {argument, equals | one_of}), or InvalidInput naming the
    field (`when.0.argument`...). A single mapping is one condition."""
    items = _items(when)
    definition = team.tools[tool]
    try:
        schema = declared_parameters(tool, definition)
    except (ToolUnavailable, TypeError, ValueError, NameError) as exc:
        raise InvalidInput(f"cannot read the arguments of {tool} ({exc}), so no rule can be checked", "tool") from None
    if schema is None:  # fail closed: a rule that cannot be checked is not made
        raise InvalidInput(f"the arguments of the MCP tool {tool} are not known yet (no conversation of this "
                           "server has read them from its server): a rule on them cannot be checked", "tool")
    return _checked(tool, schema, items)


def checked_gate_conditions(team: TeamDefinition, when: Any) -> list[dict[str, Any]]:
    """A sign-off gate's rule: the same checks, against the fixed arguments describing the content
    (domain/content_rules.sign_off_arguments)."""
    return _checked(GATE_SUBJECT, sign_off_arguments(team.task_types), _items(when))


def _items(when: Any) -> list[Any]:
    items = [when] if isinstance(when, dict) else when
    if not isinstance(items, list) or not items:
        raise InvalidInput("give at least one condition: {argument: <name>, equals: <value>} or "
                           "{argument: <name>, one_of: [<values>]}", "when")
    if len(items) > MAX_CONDITIONS:
        raise InvalidInput(f"at most {MAX_CONDITIONS} conditions", "when")
    return items


def _checked(subject: str, schema: dict[str, Any], items: list[Any]) -> list[dict[str, Any]]:
    stored = []
    for index, item in enumerate(items):
        field = f"when.{index}"
        try:
            rule = ApprovalRule.model_validate(item)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"])
            raise InvalidInput(error["msg"].removeprefix("Value error, "), f"{field}.{where}" if where else field) \
                from None
        for part, message in rule_problems(subject, schema, rule.argument, rule.equals, rule.one_of):
            raise InvalidInput(message, f"{field}.{part}")
        stored.append(rule.model_dump(exclude_none=True))
    return stored


# The stored conditions' JSON text -> them parsed, once: read at every tool-call request. Keyed by
# the text itself, so an entry is never stale (whichever database or rule it came from).
_PARSED: dict[str, tuple[ApprovalRule, ...]] = {}


def parsed(stored_json: str) -> tuple[ApprovalRule, ...]:
    found = _PARSED.get(stored_json)
    if found is None:
        if len(_PARSED) > 20_000:
            _PARSED.clear()
        found = _PARSED[stored_json] = tuple(ApprovalRule.model_validate(c) for c in json.loads(stored_json))
    return found


def describe(conditions: list[dict[str, Any]]) -> str:
    return " and ".join(rule_text(c["argument"], c.get("equals"), c.get("one_of")).strip("`")
                        .removeprefix("when ") for c in conditions)
