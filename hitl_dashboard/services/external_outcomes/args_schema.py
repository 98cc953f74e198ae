"""The caller's JSON schema for a tool call's arguments: checked when the request comes in, and
every argument edit a reviewer makes is validated against it before it can be approved.

The validator is jsonschema-rs (compiled, Draft 2020-12), with patterns on its linear-time engine
(no look-around or back-references: a pattern cannot backtrack for ever). Its cost is bounded by
structure before anything is compiled (domain/schema_cost.py), and a schema is compiled once: the
compiled validator is kept, keyed by the schema's hash, for the next request, replay or edit."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import jsonschema_rs
from sqlmodel import Session, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.hashing import canonical_json, content_hash
from hitl_dashboard.domain.schema_cost import check_work, expanded_weight, json_values
from hitl_dashboard.domain.text_cuts import cut_visibly

PROBLEM_CHARS = 300  # one problem's text in an answer: the caller's own values are cut, visibly
MAX_PROBLEMS = 10
LIST_PROBLEMS_WORK = 2_000  # schema weight x argument values up to which every problem is listed
CACHED_SCHEMAS = 256
# Linear-time regex engine, and a cap on what one pattern may compile to.
PATTERNS = jsonschema_rs.RegexOptions(size_limit=1 << 20, dfa_size_limit=1 << 20)


@dataclass(frozen=True)
class CompiledSchema:
    validator: jsonschema_rs.Validator
    weight: int  # domain/schema_cost.expanded_weight


_cache: OrderedDict[str, CompiledSchema] = OrderedDict()
_lock = threading.Lock()


def _no_download(uri: str) -> Any:
    # A remote $ref would make the server request any URL; schema_cost refuses them first anyway.
    raise ValueError(f"references outside the schema are not followed ({uri[:80]})")


def compiled(schema: dict[str, Any]) -> CompiledSchema:
    """The schema checked and compiled, once per distinct schema (a bounded cache); InvalidInput
    (args_schema) for an invalid schema or one over the limits."""
    key = content_hash(canonical_json(schema))
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    if schema.get("type", "object") != "object":
        raise InvalidInput("args_schema must describe a JSON object (type: object)", "args_schema")
    weight = expanded_weight(schema)
    try:
        validator = jsonschema_rs.Draft202012Validator(schema, retriever=_no_download, pattern_options=PATTERNS)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        problem = exc.message if isinstance(exc, jsonschema_rs.ValidationError) else str(exc)
        raise InvalidInput(f"args_schema is not a valid JSON Schema: {_cut(problem)}", "args_schema") from None
    made = CompiledSchema(validator, weight)
    with _lock:
        _cache[key] = made
        while len(_cache) > CACHED_SCHEMAS:
            _cache.popitem(last=False)
    return made


def check_schema(schema: dict[str, Any]) -> None:
    """A schema that is itself invalid is refused (422), so no edit is ever checked against nonsense.
    Remote references are not followed."""
    compiled(schema)


def validate_args(schema: dict[str, Any] | None, arguments: Any, field: str = "edited_args") -> dict[str, Any]:
    """The arguments, if they are an object the schema accepts; InvalidInput says what is wrong."""
    if not isinstance(arguments, dict):
        raise InvalidInput("tool arguments must be a JSON object", field)
    if schema is None:
        return arguments
    made = compiled(schema)
    check_work(made.weight, arguments, field)
    if made.validator.is_valid(arguments):
        return arguments
    # Listing every problem costs microseconds per problem (jsonschema-rs builds them all): only for
    # small checks; otherwise the first problem, found as cheaply as the check itself.
    if made.weight * json_values(arguments) <= LIST_PROBLEMS_WORK:
        errors = sorted(made.validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.instance_path])
    else:
        try:
            made.validator.validate(arguments)
            errors = []
        except jsonschema_rs.ValidationError as error:
            errors = [error]
    raise InvalidInput("arguments do not match the tool's schema: " + "; ".join(
        _describe(e) for e in errors[:MAX_PROBLEMS]), field)


def _describe(error: jsonschema_rs.ValidationError) -> str:
    where = ".".join(str(p) for p in error.instance_path) or "arguments"
    keyword = str(error.schema_path[-1]) if error.schema_path else "schema"
    return f"{where} (fails {keyword}): {_cut(error.message)}"  # the keyword first: the message may be cut


def _cut(text: str) -> str:
    return cut_visibly(" ".join(text.split()), PROBLEM_CHARS)


def validate_external_edit(session: Session, conversation_id: int, arguments: Any) -> dict[str, Any]:
    """Step: a reviewer's edit of an external tool call, against the schema its caller sent."""
    row = session.exec(select(ExternalRequest).where(ExternalRequest.conversation_id == conversation_id)).first()
    return validate_args(row.args_schema if row is not None else None, arguments)
