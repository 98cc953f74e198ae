"""The model key stays out of everything a user, an auditor or an operator reads (issue 10): after a
conversation of this test's own has called the OpenAI-protocol stub with the key in the app's
environment (and any that earlier tests ran), it is in no byte of the database, no line of the
server's log, no API answer and no rendered page."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.sync_api import Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.conftest import OPENAI_KEY
from tests.e2e.support import api_token, make_user, sign_in, start, wait_for
from tests.support.openai_stub import OpenAIStub


def test_the_model_key_is_nowhere(app_server: RunningApp, page: Page, openai_stub: OpenAIStub) -> None:
    # Its own call to the endpoint, whatever ran before: the planner routed to the stub, with the key.
    starter = make_user(app_server, "security_reviewer", prefix="secrets-starter")
    calls_before = len(openai_stub.requests)
    openai_stub.enqueue("Plan: add the retry, then a test.")
    start(app_server, starter, "Add retry with backoff to the ledger client",
          model_routing={"planner": {"provider": "openai"}})
    wait_for(lambda: len(openai_stub.requests) > calls_before, timeout=60, what="the planner's call to the stub")
    with UnitOfWork(app_server.engine) as uow:
        routed = [c.id for c in uow.session.exec(select(Conversation)).all() if c.model_routing]
    assert routed and openai_stub.requests, "no conversation used the OpenAI endpoint: nothing to check"

    # The database file and its write-ahead log (read as bytes: a checkpoint would contend with the app).
    database = Path(app_server.engine.url.database)
    for part in (database, database.with_name(database.name + "-wal")):
        assert not part.exists() or OPENAI_KEY.encode() not in part.read_bytes(), part
    assert OPENAI_KEY not in app_server.log_path.read_text(errors="replace")

    admin = make_user(app_server, "admin", prefix="secrets-admin")
    auth = {"Authorization": f"Bearer {api_token(app_server, admin)}"}
    answers = []
    # The instance admin acts in every workspace: its API calls name the one they mean.
    with httpx.Client(base_url=app_server.base_url, headers=auth, params={"workspace": "default"},
                      timeout=30) as client:
        paths = ["/api/teams", "/api/teams/code", "/api/teams/auto/versions", "/api/conversations?limit=200",
                 "/api/audit", "/api/health"]
        for cid in routed:
            paths += [f"/api/conversations/{cid}", f"/api/conversations/{cid}/transcript",
                      f"/api/conversations/{cid}/export?format=json"]
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code, response.text[:200])
            answers.append(response.text)
    assert not [a for a in answers if OPENAI_KEY in a]

    sign_in(page, app_server, admin)
    for path in [f"/conversations/{cid}" for cid in routed[:3]] + ["/admin/teams?team=code", "/audit", "/new"]:
        page.goto(app_server.base_url + path)
        expect(page.locator("main")).to_be_visible()
        page.wait_for_load_state("networkidle")
        assert OPENAI_KEY not in page.content(), path
