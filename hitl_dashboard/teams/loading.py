"""Read a team file: YAML in, a validated TeamDefinition out, or one error naming every bad field."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from hitl_dashboard.domain.bounded_input import YamlInvalid, load_yaml
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.names import did_you_mean
from hitl_dashboard.teams.model import TeamDefinition


class TeamFileInvalid(InvalidInput):
    """problems: one 'field.path: what is wrong' line each; field: the first bad field.
    line, column (from 1): where a file that is not even YAML breaks (None otherwise)."""

    def __init__(self, source: str, problems: list[str], field: str | None = None,
                 line: int | None = None, column: int | None = None):
        super().__init__(f"{source} is not a valid team file:\n" + "\n".join(f"  {p}" for p in problems),
                         field or "team")
        self.problems = problems
        self.line, self.column = line, column


def parse_team(text: str, source: str = "team file") -> TeamDefinition:
    """Within the bounds of domain/bounded_input.py (size, nesting, aliases): past one, the error names it."""
    try:
        data = load_yaml(text, "the file")
    except InvalidInput as exc:
        line, column = (exc.line, exc.column) if isinstance(exc, YamlInvalid) else (None, None)
        raise TeamFileInvalid(source, [str(exc)], line=line, column=column) from None
    return validate_team(data, source)


def validate_team(data: Any, source: str = "team file") -> TeamDefinition:
    if not isinstance(data, dict):
        raise TeamFileInvalid(source, ["the file must be a mapping with name, agents, models, task_types..."])
    try:
        return TeamDefinition.model_validate(data)
    except ValidationError as exc:
        problems = [_describe(error) for error in exc.errors(include_url=False)]
        first = exc.errors()[0]["loc"]
        raise TeamFileInvalid(source, problems, ".".join(map(str, first)) or None) from None


def load_team_file(path: Path | str) -> TeamDefinition:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"cannot read {path}: it is not UTF-8 (byte {exc.start} is not)", "file") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}", "file") from exc
    return parse_team(text, str(path))


def dump_team(team: TeamDefinition) -> str:
    """The YAML a team exports to: loading it again gives the same definition."""
    data = json.loads(team.model_dump_json(exclude_none=True, exclude={"format"}))
    return yaml.safe_dump({"format": team.format, **data}, sort_keys=False, allow_unicode=True, width=100)


def _choices(error: Any) -> list[str]:
    return re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown field" + (" (a key value is never stored: use api_key_env)"
                                     if str(error["loc"][-1]).lower() == "api_key" else "")
    elif error["type"] == "missing":
        message = "required field is missing"
    elif error["type"] == "literal_error" and isinstance(error.get("input"), str):
        # Only a short name is echoed (never another input: a file may hold a secret by mistake).
        message = f"{message}, not {error['input'][:64]!r}{did_you_mean(error['input'], _choices(error))}"
    # A rule of the whole team already names its field in the message.
    return f"{where}: {message}" if where else message
