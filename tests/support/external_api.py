"""Helpers for the external approval tests: callers and reviewers with tokens, made through the
services in the test's database, and a tool-call request body."""

from __future__ import annotations

import uuid
from typing import Any

from hitl_dashboard.services.auth.tokens import create_token
from hitl_dashboard.services.auth.users import create_user


def person(roles: list[str], *, scope: str = "full", name: str = "") -> tuple[str, str]:
    """A new user with these roles and an API token of this scope: (username, token)."""
    username = f"{name or (roles[0] if roles else 'bot').split('_')[0]}-{uuid.uuid4().hex[:8]}"
    user = create_user(username=username, password="pw-" + username, roles=roles)
    assert user.id is not None
    _, token = create_token(user_id=user.id, name=f"{username}'s script", scope=scope)
    return username, token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def tool_request(request_id: str, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "request_id": request_id, "team": "ops", "title": "Deploy billing 2.4.1",
        "tool_call": {"name": "deploy", "arguments": {"service": "billing", "version": "2.4.1", "replicas": 2},
                      "args_schema": DEPLOY_SCHEMA},
        "link": "https://ci.example.com/runs/42", "context": "Nightly **release**. <script>alert(1)</script>",
    }
    body.update(overrides)
    return body


DEPLOY_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["service", "version"],
    "properties": {"service": {"type": "string", "enum": ["billing", "search"]},
                   "version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+$"},
                   "replicas": {"type": "integer", "minimum": 1, "maximum": 5}},
}
