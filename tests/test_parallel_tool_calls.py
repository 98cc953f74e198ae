"""Two tool calls in one agent turn, through a real OpenAI-protocol endpoint: each call has its own
review and its own arguments; deciding one never dismisses the other; the team resumes once,
when both are decided (one run, one model call, one message with both outcomes); each approved call
runs exactly once with its own arguments."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from hitl_dashboard.db.models import Message
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.reviews import tool_decisions
from tests.support import flow
from tests.support.db_state import audit_events, reviews_of, tool_call, use_cheap_passwords
from tests.support.openai_stub import OpenAIStub, ParallelToolCallsReply, ToolCallReply, stub_as_model_endpoint
from tests.support.races import race

PLAN = "TASK TYPE: ops\n1. Deploy to staging.\n2. Deploy to production.\nCONFIDENCE: 0.9"
STAGING = {"service": "billing-api", "version": "2.4.1", "environment": "staging"}
PRODUCTION = {"service": "billing-api", "version": "2.4.1", "environment": "production"}
REPORT = "Deployment report: both calls were handled as the reviewers decided.\nDONE"


@pytest.fixture
def stub(monkeypatch):
    with stub_as_model_endpoint(monkeypatch, MODEL_PROVIDER="openai") as server:
        yield server


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
    # The audit trail names who ran it as a reader looks for it; the detail says which host and process.
    [ran] = audit_events("tool.executed", conversation_id=cid)
    assert ran.actor == "runner" and ran.details["tool"] == "deploy_to_prod"
    assert (ran.details["host"], ran.details["process"]) == (socket.gethostname(), os.getpid())


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


# -- two reviewers, one call each, at the same moment ------------------------------------------------
def _two_reviewers(stub: OpenAIStub, monkeypatch):
    use_cheap_passwords(monkeypatch)
    cid, review = _two_calls_waiting(stub)
    users.create_user(username="sam", password="pw-sam", roles=["security_reviewer"])
    return cid, review


def _both_ran_once(cid: int, review: dict) -> None:
    assert _deployed() == [("production", "2.4.1"), ("staging", "2.4.1")]
    assert all(tool_call(review[env].subject_id).status == "executed" for env in review)
    notes = [m for m in flow.messages(cid) if m.kind == "decision"]
    assert sorted(m.source for m in notes) == ["alice", "sam"]


def test_both_calls_decided_at_the_same_instant_resume_the_team_once(db_url, stub, monkeypatch):
    cid, review = _two_reviewers(stub, monkeypatch)
    asked = len(stub.requests)
    results = race([lambda: flow.decide_as("alice", review["staging"].id, "approve"),
                    lambda: flow.decide_as("sam", review["production"].id, "approve")])
    assert not [r for r in results if isinstance(r, Exception)], results
    # Whichever committed second saw the other's decision and handed the team back to the runner.
    assert sorted(r.conversation_status for r in results) == ["awaiting_review", "running"]
    stub.enqueue(REPORT)
    assert_resumed_once(stub, asked, flow.work())
    _both_ran_once(cid, review)


def _blocked_by(engine, pid: int) -> bool:
    with engine.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM pg_stat_activity WHERE :pid = ANY(pg_blocking_pids(pid))"),
                                  {"pid": pid}).scalar() > 0


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_second_decision_waits_for_the_first_to_commit_before_it_checks(db_url, stub, monkeypatch):
    """The interleaving that lost the resume: the first decision has checked "is another call still
    open?" (yes) and not yet committed when the second one checks. It is held there until the second
    one is seen blocked on it (pg_blocking_pids) or done, so no sleep decides the order."""
    cid, review = _two_reviewers(stub, monkeypatch)
    asked = len(stub.requests)
    watcher = create_engine(db_url)
    checked, second_done = threading.Event(), threading.Event()
    real_check = tool_decisions._still_open

    def held_after_checking(session, conversation_id):
        found = real_check(session, conversation_id)
        if not checked.is_set():  # the first decision only
            pid = session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar()
            checked.set()
            deadline = time.monotonic() + 30
            while not (second_done.is_set() or _blocked_by(watcher, pid)):
                assert time.monotonic() < deadline, "the second decision neither finished nor waited"
                time.sleep(0.01)
        return found

    monkeypatch.setattr(tool_decisions, "_still_open", held_after_checking)
    results: dict[str, object] = {}

    def decide(name: str, env: str, done: threading.Event | None = None) -> None:
        try:
            results[name] = flow.decide_as(name, review[env].id, "approve")
        except Exception as exc:  # noqa: BLE001 - inspected below
            results[name] = exc
        finally:
            if done is not None:
                done.set()

    first = threading.Thread(target=decide, args=("alice", "staging"))
    first.start()
    assert checked.wait(60), "the first decision never reached its check"
    second = threading.Thread(target=decide, args=("sam", "production", second_done))
    second.start()
    for thread in (first, second):
        thread.join(60)
    watcher.dispose()
    assert not first.is_alive() and not second.is_alive(), "a decision hung"
    assert [getattr(results[n], "conversation_status", results[n]) for n in ("alice", "sam")] == [
        "awaiting_review", "running"]
    stub.enqueue(REPORT)
    assert_resumed_once(stub, asked, flow.work())
    _both_ran_once(cid, review)


def test_each_conversations_tool_calls_are_numbered_from_call_1(db_url, stub):
    """A reviewer reads "call 1" for a conversation's first call, whatever other conversations asked."""
    earlier, _ = _two_calls_waiting(stub)
    stub.enqueue(PLAN, ParallelToolCallsReply((ToolCallReply("deploy_to_prod", STAGING, "call_staging"),
                                               ToolCallReply("deploy_to_prod", PRODUCTION, "call_production"))))
    cid = flow.start("Deploy billing-api 2.4.1 again", task_type="ops")
    flow.work()
    for conversation_id in (earlier, cid):
        assert sorted(r.subject_label for r in flow.open_reviews(conversation_id)) == [
            "deploy_to_prod (call 1)", "deploy_to_prod (call 2)"]
