"""The cost of a caller's args_schema is bounded by structure (issue 45), over the real API in process
on SQLite: the $ref bomb and other schemas over the limits are refused with a clear error, uniqueItems
over thousands of objects is checked at once, a replay is answered before anything is validated, a
schema is compiled once for its request, replay and edits, and an invalid schema's error is cut."""

from __future__ import annotations

import time

import pytest

from hitl_dashboard.domain import schema_cost
from hitl_dashboard.services.external_outcomes import args_schema
from tests.support.external_api import bearer, tool_request
from tests.test_external_approvals_api import _ask, _decide, sqlite_only

pytest_plugins = ["tests.test_external_approvals_api"]  # its api, caller and security fixtures

pytestmark = sqlite_only


def _tool(request_id: str, arguments: dict, schema: dict) -> dict:
    return tool_request(request_id, tool_call={"name": "deploy", "arguments": arguments, "args_schema": schema})


def ref_bomb(levels: int) -> dict:
    """Each definition refers twice to the next: 2**levels subschemas once expanded (the issue's 1.3 KB)."""
    defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(levels)}
    return {"type": "object", "$ref": "#/$defs/d0", "$defs": {**defs, f"d{levels}": {"type": "object"}}}


@pytest.mark.parametrize(("shape", "schema", "arguments", "said"), [
    ("$ref bomb", ref_bomb(18), {}, "with every $ref expanded"),
    ("pattern too long", {"type": "object", "properties": {"a": {"type": "string", "pattern": "a?" * 600}}},
     {"a": "a"}, "pattern is longer than"),
    ("wide schema x many values", {"type": "object", "properties": {"a": {"type": "array", "items": {
        "anyOf": [{"type": "string", "minLength": n} for n in range(400)]}}}}, {"a": [0] * 9000}, "more work"),
    ("look-around pattern", {"type": "object", "properties": {"a": {"pattern": "^(?=a)a$"}}}, {"a": "a"},
     "not a valid JSON Schema"),
])
def test_a_schema_over_the_limits_is_refused_saying_which(api, caller, shape, schema, arguments, said):
    _, token = caller
    response = _ask(api, token, _tool(f"limit-{shape.replace(' ', '-')}", arguments, schema))
    assert response.status_code == 422 and said in response.json()["detail"][0]["msg"], response.text


def test_unique_items_over_4000_objects_is_checked_at_once(api, caller):
    _, token = caller
    schema = {"type": "object", "properties": {"rows": {"type": "array", "uniqueItems": True}}}
    rows = [{"k": n} for n in range(4000)]  # 4,000 distinct objects, about 50 KB as in the issue
    started = time.monotonic()
    accepted = _ask(api, token, _tool("unique-ok", {"rows": rows}, schema))
    refused = _ask(api, token, _tool("unique-dup", {"rows": [*rows, rows[0]]}, schema))
    assert time.monotonic() - started < 5  # was 14 s for one request (pure-Python uniqueItems)
    assert accepted.status_code == 201, accepted.text
    assert refused.status_code == 422 and "rows (fails uniqueItems)" in refused.text


def test_a_replay_is_answered_before_its_schema_is_checked_and_a_schema_is_compiled_once(api, caller, security,
                                                                                         monkeypatch):
    _, token = caller
    _, reviewer = security
    compiled: list[dict] = []
    real = args_schema.jsonschema_rs.Draft202012Validator

    def counting(schema, **options):
        compiled.append(schema)
        return real(schema, **options)

    monkeypatch.setattr(args_schema.jsonschema_rs, "Draft202012Validator", counting)
    schema = {"type": "object", "required": ["service"], "properties": {"service": {"enum": ["billing", "mail"]},
                                                                        "note": {"type": "string", "maxLength": 91}}}
    body = _tool("compiled-once", {"service": "billing"}, schema)
    first = _ask(api, token, body)
    assert first.status_code == 201, first.text
    # The operator tightens the limits: the replay still gets its review (found before any check)...
    monkeypatch.setattr(schema_cost, "MAX_EXPANDED_WEIGHT", 1)
    replay = _ask(api, token, body)
    assert (replay.status_code, replay.json()["id"]) == (200, first.json()["id"]), replay.text
    monkeypatch.undo()
    monkeypatch.setattr(args_schema.jsonschema_rs, "Draft202012Validator", counting)
    review = first.json()["review_id"]
    assert _decide(api, reviewer, review, action="approve", edited_args={"service": "ftp"}).status_code == 422
    assert _decide(api, reviewer, review, action="approve", edited_args={"service": "mail"}).status_code == 200
    # ...and the request, its replay and both edits compiled the schema once.
    assert compiled == [schema]
    outcome = api.get(f"/api/external/approvals/{first.json()['id']}", headers=bearer(token)).json()
    assert outcome["arguments"] == {"service": "mail"}


def test_an_invalid_schema_error_cuts_the_callers_value_visibly(api, caller):
    _, token = caller
    schema = {"type": "object", "properties": {"a": {"type": "string", "minLength": "x" * 60_000}}}
    response = _ask(api, token, _tool("cut-1", {}, schema))
    message = response.json()["detail"][0]["msg"]
    assert response.status_code == 422 and "not a valid JSON Schema" in message
    assert len(response.content) < 1_000 and "more characters]" in message
