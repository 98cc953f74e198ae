"""The schemathesis runner of the API fuzz test tells "schemathesis broke" from "the API broke",
naming the operation, from the real CLI's reports (a real server on a free port, a real schema)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.fuzzing import id_dictionaries, run_schemathesis

OK = {"200": {"description": "ok"}}
SCHEMA = {
    "openapi": "3.0.3",
    "info": {"title": "probe", "version": "1"},
    "paths": {
        "/broken": {"get": {"responses": OK}},  # the server answers 500: a bug in the API
        "/things/{thing_id}": {"get": {"parameters": [
            {"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}],
            "responses": OK}},
        # A schema schemathesis cannot use: it errors on this operation instead of testing it.
        "/unusable": {"get": {"parameters": [
            {"name": "q", "in": "query", "required": True, "schema": {"$ref": "#/components/schemas/Missing"}}],
            "responses": OK}},
    },
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        body = b"{}"
        self.send_response(500 if self.path.startswith("/broken") else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


def test_runtime_errors_and_api_failures_are_told_apart_by_operation(server_url: str, tmp_path: Path) -> None:
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(SCHEMA))
    config = id_dictionaries(tmp_path / "schemathesis.toml", {"thing_id": [424242]}, probability=1.0)
    run = run_schemathesis(str(schema), [
        "--url", server_url, "--checks", "not_a_server_error", "--phases", "fuzzing",
        "--max-examples", "5", "--workers", "1", "--seed", "1", "--no-color", "--mode", "positive",
    ], config=config, workdir=tmp_path, timeout_s=120)

    assert run.returncode != 0
    assert [e.operation for e in run.errors] == ["GET /unusable"]
    assert "Unresolvable reference" in run.errors[0].text
    assert [f.operation for f in run.failures] == ["GET /broken"]
    assert "Server error" in run.failures[0].text
    problems = run.problems()
    assert "schemathesis itself failed" in problems and "- GET /unusable: Schema Error" in problems
    assert "found the API breaking its contract" in problems and "- GET /broken:" in problems
    # The HAR report lists the requests: with probability 1 every valid one used the seeded id.
    seeded = run.statuses("GET", "/things/424242")
    assert seeded[200] > 0 and seeded == run.statuses("GET", "/things/[^/]*")
    assert run.statuses("GET", "/broken")[500] >= 1


def test_a_clean_run_reports_no_problems(server_url: str, tmp_path: Path) -> None:
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps({**SCHEMA, "paths": {"/things/{thing_id}": SCHEMA["paths"]["/things/{thing_id}"]}}))
    config = id_dictionaries(tmp_path / "schemathesis.toml", {"thing_id": [7]}, probability=0.5)
    run = run_schemathesis(str(schema), [
        "--url", server_url, "--checks", "not_a_server_error", "--phases", "fuzzing",
        "--max-examples", "20", "--workers", "1", "--seed", "1", "--no-color",
    ], config=config, workdir=tmp_path, timeout_s=120)

    assert run.problems() is None, run.stdout
    assert run.returncode == 0
    seeded = run.statuses("GET", "/things/7")[200]
    assert 0 < seeded < len(run.exchanges), "about half the cases should use the seeded id"
