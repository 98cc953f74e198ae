"""Where the team editor shows a problem the service found (issue 30). The service names a field
of the team file ('agents.coder.model', 'tools.deploy.mcp.command', 'task_types.ops.sign_off.0');
the form shows it at that row's field ('agents.1.model', 'tools.0.mcp', 'chains.0.roles'), and the
YAML view at the line and column where the field is written."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hitl_dashboard.domain.bounded_input import yaml_position
from hitl_dashboard.ui.views.team_form import TeamForm

FIELD_PATH = re.compile(r"^(format|name|description|agents|models|tools|speaker_order|task_types|gates|"
                        r"tool_approver|sla_hours|python_version)(\.[^:]*)?$")
# Team file field -> form field, per row section. A field not listed shows on its row as a whole.
# "[key]": pydantic's name for a mapping's key (a tool's name, a task type).
AGENT_FIELDS = {"name": "name", "description": "description", "model": "model", "system_prompt": "prompt",
                "tools": "tools"}
MODEL_FIELDS = {"[key]": "name", "provider": "provider", "api_key_env": "api_key_env", "description": "description"}
TOOL_FIELDS = {"[key]": "name", "function": "function", "mcp": "mcp", "approval": "approval", "when": "when",
               "description": "description"}
CHAIN_FIELDS = {"producer": "producer", "sign_off": "roles", "[key]": "task_type"}


@dataclass
class YamlMark:
    """A problem at its place in the YAML text (line and column from 1)."""

    line: int = 0
    column: int = 0
    message: str = ""


def split_problem(problem: str) -> tuple[str, str]:
    """'gates.keywords: ...' -> ('gates.keywords', '...'); a problem of the whole team -> ('', it).
    A path may hold a space: it names the bad key itself ('tools.bad name.[key]')."""
    where, sep, message = problem.partition(": ")
    return (where, message) if sep and FIELD_PATH.match(where) else ("", problem)


def form_problems(problems: list[str], form: TeamForm) -> dict[str, str]:
    """{form key: message}; several problems at one key are joined."""
    found: dict[str, str] = {}
    for problem in problems:
        where, message = split_problem(problem)
        key = form_key(where, form)
        found[key] = f"{found[key]}; {message}" if key in found else message
    return found


def form_key(path: str, form: TeamForm) -> str:
    parts = path.split(".") if path else []
    if len(parts) < 2:
        return path
    section, name, rest = parts[0], parts[1], parts[2:]
    if section == "agents":
        return _row_key("agents", _index(name, [r.name for r in form.agents]), rest, AGENT_FIELDS)
    if section == "models":
        index = _index(name, [r.name for r in form.models])
        if rest[:1] == ["config"] and index is not None:
            shown = rest[1] if len(rest) > 1 and rest[1] in ("model", "base_url", "plays") else "other"
            return f"models.{index}.{shown}"
        return _row_key("models", index, rest, MODEL_FIELDS)
    if section == "tools":
        return _row_key("tools", _index(name, [r.name for r in form.tools]), rest, TOOL_FIELDS)
    if section == "task_types":
        return _row_key("chains", _index(name, [r.task_type for r in form.chains]), rest, CHAIN_FIELDS)
    return path


def _index(name: str, names: list[str]) -> int | None:
    """A row named by its index (pydantic's paths) or by its name (the reference checks')."""
    if name.isdigit() and int(name) < len(names):
        return int(name)
    return names.index(name) if name in names else None


def _row_key(section: str, index: int | None, rest: list[str], fields: dict[str, str]) -> str:
    if index is None:
        return section
    field = fields.get(rest[0]) if rest else None
    return f"{section}.{index}.{field}" if field else f"{section}.{index}"


def yaml_marks(text: str, problems: list[str], line: int | None = None, column: int | None = None) -> list[YamlMark]:
    """Each problem at its place in the text: a YAML error where the parser stopped (line, column),
    a field the schema refused where the field is written; a problem of the whole team at line 1."""
    if line is not None:  # the mark says where; its message need not say it again
        message = (problems[0] if problems else "").replace(f" at line {line}, column {column}", "")
        return [YamlMark(line, column or 1, message)]
    marks = []
    for problem in problems:
        where, message = split_problem(problem)
        place = yaml_position(text, where.split(".")) if where else None
        found_line, found_column = place or (1, 1)
        marks.append(YamlMark(found_line, found_column, f"{where}: {message}" if where else message))
    return sorted(marks, key=lambda mark: (mark.line, mark.column))
