"""Two tool calls in one agent turn, through a real OpenAI-protocol endpoint: each call has its own
review and its own arguments; deciding one never dismisses the other; the team resumes once,
when both are decided (one run, one model call, one message with both outcomes); each approved call
runs exactly once with its own arguments."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hitl_dashboard.db.models import Message
from hitl_dashboard.settings import reset_settings_cache
from tests.support import flow
from tests.support.db_state import reviews_of, tool_call
from tests.support.openai_stub import OpenAIStub, ParallelToolCallsReply, ToolCallReply

PLAN = "TASK TYPE: ops\n1. Deploy to staging.\n2. Deploy to production.\nCONFIDENCE: 0.9"
STAGING = {"service": "billing-api", "version": "2.4.1", "environment": "staging"}
PRODUCTION = {"service": "billing-api", "version": "2.4.1", "environment": "production"}
REPORT = "Deployment report: both calls were handled as the reviewers decided.\nDONE"


@pytest.fixture
def stub(monkeypatch):
    with OpenAIStub() as server:
        for name, value in {"MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": server.base_url,
                            "OPENAI_API_KEY": "test-key", "MODEL_TIMEOUT_S": "5", "MODEL_MAX_RETRIES": "1"}.items():
            monkeypatch.setenv(name, value)
        reset_settings_cache()
        yield server
    reset_settings_cache()


def deploys() -> list[dict]:
    log = Path(os.environ["DEPLOY_LOG_PATH"])
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _two_calls_waiting(stub: OpenAIStub):
    flow.make_people()
    stub.enqueue(PLAN, ParallelToolCallsReply((ToolCallReply("deploy_to_prod", STAGING, "call_staging"),
                                               ToolCallReply("deploy_to_prod", PRODUCTION, "call_production"))))
    cid = flow.start("Deploy billing-api 2.4.1 to staging and to production", task_type="ops")
    flow.work()
    reviews = flow.open_reviews(cid)
    assert [r.kind for r in reviews] == ["tool_call", "tool_call"]
    by_env = {tool_call(r.subject_id).arguments["environment"]: r for r in reviews}
    assert set(by_env) == {"staging", "production"}
    return cid, by_env


def _deployed() -> list[tuple[str, str]]:
    return sorted((d["environment"], d["version"]) for d in deploys())


def _outcome_messages(request: dict) -> list[str]:
    """The messages of a model request that report tool-call outcomes to the team."""
    return [str(m.get("content")) for m in request["messages"] if "tool call deploy_to_prod" in str(m.get("content"))]


def assert_resumed_once(stub: OpenAIStub, requests_before: int, runs: int) -> None:
    """The team resumed exactly once after the last decision: one runner run, one model call (the
    operator's report), and in it one message that hands over both outcomes."""
    assert runs == 1, f"the runner ran the conversation {runs} times after the last decision"
    assert len(stub.requests) == requests_before + 1, [_outcome_messages(r) for r in stub.requests[requests_before:]]
    [outcomes] = _outcome_messages(stub.requests[-1])
    assert outcomes.count("tool call deploy_to_prod") == 2, outcomes
    assert flow.work() == 0 and len(stub.requests) == requests_before + 1  # and never again


@pytest.mark.parametrize("first", ["production", "staging"])
def test_each_call_runs_once_with_its_own_edited_arguments_in_either_order(db_url, stub, first):
    cid, review = _two_calls_waiting(stub)
    edits = {"staging": {**STAGING, "version": "9.9.9"}, "production": {**PRODUCTION, "version": "2.4.2"}}
    second = "staging" if first == "production" else "production"

    asked = len(stub.requests)
    flow.decide_as("alice", review[first].id, "approve", edited_args=edits[first])
    # The other call's review is untouched and the team waits for it: nothing ran yet.
    assert [r.status for r in flow.open_reviews(cid)] == ["pending"]
    assert flow.conversation(cid).status == "awaiting_review"
    assert flow.work() == 0 and deploys() == [] and len(stub.requests) == asked

    stub.enqueue(REPORT)
    flow.decide_as("alice", review[second].id, "approve", edited_args=edits[second])
    assert_resumed_once(stub, asked, flow.work())
    assert _deployed() == [("production", "2.4.2"), ("staging", "9.9.9")]
    for env in ("staging", "production"):
        call = tool_call(review[env].subject_id)
        assert call.status == "executed" and call.approved_arguments == edits[env]
    assert not any(r.status == "dismissed" for r in reviews_of(cid))
    # The operator heard both outcomes in one message, each with its own arguments.
    [told] = _outcome_messages(stub.requests[-1])
    assert '"version": "9.9.9"' in told and '"version": "2.4.2"' in told
    flow.work()
    assert len(deploys()) == 2  # never a second time


def test_a_denied_call_never_runs_and_the_approved_one_runs_once(db_url, stub):
    cid, review = _two_calls_waiting(stub)
    asked = len(stub.requests)
    flow.decide_as("alice", review["production"].id, "revise", instructions="not on a Friday")
    assert deploys() == [] and flow.conversation(cid).status == "awaiting_review"
    assert flow.work() == 0 and len(stub.requests) == asked
    stub.enqueue(REPORT)
    flow.decide_as("alice", review["staging"].id, "approve")
    assert_resumed_once(stub, asked, flow.work())
    assert _deployed() == [("staging", "2.4.1")]
    assert tool_call(review["production"].subject_id).status == "denied"
    told = "\n".join(str(m.get("content")) for m in stub.requests[-1]["messages"])
    assert "DENIED tool call deploy_to_prod" in told and "not on a Friday" in told


def test_the_transcript_shows_what_ran_not_the_pending_placeholder(db_url, stub):
    cid, review = _two_calls_waiting(stub)
    flow.decide_as("erin", review["staging"].id, "approve", edited_args={**STAGING, "version": "9.9.9"},
                   override_reason="alice is on leave")
    stub.enqueue(REPORT)
    flow.decide_as("alice", review["production"].id, "approve")
    flow.work()
    messages: list[Message] = flow.messages(cid)
    text = "\n".join(m.content for m in messages)
    assert "PENDING_APPROVAL" not in text
    override = next(m for m in messages if m.source == "erin")
    assert "admin override" in override.content and "alice is on leave" in override.content
    assert '"version": "9.9.9"' in override.content and '"version": "2.4.1"' in override.content  # edited + proposed
    results = [m.content for m in messages if m.source == "tool_runner"]
    assert len(results) == 2 and all("Result: Deployed billing-api" in r for r in results)
    assert any("9.9.9" in r and "edited by the reviewer" in r for r in results)
