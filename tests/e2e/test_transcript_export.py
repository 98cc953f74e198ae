"""The conversation page's transcript downloads and message links, in Chromium; and the same export
over the HTTP API. The downloaded Markdown, rendered with raw HTML allowed, runs none of the agent's payloads."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from markdown_it import MarkdownIt
from playwright.sync_api import Page, expect

from hitl_dashboard.db.models import Conversation, Message
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, sign_in, waiting_for_security_review
from tests.support.long_conversation import grow

PAYLOAD = ("<img src=x onerror=\"window.__xss = 1\"> ``` <script>window.__xss = 2</script> "
           "[x](javascript:window.__xss=3)")


def _agent_says(app: RunningApp, conversation_id: int, text: str) -> int:
    with UnitOfWork(app.engine) as uow:
        c = uow.session.get(Conversation, conversation_id)
        uow.session.add(Message(conversation_id=conversation_id, workspace_id=c.workspace_id, seq=c.next_seq,
                                source="coder", kind="text", content=text))
        c.next_seq += 1
        uow.commit()
        return c.next_seq - 1



def test_download_the_transcript_and_link_to_a_message(app_server: RunningApp, page: Page):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    cid = waiting_for_security_review(app_server, "Add a health check endpoint <script>window.__xss = 4</script>").cid
    seq = _agent_says(app_server, cid, PAYLOAD)

    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}#message-{seq}")
    linked = page.locator(f"#message-{seq}")
    expect(linked).to_have_class(re.compile(r"\blinked-message\b"))  # found once it arrived, and scrolled to
    expect(linked.locator(".message-link")).to_have_attribute("href", re.compile(rf"#message-{seq}$"))

    with page.expect_download() as download:
        page.click("#download-transcript-markdown")
    assert download.value.suggested_filename == f"conversation-{cid}.md"
    markdown = Path(download.value.path()).read_text(encoding="utf-8")
    assert f'<a id="message-{seq}"></a>' in markdown and "## Code revisions" in markdown

    # Rendered with raw HTML allowed, in a real browser: the payloads show as text and run nothing.
    page.set_content(MarkdownIt("commonmark", {"html": True}).render(markdown))
    expect(page.locator("body")).to_contain_text(PAYLOAD)
    assert page.evaluate("window.__xss") is None
    assert page.locator("img, script, iframe").count() == 0

    with page.expect_download() as download:
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        page.click("#download-transcript-json")
    assert download.value.suggested_filename == f"conversation-{cid}.json"


def test_a_link_to_a_message_older_than_the_loaded_window_loads_it_and_scrolls_to_it(app_server: RunningApp,
                                                                                    page: Page):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    cid = waiting_for_security_review(app_server, "Add a liveness probe").cid
    grow(app_server.engine, cid, 150, with_file=False)  # message 2 is pages before the page's window

    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}#message-2")
    linked = page.locator("#message-2")
    expect(linked).to_have_class(re.compile(r"\blinked-message\b"), timeout=30_000)
    expect(linked).to_be_in_viewport()
    expect(linked).to_have_attribute("data-source", "planner")


def test_the_api_exports_json_and_markdown(app_server: RunningApp):
    reader = make_user(app_server, "security_reviewer", prefix="api")
    manager = make_user(app_server, "manager", prefix="mgr")
    cid = waiting_for_security_review(app_server, "Add a readiness probe").cid
    with httpx.Client(base_url=app_server.base_url, timeout=30) as client:
        auth = {"Authorization": f"Bearer {api_token(app_server, reader)}"}
        response = client.get(f"/api/conversations/{cid}/export", params={"format": "json"}, headers=auth)
        assert response.status_code == 200, response.text
        assert response.headers["content-disposition"] == f'attachment; filename="conversation-{cid}.json"'
        doc = response.json()
        assert doc["conversation"]["id"] == cid and doc["audit_events"] is None
        assert [m["source"] for m in doc["messages"]][:2] == [doc["conversation"]["initiator"], "planner"]
        assert doc["messages"][0]["url"].endswith(f"/conversations/{cid}#message-1")

        manager_auth = {"Authorization": f"Bearer {api_token(app_server, manager)}"}
        markdown = client.get(f"/api/conversations/{cid}/export", headers=manager_auth)
        assert markdown.headers["content-type"].startswith("text/markdown")
        assert "## Audit events" in markdown.text and "conversation.started" in markdown.text.replace("\\", "")
        assert client.get("/api/conversations/999999/export", headers=auth).status_code == 404
        assert client.get(f"/api/conversations/{cid}/export", params={"format": "html"},
                          headers=auth).status_code == 422
        assert client.get(f"/api/conversations/{cid}/export").status_code == 401
        assert response.headers["x-request-id"]  # the id our log lines carry

        # /metrics beside the API on the app's one port (demo mode: no token needed).
        metrics = client.get("/metrics")
        assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain")
        assert 'hitl_review_queue_depth{role="security_reviewer"}' in metrics.text
