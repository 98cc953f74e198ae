"""What a caller's JSON schema may cost to check (docs/external-approvals.md, "Schema limits").

A validator's work grows with the schema as it is used, every `$ref` expanded in place, times the
arguments it checks: a 1.3 KB schema whose definitions each refer twice to the next one is a
million subschemas at 20 levels. So the cost is bounded by structure, before anything is compiled:
references stay inside the schema and never form a loop, the expanded schema has at most
MAX_EXPANDED_WEIGHT units (a subschema, a checking keyword, an enum member, a required name: one each), and that
weight times the number of values in the arguments is at most MAX_WORK. Patterns are short and
run on a linear-time engine (services/external_outcomes/args_schema.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from hitl_dashboard.domain.errors import InvalidInput

MAX_EXPANDED_WEIGHT = 5_000
MAX_EXPANDED_DEPTH = 64  # subschemas inside each other, references followed
MAX_PATTERN_CHARS = 1_000
MAX_WORK = 1_000_000  # expanded weight x argument values: about 30 ms of checking at most

# Keywords whose value is one subschema, a list of them, or a name -> subschema map (2020-12 and
# the older drafts' spellings). $defs/definitions hold subschemas that cost only when referred to.
_ONE = frozenset({"additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
                  "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems"})
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})
_DEFINITIONS = frozenset({"$defs", "definitions"})
_NOT_CHECKED = frozenset({"default", "examples", "title", "description", "$comment", "deprecated", "readOnly",
                          "writeOnly", "$schema", "$id", "$anchor", "$vocabulary"})  # annotations: no work
_REFUSED = {"$dynamicRef": "$dynamicRef", "$recursiveRef": "$recursiveRef", "$dynamicAnchor": "$dynamicAnchor",
            "$recursiveAnchor": "$recursiveAnchor"}


def json_values(value: Any) -> int:
    """How many JSON values `value` holds, itself included (a scalar is 1)."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def expanded_weight(schema: dict[str, Any]) -> int:
    """The schema's weight with every $ref expanded in place; InvalidInput (field args_schema) when a
    reference leaves the schema or loops, a pattern is too long, or a limit is passed."""
    for key in _DEFINITIONS:  # checked (and their size counted) even when nothing refers to them
        definitions = schema.get(key)
        for sub in definitions.values() if isinstance(definitions, dict) else ():
            _Walk(schema).weight(sub, depth=1)
    return _Walk(schema).weight(schema, depth=0)


def check_work(weight: int, arguments: Any, field: str) -> None:
    values = json_values(arguments)
    if weight * values > MAX_WORK:
        raise InvalidInput(f"{field}: {values:,} values checked against a schema of weight {weight:,} is more work "
                           f"than a request may cause ({MAX_WORK:,}); send fewer values or a smaller schema", field)


def _refuse(message: str) -> InvalidInput:
    return InvalidInput(f"args_schema: {message}", "args_schema")


class _Walk:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root, self.total = root, 0
        self.done: dict[str, int] = {}  # a reference's weight, expanded once
        self.open: set[str] = set()  # references being expanded: meeting one again is a loop

    def weight(self, node: Any, depth: int) -> int:
        """Adds the node's weight, references expanded, to the total; returns the total."""
        if depth > MAX_EXPANDED_DEPTH:
            raise _refuse(f"subschemas are nested more than {MAX_EXPANDED_DEPTH} deep with references expanded")
        self._add(1)
        if not isinstance(node, dict):  # true/false schemas
            return self.total
        if depth and "$id" in node:
            raise _refuse("$id is allowed at the top of the schema only (it would change what '#/...' means)")
        for key, value in node.items():
            if key in _REFUSED:
                raise _refuse(f"{key} is not supported; use $ref to '#/...'")
            if key in _DEFINITIONS:
                continue
            if key in ("pattern", "patternProperties"):
                self._check_patterns(value if key == "pattern" else list(value or {}))
            for sub in self._subschemas(key, value):
                self.weight(sub, depth + 1)
            if key == "$ref":
                self._ref(value, depth)
            elif key not in _ONE | _LIST | _MAP | _NOT_CHECKED and key != "dependencies":
                self._add(json_values(value))  # the keyword, and each value it compares (enum, required...)
        return self.total

    @staticmethod
    def _subschemas(key: str, value: Any) -> list[Any]:
        if key in _ONE:
            return [value]
        if key in _LIST and isinstance(value, list):
            return value
        if (key in _MAP or key == "dependencies") and isinstance(value, dict):
            return [sub for sub in value.values() if isinstance(sub, dict | bool)]
        return []

    def _add(self, units: int) -> None:
        self.total += units
        if self.total > MAX_EXPANDED_WEIGHT:
            raise _refuse(f"the schema is larger than {MAX_EXPANDED_WEIGHT:,} units with every $ref expanded "
                          "(each subschema, keyword, enum member and required name counts one)")

    def _ref(self, ref: Any, depth: int) -> None:
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            raise _refuse(f"$ref {str(ref)[:80]!r} cannot be resolved here: it must point inside the schema ('#/...')")
        if ref in self.open:
            raise _refuse(f"$ref {ref[:80]!r} refers back to itself (a $ref loop: recursive schemas are not supported)")
        if ref in self.done:
            self._add(self.done[ref])
            return
        self.open.add(ref)
        before = self.total
        self.weight(_resolve(self.root, ref), depth + 1)
        self.open.discard(ref)
        self.done[ref] = self.total - before

    @staticmethod
    def _check_patterns(patterns: Any) -> None:
        for pattern in patterns if isinstance(patterns, list) else [patterns]:
            if isinstance(pattern, str) and len(pattern) > MAX_PATTERN_CHARS:
                raise _refuse(f"a pattern is longer than {MAX_PATTERN_CHARS:,} characters")


def _resolve(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref[2:].split("/") if ref != "#" else []:
        key = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            raise _refuse(f"$ref {ref[:80]!r} points at nothing in the schema")
    return node
