"""An AG-UI stream opened with the browser's sign-in cookie (issue 45) lasts as a token's stream does and
ends when the sign-in ends. Over real HTTP (the API served in this process by uvicorn, on SQLite), with
the re-check interval at 0.2 s instead of 10 s: two seconds open are ten re-checks, the same code path
as 100 s at the real interval (before the fix, the first re-check read an empty token and ended it)."""

from __future__ import annotations

import time

import httpx

from hitl_dashboard.api.routes import ag_ui
from hitl_dashboard.services.auth.browser_sign_ins import SIGN_IN_COOKIE, open_sign_in, sign_out
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.settings import reset_settings_cache
from tests.support import flow
from tests.test_external_client import served  # noqa: F401

RECHECK_S = 0.2
OPEN_S = 2.0  # ten re-checks


def test_a_cookie_stream_outlives_its_rechecks_and_ends_with_the_sign_in(served, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setattr(ag_ui, "RECHECK_TOKEN_S", RECHECK_S)
    monkeypatch.setattr(ag_ui, "KEEPALIVE_S", RECHECK_S)  # a line at each pass: the client sees it is open
    monkeypatch.setenv("AG_UI_POLL_SECONDS", "0.05")
    reset_settings_cache()
    flow.make_people()
    conversation_id = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()  # waiting for its security review: the stream stays open
    with transaction() as uow:
        cookie = open_sign_in(uow, flow.actor("alice"), address="127.0.0.1", method="password")
    lines: list[str] = []
    with httpx.Client(base_url=served, cookies={SIGN_IN_COOKIE: cookie}, timeout=10) as client, \
            client.stream("GET", f"/api/conversations/{conversation_id}/ag-ui") as response:
        assert response.status_code == 200, response.read()
        started, signed_out_at = time.monotonic(), None
        for line in response.iter_lines():
            lines.append(line)
            if signed_out_at is None and time.monotonic() - started >= OPEN_S:
                signed_out_at = time.monotonic()
                sign_out(cookie)
        ended_at = time.monotonic()
    assert signed_out_at is not None, f"the stream ended after {ended_at - started:.1f} s, while signed in"
    assert ended_at - signed_out_at < 5  # ended by the sign-out (within a re-check), not by the read timeout
    assert any("RUN_STARTED" in line for line in lines) and lines.count(": keep-alive") >= 5
