"""Every /api route that needs a caller answers an anonymous request 401 before its body or its
parameters are looked at: no 400/413/422 that tells a stranger about the body, and no large body
parsed for one. The routes come from the app itself, so a route added later is covered, and one
added without authentication fails here unless it is named public below."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from hitl_dashboard.api.deps import any_scope_actor, current_actor
from hitl_dashboard.services.auth.browser_sign_ins import SIGN_IN_COOKIE
from tests.support.in_process_api import in_process_api

BODY_LIMIT = 2048
# Open by design: the probe, the documentation, Slack (which signs its requests), and the answer
# for paths no route serves (a 404 that names nothing).
PUBLIC = {
    ("GET", "/api/health"), ("POST", "/api/slack/interactions"), ("GET", "/api/docs"),
    ("GET", "/api/docs/oauth2-redirect"), ("GET", "/api/openapi.json"), ("GET", "/api/docs-assets/{path}"),
    ("*", "/api/{path}"),
}
MALFORMED = b'{"task": "x", "task": '  # a key given twice, and cut off


def api_routes(client: TestClient) -> Iterator[tuple[str, str, object]]:
    """(method, path template, route) for every route the app serves under /api/."""
    for entry in client.app.routes:  # type: ignore[attr-defined]
        for context in getattr(entry, "effective_route_contexts", lambda e=entry: [e])():
            path = getattr(context, "path_format", "")
            if not path.startswith("/api/"):
                continue
            route = getattr(context, "original_route", context)
            methods = getattr(context, "methods", None) or {"GET"}
            if len(methods) > 5:  # the fallback answers every method
                methods = {"*"}
            for method in sorted(methods - {"HEAD"}):
                yield method, path, route


def needs_caller(route: object) -> bool:
    def calls(dependant) -> Iterator[object]:
        for dependency in dependant.dependencies:
            yield dependency.call
            yield from calls(dependency)

    return isinstance(route, APIRoute) and any(c in (current_actor, any_scope_actor) for c in calls(route.dependant))


@pytest.fixture
def client(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    with in_process_api(monkeypatch, {"API_MAX_BODY_BYTES": str(BODY_LIMIT)}) as test_client:
        yield test_client


def test_every_api_route_is_public_by_name_or_needs_a_caller(client: TestClient) -> None:
    routes = list(api_routes(client))
    assert len(routes) > 40  # the enumeration found the included routers, not just the app's own routes
    unguarded = {(method, path) for method, path, route in routes if not needs_caller(route)}
    assert unguarded == PUBLIC


@pytest.mark.parametrize("credential", [{}, {"Authorization": "Bearer not-a-token"},
                                        {"Cookie": f"{SIGN_IN_COOKIE}=not-a-sign-in"}],
                         ids=["anonymous", "unknown-token", "unknown-cookie"])
def test_anonymous_requests_get_401_whatever_their_body(client: TestClient, credential: dict) -> None:
    wrong: dict[str, list[str]] = {}
    for method, path, route in api_routes(client):
        if not needs_caller(route):
            continue
        url = re.sub(r"\{[^}]+\}", "not-an-id", path) + "?limit=many&offset=-5"
        for kind, body in (("malformed", MALFORMED), ("oversized", b"[" + b"1," * BODY_LIMIT + b"1]")):
            response = client.request(method, url, content=body,
                                      headers={"Content-Type": "application/json", **credential})
            if response.status_code != 401 or "detail" not in response.json():
                wrong.setdefault(f"{response.status_code} {response.text[:60]}", []).append(f"{method} {path} {kind}")
    assert not wrong, wrong
