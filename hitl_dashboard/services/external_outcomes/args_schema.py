"""The caller's JSON schema for a tool call's arguments: checked when the request comes in, and
every argument edit a reviewer makes is validated against it before it can be approved."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from sqlmodel import Session, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.domain.errors import InvalidInput

MAX_PROBLEMS = 10


def _no_download(uri: str) -> Resource:
    # jsonschema would fetch a remote $ref over the network: a caller could make the server
    # request any URL. Only references inside the schema itself resolve.
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class mypy's plugin does not see


_LOCAL_ONLY: Registry = Registry(retrieve=_no_download)  # type: ignore[call-arg]


def check_schema(schema: dict[str, Any]) -> None:
    """A schema that is itself invalid is refused (422), so no edit is ever checked against nonsense.
    Remote references are not followed: the validator has no retriever, and none may download."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise InvalidInput(f"args_schema is not a valid JSON Schema: {exc.message}", "args_schema") from None
    if schema.get("type", "object") != "object":
        raise InvalidInput("args_schema must describe a JSON object (type: object)", "args_schema")


def validate_args(schema: dict[str, Any] | None, arguments: Any, field: str = "edited_args") -> dict[str, Any]:
    """The arguments, if they are an object the schema accepts; InvalidInput lists what is wrong."""
    if not isinstance(arguments, dict):
        raise InvalidInput("tool arguments must be a JSON object", field)
    if schema is None:
        return arguments
    try:
        errors = sorted(Draft202012Validator(schema, registry=_LOCAL_ONLY).iter_errors(arguments),
                        key=lambda e: [str(p) for p in e.absolute_path])
    except Unresolvable as exc:
        raise InvalidInput(f"the tool's schema has a reference that cannot be resolved here: {exc}"[:300],
                           field) from None
    except RecursionError:  # a $ref that refers to itself
        raise InvalidInput("the tool's schema refers to itself without end ($ref loop)", field) from None
    if errors:
        raise InvalidInput("arguments do not match the tool's schema: " + "; ".join(
            _describe(e) for e in errors[:MAX_PROBLEMS]), field)
    return arguments


def _describe(error: ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "arguments"
    return f"{where}: {error.message[:200]}"


def validate_external_edit(session: Session, conversation_id: int, arguments: Any) -> dict[str, Any]:
    """Step: a reviewer's edit of an external tool call, against the schema its caller sent."""
    row = session.exec(select(ExternalRequest).where(ExternalRequest.conversation_id == conversation_id)).first()
    return validate_args(row.args_schema if row is not None else None, arguments)
