"""Whether a `when` approval rule can ever be judged: it names an argument the tool declares, and
each value it compares with is one that argument can take. Checked where a team is written; a rule
that fails here would never match at run time (or, naming a missing argument, always wait).

Parameters come as the JSON Schema of the tool's arguments (pydantic's, or an MCP server's)."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.domain.names import did_you_mean, listed, unknown_name

_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "null": "null", "array": "a list", "object": "a mapping"}


def rule_text(argument: str, equals: Any = None, one_of: list[Any] | None = None) -> str:
    """The rule as a reader writes it: `when environment == 'production'`."""
    test = f"== {equals!r}" if one_of is None else f"in {one_of!r}"
    return f"`when {argument} {test}`"


def rule_problems(tool: str, schema: dict[str, Any], argument: str, equals: Any = None,
                  one_of: list[Any] | None = None) -> list[tuple[str, str]]:
    """(the rule's field: argument | equals | one_of, what is wrong) for each problem; [] if sound."""
    rule = rule_text(argument, equals, one_of)
    properties = schema.get("properties") or {}
    if argument not in properties:
        unknown = unknown_name(argument, "argument", properties, f"of {tool}")
        return [("argument", f"the rule {rule} cannot be judged: {unknown}; every call would wait for approval")]
    parameter = _resolve(properties[argument], schema)
    field, values = ("equals", [equals]) if one_of is None else ("one_of", list(one_of))
    problems = []
    for value in values:
        if not _fits(value, parameter, schema):
            problems.append((field, f"the rule {rule} compares {argument} with {value!r}, which {argument} "
                                    f"can never be; {_describe(parameter, schema, value)}"))
    return problems


def _resolve(parameter: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = parameter.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        found: Any = root
        for part in ref[2:].split("/"):
            found = found.get(part, {}) if isinstance(found, dict) else {}
        merged = {**found, **{k: v for k, v in parameter.items() if k != "$ref"}}
        return _resolve(merged, root)
    return parameter


def _alternatives(parameter: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    options = parameter.get("anyOf") or parameter.get("oneOf")
    if not options:
        return [parameter]
    return [leaf for option in options for leaf in _alternatives(_resolve(option, root), root)]


def _same(a: Any, b: Any) -> bool:
    """Equal as the rule compares (==), but true is not 1 and '1' is not 1."""
    return (isinstance(a, bool) == isinstance(b, bool)) and a == b


def _fits(value: Any, parameter: dict[str, Any], root: dict[str, Any]) -> bool:
    return any(_fits_one(value, option) for option in _alternatives(parameter, root))


def _fits_one(value: Any, parameter: dict[str, Any]) -> bool:
    if "const" in parameter:
        return _same(value, parameter["const"])
    if "enum" in parameter:
        return any(_same(value, allowed) for allowed in parameter["enum"])
    kinds = parameter.get("type")
    if kinds is None:
        return True  # the schema says nothing about the type: any value may be passed
    return any(_of_type(value, kind) for kind in (kinds if isinstance(kinds, list) else [kinds]))


def _types_of(option: dict[str, Any]) -> list[Any]:
    """The option's "type": one name or a list of them (None when it names none)."""
    kinds = option.get("type")
    return kinds if isinstance(kinds, list) else [kinds]


def _of_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return kind == "null" and value is None


def _describe(parameter: dict[str, Any], root: dict[str, Any], value: Any) -> str:
    options = _alternatives(parameter, root)
    allowed = [v for o in options for v in ([o["const"]] if "const" in o else o.get("enum", []))]
    kinds = [_TYPE_NAMES.get(k, k) for o in options if "const" not in o and "enum" not in o
             for k in _types_of(o) if k]
    said = []
    if allowed:
        said.append(f"its values are {listed(allowed)}")
    if kinds:
        said.append(f"it is {' or '.join(dict.fromkeys(kinds))}")
    return ", or ".join(said) + did_you_mean(value, allowed)
