"""Whole conversations through autogen-ext's real OpenAI client, against an OpenAI-protocol
server on 127.0.0.1; model faults end as a visible failure that an admin can retry."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import Conflict, PermissionDenied
from hitl_dashboard.services.conversations.conversations import retry_conversation
from hitl_dashboard.settings import reset_settings_cache
from tests.support import flow
from tests.support.openai_stub import ErrorReply, GarbageReply, HangReply, OpenAIStub

PLAN = "TASK TYPE: code\n1. Write the client.\n2. Test it.\nCONFIDENCE: 0.9"
CODE_V1 = "```python\n# file: app/client.py\ndef fetch(url):\n    return get(url)\n```\nReady for review."
CODE_V2 = ("```python\n# file: app/client.py\ndef fetch(url, timeout=5):\n    return get(url, timeout=timeout)\n```\n"
           "Ready for review.")


@pytest.fixture
def stub(monkeypatch):
    with OpenAIStub() as server:
        monkeypatch.setenv("MODEL_PROVIDER", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("MODEL_TIMEOUT_S", "1.0")
        monkeypatch.setenv("MODEL_MAX_RETRIES", "3")
        monkeypatch.setenv("MODEL_RETRY_BASE_S", "0.01")
        reset_settings_cache()
        yield server
    reset_settings_cache()


def prompt_text(request_body: dict) -> str:
    return "\n".join(str(m.get("content")) for m in request_body["messages"])


@pytest.mark.parametrize("streaming", [True, False], ids=["streaming", "plain"])
def test_whole_review_through_a_real_openai_endpoint(db_url, stub, monkeypatch, streaming):
    monkeypatch.setenv("MODEL_STREAM", str(streaming).lower())
    reset_settings_cache()
    flow.make_people()
    stub.enqueue(PLAN, CODE_V1)
    cid = flow.start("Write an HTTP client for the rates service")
    flow.work()
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner", "coder"]
    assert all(r.get("stream", False) is streaming for r in stub.requests)
    conversation = flow.conversation(cid)
    assert conversation.prompt_tokens > 0 and conversation.completion_tokens > 0  # usage was reported

    review = flow.only_open_review(cid)
    flow.decide_as("alice", review.id, "revise", instructions="pass a timeout to every request",
                   target_agent="coder")
    stub.enqueue(CODE_V2)
    flow.work()
    # The coder's resumed model call saw the whole history and the reviewer's instructions.
    seen = prompt_text(stub.requests[-1])
    for expected in ("Write an HTTP client for the rates service", "1. Write the client.", "def fetch(url):",
                     "pass a timeout to every request"):
        assert expected in seen
    revisions = [r.number for r in flow.detail(cid).revisions]
    assert revisions == [1, 2]
    flow.decide_as("alice", flow.only_open_review(cid).id, "approve")
    flow.decide_as("carol", flow.only_open_review(cid).id, "approve")
    assert flow.conversation(cid).status == "approved"


@pytest.mark.parametrize("fault, words", [
    (ErrorReply(500), "500"),
    (HangReply(3.0), "timed out"),
    (GarbageReply(), "malformed"),
], ids=["http-500", "timeout", "garbage"])
def test_model_faults_fail_visibly_and_an_admin_can_retry(db_url, stub, fault, words):
    flow.make_people()
    stub.enqueue(PLAN, fault, fault, fault)
    cid = flow.start("Write an HTTP client for the rates service")
    flow.work()
    conversation = flow.conversation(cid)
    assert conversation.status == "failed"
    assert words in conversation.status_reason.lower()
    assert len(stub.requests) == 4  # the planner's call, then three attempts for the coder
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner"]  # nothing persisted is lost

    with pytest.raises(PermissionDenied):
        retry_conversation(flow.actor("alice"), cid)
    retry_conversation(flow.actor("erin"), cid)
    with pytest.raises(Conflict):
        retry_conversation(flow.actor("erin"), cid)  # no longer failed
    stub.enqueue(CODE_V1)
    flow.work()
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner", "coder"]  # planner not re-run
    assert flow.conversation(cid).status == "awaiting_review"
