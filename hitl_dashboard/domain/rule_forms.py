"""A standing rule's conditions as people write them in a form (a review card's "approve calls like
this automatically", the Rules page's "New rule"): per declared argument, a tick (is it a condition?)
and its values, one per line. One value is `equals`, several are `one_of`: widening a condition is
adding a line, and unticking drops it. Values are read as the argument's JSON type, so `2` stays an
integer and `true` a boolean; the services then check the conditions as a team file's `when` rules.
Pure: no I/O."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hitl_dashboard.domain.errors import InvalidInput

SCALAR_TYPES = ("string", "integer", "number", "boolean")
MAX_VALUES = 50


@dataclass(frozen=True)
class ConditionInput:
    """One row of the form: the argument, its JSON type, the values one per line, whether it counts."""

    argument: str
    json_type: str = "string"
    values: str = ""
    kept: bool = True


def json_type(declared: Mapping[str, Any] | None, sample: Any = None) -> str:
    """The scalar JSON type of a declared argument (its schema's `type`, an enum's values' type), else
    the sample value's; "" when it is not a scalar (an object or a list: no rule condition on it)."""
    declared = declared or {}
    named = declared.get("type")
    if named in SCALAR_TYPES:
        return str(named)
    for option in declared.get("anyOf", []):  # Optional[X]: X's type
        if isinstance(option, Mapping) and option.get("type") in SCALAR_TYPES:
            return str(option["type"])
    enum = declared.get("enum")
    if isinstance(enum, list) and enum and not named:
        sample = enum[0] if sample is None else sample
    if isinstance(sample, bool):
        return "boolean"
    if isinstance(sample, int):
        return "integer"
    if isinstance(sample, float):
        return "number"
    return "string" if isinstance(sample, str) or not declared else ""


def text_of(value: Any) -> str:
    """A value as the form shows it: text as it is, others as JSON (2, true)."""
    return value if isinstance(value, str) else json.dumps(value)


def _value(line: str, kind: str, field: str) -> Any:
    if kind == "string":
        return line
    if kind == "boolean" and line.lower() in ("true", "false"):
        return line.lower() == "true"
    if kind == "integer" and re.fullmatch(r"-?\d{1,18}", line):
        return int(line)
    if kind == "number":
        try:
            return float(line) if not re.fullmatch(r"-?\d{1,18}", line) else int(line)
        except ValueError:
            pass
    raise InvalidInput(f"{line!r} is not a{'n' if kind == 'integer' else ''} {kind}", field)


def condition_of(row: ConditionInput, field: str) -> dict[str, Any] | None:
    """The row as a `when` rule ({argument, equals} or {argument, one_of}); None when it is unticked
    or has no value. InvalidInput names `field` when a value is not of the argument's type."""
    if not row.kept:
        return None
    lines = [line.strip() for line in row.values.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return None
    if len(lines) > MAX_VALUES:
        raise InvalidInput(f"at most {MAX_VALUES} values", field)
    values = list(dict.fromkeys(_value(line, row.json_type, field) for line in lines))
    return {"argument": row.argument, "equals": values[0]} if len(values) == 1 else \
        {"argument": row.argument, "one_of": values}


def conditions_of(rows: list[ConditionInput]) -> tuple[list[dict[str, Any]], list[int]]:
    """The conditions the rows make, and for each the index of its row (to show a service's error
    about `when.N` beside the row it came from). A bad value: InvalidInput naming `condition.<row>`."""
    made: list[dict[str, Any]] = []
    origin: list[int] = []
    for index, row in enumerate(rows):
        condition = condition_of(row, f"condition.{index}")
        if condition is not None:
            made.append(condition)
            origin.append(index)
    return made, origin


def row_field(field: str | None, origin: list[int]) -> str:
    """A service's field name (`when.1.equals`) as the form's (`condition.<row>`); others unchanged."""
    match = re.match(r"when\.(\d+)", field or "")
    if match and int(match.group(1)) < len(origin):
        return f"condition.{origin[int(match.group(1))]}"
    return "conditions" if field == "when" else field or ""
