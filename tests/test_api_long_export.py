"""A long conversation's Markdown download is streamed, the transcript read a page at a time
(issue 33): every message once and in order, across page boundaries, the same document as the
JSON export, which reads it in one go."""

from __future__ import annotations

import re

import pytest

from hitl_dashboard.services.conversations.conversation_queries import TRANSCRIPT_PAGE
from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review
from tests.support.long_conversation import grow

pytestmark = pytest.mark.e2e


def test_the_markdown_export_streams_a_long_transcript_whole_and_in_order(api_app: ApiApp) -> None:
    _, token = api_app.user(["security_reviewer"])
    client = api_app.client(token)
    cid = start(client)
    wait_for_review(client, cid)
    seqs = grow(api_app.running.engine, cid, 2 * TRANSCRIPT_PAGE + 7)  # three pages of the reader

    with client.stream("GET", f"/api/conversations/{cid}/export", params={"format": "markdown"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/markdown")
        assert "content-length" not in response.headers  # sent as it is read, not built first
        body = "".join(response.iter_text())

    shown = [int(n) for n in re.findall(r"^### Message (\d+):", body, flags=re.MULTILINE)]
    assert shown == seqs, (len(shown), len(seqs))  # each once, in order, across the reader's pages
    assert f"**Message {seqs[-1]}.**" in body  # with its text
    # The JSON export reads it in one go: the same messages.
    document = client.get(f"/api/conversations/{cid}/export", params={"format": "json"}).json()
    assert [m["seq"] for m in document["messages"]] == seqs
    # The revisions follow the transcript (their names escaped as Markdown text: app\/ledger\_tables\.py).
    assert re.search(r"^### app.+ledger.+tables.+py r2$", body, flags=re.MULTILINE)
