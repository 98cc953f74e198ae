"""A team whose planner and coder use two different OpenAI-protocol endpoints (issue 10): two stub
servers on 127.0.0.1, each with its own model name and key variable. Each stub sees only its own
agent's requests, with its model name; each stored message names the model that wrote it, and the
conversation page's view shows it; the keys appear in no stored row and no log line. A declared endpoint
that answers garbage or hangs gets the server's timeout and retries, fails the conversation visibly, and
an admin's retry goes on from there."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.services.conversations.conversations import retry_conversation
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.ui.views.conversation_view import conversation_view
from tests.support import flow
from tests.support.openai_stub import GarbageReply, HangReply, OpenAIStub

PLANNER_KEY = "sk-planner-7d1e0c-never-stored"
CODER_KEY = "sk-coder-93b2aa-never-stored"
MODEL_INFO = "{vision: false, function_calling: true, json_output: false, family: unknown, structured_output: false}"
CODE = "```python\n# file: app/retry.py\ndef retry(call):\n    return call()\n```\nCONFIDENCE: 0.9\nReady for review."


def team_file(planner_url: str, coder_url: str) -> str:
    return f"""
name: two-models
description: Plans on one endpoint, codes on another.
agents:
  - name: planner
    description: Plans the work
    system_prompt: "You are the planner of two-models. Start with 'TASK TYPE: code'."
    model: planning
  - name: coder
    description: Writes the code
    system_prompt: "You are the coder of two-models. Propose files in fenced blocks."
    model: coding
models:
  planning:
    provider: autogen_ext.models.openai.OpenAIChatCompletionClient
    config: {{model: plan-model-a, base_url: "{planner_url}", model_info: {MODEL_INFO}}}
    api_key_env: TEAM_PLANNER_KEY
  coding:
    provider: autogen_ext.models.openai.OpenAIChatCompletionClient
    config: {{model: code-model-b, base_url: "{coder_url}", model_info: {MODEL_INFO}}}
    api_key_env: TEAM_CODER_KEY
speaker_order: {{mode: planner_then_producer, planner: planner}}
task_types:
  code: {{producer: coder, sign_off: [security_reviewer, final_approver]}}
gates: {{mode: after_agent}}
"""


@pytest.fixture
def stubs(monkeypatch, sqlite_url) -> Iterator[tuple[OpenAIStub, OpenAIStub]]:
    """The team imported by an admin (as `teams import` does), its keys in the environment."""
    with OpenAIStub() as planner_stub, OpenAIStub() as coder_stub:
        monkeypatch.setenv("TEAM_PLANNER_KEY", PLANNER_KEY)
        monkeypatch.setenv("TEAM_CODER_KEY", CODER_KEY)
        flow.make_people()
        team_queries.save_team(flow.actor("erin"), team_file(planner_stub.base_url, coder_stub.base_url),
                               origin="import")
        yield planner_stub, coder_stub


def test_each_agent_reaches_only_its_own_endpoint_and_the_keys_stay_out(stubs, sqlite_url, caplog) -> None:
    planner_stub, coder_stub = stubs
    planner_stub.enqueue("TASK TYPE: code\n1. Add a retry helper.\nCONFIDENCE: 0.8")
    coder_stub.enqueue(CODE)
    caplog.set_level(logging.DEBUG)  # every logger, the HTTP clients' included
    cid = flow.start("Add a retry helper to the payments client", template="two-models")
    flow.work()

    assert len(planner_stub.requests) == 1 and len(coder_stub.requests) == 1
    assert (planner_stub.authorizations, coder_stub.authorizations) == ([f"Bearer {PLANNER_KEY}"],
                                                                        [f"Bearer {CODER_KEY}"])
    planner_request, coder_request = planner_stub.requests[0], coder_stub.requests[0]
    assert planner_request["model"] == "plan-model-a" and coder_request["model"] == "code-model-b"
    assert "You are the planner of two-models" in planner_request["messages"][0]["content"]
    assert "You are the coder of two-models" in coder_request["messages"][0]["content"]
    assert not any("coder of two-models" in str(m.get("content")) for m in planner_request["messages"])

    stored = {m.source: m.model for m in flow.messages(cid) if m.source in ("planner", "coder")}
    assert stored == {"planner": "plan-model-a", "coder": "code-model-b"}
    assert flow.only_open_review(cid).required_role == "security_reviewer"
    shown = {m.source: m.model for m in conversation_view(flow.actor("alice"), cid).messages if m.is_agent}
    assert shown == {"planner": "plan-model-a", "coder": "code-model-b"}

    database = Path(create_engine(sqlite_url).url.database).read_bytes()
    with create_engine(sqlite_url).connect() as connection:  # the write-ahead log too, checkpointed
        connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    database += Path(create_engine(sqlite_url).url.database).read_bytes()
    for key in (PLANNER_KEY, CODER_KEY):
        assert key.encode() not in database
        assert key not in caplog.text
    assert caplog.records  # the check above read real log lines


def test_a_server_that_takes_no_key_never_gets_the_operators_key(sqlite_url, monkeypatch) -> None:
    """api_key: "" (README's local model): the SDK would otherwise send OPENAI_API_KEY to the gateway."""
    operator_key = "sk-operator-4f0a77-only-for-openai"
    monkeypatch.setenv("OPENAI_API_KEY", operator_key)
    monkeypatch.setenv("TEAM_CODER_KEY", CODER_KEY)
    with OpenAIStub() as gateway, OpenAIStub() as coder_stub:
        text = team_file(gateway.base_url, coder_stub.base_url)
        text = text.replace("model: plan-model-a,", 'model: plan-model-a, api_key: "",')
        text = text.replace("    api_key_env: TEAM_PLANNER_KEY\n", "")
        flow.make_people()
        team_queries.save_team(flow.actor("erin"), text, origin="import")
        gateway.enqueue("TASK TYPE: code\n1. Add a retry helper.\nCONFIDENCE: 0.8")
        coder_stub.enqueue(CODE)
        cid = flow.start("Add a retry helper to the payments client", template="two-models")
        flow.work()
    assert flow.only_open_review(cid).required_role == "security_reviewer"
    assert gateway.authorizations == ["Bearer unused"] and coder_stub.authorizations == [f"Bearer {CODER_KEY}"]


@pytest.fixture
def quick_faults(monkeypatch) -> Iterator[None]:
    """The server's model settings, which declared models get too: a 1 s timeout, 3 attempts."""
    for name, value in {"MODEL_TIMEOUT_S": "1.0", "MODEL_MAX_RETRIES": "3", "MODEL_RETRY_BASE_S": "0.01"}.items():
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    yield
    reset_settings_cache()


@pytest.mark.parametrize("fault, words", [
    (GarbageReply(), "model returned a malformed reply"),
    (HangReply(3.0), "model call timed out after 1.0 s"),
], ids=["garbage", "hang"])
def test_a_declared_endpoint_that_fails_fails_the_conversation_and_an_admin_retries(stubs, quick_faults, fault,
                                                                                   words) -> None:
    planner_stub, coder_stub = stubs
    planner_stub.enqueue("TASK TYPE: code\n1. Add a retry helper.\nCONFIDENCE: 0.8")
    coder_stub.enqueue(fault, fault, fault)
    cid = flow.start("Add a retry helper to the payments client", template="two-models")
    flow.work()

    conversation = flow.conversation(cid)
    assert conversation.status == "failed" and words in conversation.status_reason, conversation.status_reason
    assert "(3 attempts)" in conversation.status_reason and CODER_KEY not in conversation.status_reason
    assert len(coder_stub.requests) == 3  # MODEL_MAX_RETRIES attempts, by our retries (the SDK's are off)
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner"]

    with pytest.raises(PermissionDenied):
        retry_conversation(flow.actor("alice"), cid)
    retry_conversation(flow.actor("erin"), cid)
    coder_stub.enqueue(CODE)
    flow.work()
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner", "coder"]
    assert len(planner_stub.requests) == 1  # the planner's turn was kept, not redone
    assert flow.conversation(cid).status == "awaiting_review"
