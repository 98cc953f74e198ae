"""Live from every entry point (issue 32): a claim, release or decision made outside the browser
shows on the pages already open, within 1 s, as a browser's own actions do.

The CLI runs as a process of its own here: the process boundary is the subject (with no Redis, its
changes reach the web worker through the database's live_changes, services/live/live_database.py).
The HTTP API is served by the web worker itself, so its decisions are pushed in-process."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
from playwright.sync_api import Browser, expect

from tests.e2e.app_process import ROOT, RunningApp
from tests.e2e.support import api_token, make_user, sign_in, waiting_for_security_review

LIVE_WITHIN_MS = 1_000


def _cli(app: RunningApp, *args: str) -> None:
    """`python -m hitl_dashboard ...` against the app's database, as an operator beside it runs it."""
    env = {**os.environ, "DATABASE_URL": app.database_url}
    env.pop("REDIS_URL", None)  # the embedded setup, as the app's
    result = subprocess.run([sys.executable, "-m", "hitl_dashboard", *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"CLI {args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"


def test_a_cli_claim_and_release_show_on_an_open_queue_page(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="clilive")
    title = "Add a circuit breaker to the CLI-claimed payment client"
    review = waiting_for_security_review(app_server, title).review

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    row = page.locator(".queue-row").filter(has_text=title)
    expect(row.locator(".claim-button")).to_be_visible(timeout=30_000)

    _cli(app_server, "claim", str(review.id), "--as", reviewer)  # returns after its commit
    expect(row.locator(".assignee")).to_have_text(reviewer, timeout=LIVE_WITHIN_MS)
    expect(row.locator(".claim-button")).to_have_count(0, timeout=LIVE_WITHIN_MS)

    _cli(app_server, "release", str(review.id), "--as", reviewer)
    expect(row.locator(".claim-button")).to_be_visible(timeout=LIVE_WITHIN_MS)


def test_an_api_decision_shows_on_an_open_conversation_page(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="apilive")
    waiting = waiting_for_security_review(app_server, "Add request signing to the API-approved webhook sender")
    cid, review = waiting.cid, waiting.review

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    banner = page.locator("#status-banner")
    expect(banner).to_contain_text("Waiting for security review", timeout=30_000)

    headers = {"Authorization": f"Bearer {api_token(app_server, reviewer)}"}
    response = httpx.post(f"{app_server.base_url}/api/reviews/{review.id}/decision", headers=headers,
                          json={"action": "approve", "reason": "signed and checked"}, timeout=30)
    assert response.status_code == 200, response.text
    assert response.json()["conversation_status"] == "awaiting_review"  # the next sign-off's turn
    expect(banner).not_to_contain_text("security review", timeout=LIVE_WITHIN_MS)
    expect(banner).to_contain_text("Waiting for", timeout=LIVE_WITHIN_MS)
