"""One edit of the team form (issue 30), as the page's state receives it from any browser: a
section, a row index, a field and a value. Pure: an edit that names no such row or field, or a
value outside a field's choices, changes nothing (None), so a forged event can only do what the
form itself can. Lengths are bounded; the service judges the content when the team is saved."""

from __future__ import annotations

import dataclasses
from typing import Any

from hitl_dashboard.ui.views.team_form import (
    APPROVALS,
    NONE,
    OPERATORS,
    ROWS,
    TASK_TYPES,
    TOOL_KINDS,
    TRANSPORTS,
    AgentRow,
    ChainRow,
    ModelRow,
    SlaRow,
    TeamForm,
    ToolRow,
)

MAX_ROWS = 50  # agents, models, tools each: far beyond any team, and bounds what a browser can add
MAX_TEXT = 100_000  # a system prompt
MAX_FIELD = 2_000  # every other field
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("tools", "approval"): APPROVALS, ("tools", "kind"): TOOL_KINDS, ("tools", "transport"): TRANSPORTS,
    ("tools", "when_operator"): OPERATORS, ("chains", "task_type"): TASK_TYPES,
}


def _text_fields(row_type: type) -> set[str]:
    return {f.name for f in dataclasses.fields(row_type) if f.type == "str" and f.name != "origin"}


TEXT_FIELDS = {section: _text_fields(row_type) for section, row_type in ROWS.items()}
FLAG_FIELDS = {("models", "no_key")}


def edited(rows: list[Any], section: str, index: Any, part: str, value: Any) -> list[Any] | None:
    """rows with one field of one row set; None if the edit is not one the form offers."""
    position = _position(rows, index)
    if position is None or section not in ROWS:
        return None
    if (section, part) in FLAG_FIELDS:
        if not isinstance(value, bool):
            return None
    elif part in TEXT_FIELDS[section] and isinstance(value, str):
        value = "" if value == NONE else value
        choices = CHOICES.get((section, part))
        if choices is not None and value not in choices:
            return None
        value = value[:MAX_TEXT if part == "prompt" else MAX_FIELD]
    else:
        return None
    changed = list(rows)
    changed[position] = dataclasses.replace(rows[position], **{part: value})
    return changed


def toggled(names: list[str], name: str, on: Any) -> list[str]:
    if on is True:
        return names if name in names else [*names, name]
    return [n for n in names if n != name]


def with_agent_tool(agents: list[AgentRow], index: Any, tool: str, on: Any) -> list[AgentRow] | None:
    """The agents with one agent holding the tool (on) or not; None for no such agent."""
    position = _position(agents, index)
    if position is None:
        return None
    changed = list(agents)
    changed[position] = dataclasses.replace(agents[position], tools=toggled(agents[position].tools, tool, on))
    return changed


def with_hours(rows: list[SlaRow], index: Any, hours: Any) -> list[SlaRow] | None:
    position = _position(rows, index)
    if position is None or not isinstance(hours, str):
        return None
    changed = list(rows)
    changed[position] = dataclasses.replace(rows[position], hours=hours[:20])
    return changed


def added(form: TeamForm, section: str) -> list[Any] | None:
    """The section's rows with a new one at the end, its fields filled with what fits the team now."""
    rows: list[Any] = getattr(form, section) if section in ROWS else []
    if section not in ROWS or len(rows) >= MAX_ROWS:
        return None
    names = {getattr(row, "name", "") for row in rows}
    fresh = next(f"{section[:-1]}_{n}" for n in range(1, MAX_ROWS + 2) if f"{section[:-1]}_{n}" not in names)
    if section == "agents":
        return [*rows, AgentRow(name=fresh, model=form.models[0].name if form.models else "")]
    if section == "models":
        return [*rows, ModelRow(name=fresh)]
    if section == "tools":
        return [*rows, ToolRow(name=fresh)]
    unused = [t for t in TASK_TYPES if t not in {row.task_type for row in rows}]
    if not unused:
        return None
    return [*rows, ChainRow(unused[0], form.agents[-1].name if form.agents else "", "final_approver")]


def removed(rows: list[Any], index: Any) -> list[Any] | None:
    position = _position(rows, index)
    return None if position is None else rows[:position] + rows[position + 1:]


def moved(rows: list[Any], index: Any, step: Any) -> list[Any] | None:
    """rows with one moved a place up (step -1) or down (1): the agents' order is round_robin's."""
    position = _position(rows, index)
    if position is None or step not in (-1, 1) or isinstance(step, bool) or not 0 <= position + step < len(rows):
        return None
    changed = list(rows)
    changed[position], changed[position + step] = changed[position + step], changed[position]
    return changed


def tool_renamed(form: TeamForm, old: str, new: str) -> tuple[list[AgentRow], list[str]]:
    """(the agents, the gate's tools) holding tool `new` where they held `old` (new "": removed).
    A name another tool has too (while a new name is being typed) is left alone: the agent's card
    shows the name it holds that is no tool, checked, to uncheck or to fix by the name."""
    others = [t for t in form.tools if t.name == old or (new and t.name == new)]
    if not old or old == new or len(others) > (1 if new else 0):
        return form.agents, form.gate_tools

    def moved(names: list[str]) -> list[str]:
        return list(dict.fromkeys(new if n == old else n for n in names if n != old or new))

    return [dataclasses.replace(a, tools=moved(a.tools)) for a in form.agents], moved(form.gate_tools)


def _position(rows: list[Any], index: Any) -> int | None:
    if isinstance(index, bool) or not isinstance(index, int | str):
        return None
    try:
        position = int(index)
    except ValueError:
        return None
    return position if 0 <= position < len(rows) else None
