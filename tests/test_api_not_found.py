"""An /api path that no route pattern can match (a line break in it) is answered in JSON, as every
other /api 404, by the outermost app's wrapper; other answers pass through unchanged."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from hitl_dashboard.api.not_found import ApiNotFoundAsJson


def _inner(request):  # noqa: ANN001, ANN202
    return PlainTextResponse("inner page")


def _outer() -> Starlette:
    # Like Reflex's outermost app: everything mounted at "", whose pattern stops at a line break.
    return Starlette(routes=[Mount("", routes=[Route("/{path:path}", _inner)])])


def test_an_unmatchable_api_path_gets_a_json_404_and_the_rest_passes_through():
    plain = TestClient(_outer())
    wrapped = TestClient(ApiNotFoundAsJson(_outer()))
    assert plain.get("/api/teams/a%0Ab").headers["content-type"].startswith("text/plain")  # the old answer
    answer = wrapped.get("/api/teams/a%0Ab")
    assert answer.status_code == 404 and answer.json() == {"detail": "no API endpoint at this path"}
    assert wrapped.get("/api/teams/ab").text == "inner page"
    page = wrapped.get("/conversations/a%0Ab")  # not the API: the frontend's own answer, unchanged
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/plain")
