"""A risky tool call waits for a human; it runs once, with the approved arguments, or never."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hitl_dashboard.db.models import ReviewRequest, ToolCall
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import InvalidInput
from tests.support import flow


def deploys() -> list[dict]:
    log = Path(os.environ["DEPLOY_LOG_PATH"])
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def tool_call(conversation_id: int) -> ToolCall:
    with UnitOfWork() as uow:
        return uow.session.exec(ToolCall.__table__.select().where(ToolCall.conversation_id == conversation_id)).one()


def start_deploy() -> tuple[int, ReviewRequest]:
    flow.make_people()
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops")
    flow.work()
    return cid, flow.only_open_review(cid)


def test_tool_call_waits_then_runs_once_with_the_edited_arguments(db_url):
    cid, review = start_deploy()
    assert (review.kind, review.required_role, review.rule) == ("tool_call", "security_reviewer", "tool")
    call = tool_call(cid)
    assert call.status == "pending"
    assert call.arguments == {"service": "billing-api", "version": "2.4.1", "environment": "production"}
    assert deploys() == []  # asked for, not run

    flow.decide_as("alice", review.id, "approve",
                   edited_args={"service": "billing-api", "version": "v2.4.2", "environment": "staging"})
    flow.work()
    assert deploys() == [{"deployment_id": deploys()[0]["deployment_id"], "service": "billing-api",
                          "version": "v2.4.2", "environment": "staging"}]
    call = tool_call(cid)
    assert call.status == "executed" and call.approved_arguments["version"] == "v2.4.2"
    report = flow.messages(cid)[-1]
    assert report.source == "operator" and "v2.4.2" in report.content
    final = flow.only_open_review(cid)
    assert (final.kind, final.required_role) == ("signoff", "final_approver")

    flow.work()  # nothing left to run; the deploy never runs a second time
    assert len(deploys()) == 1
    flow.decide_as("carol", final.id, "approve")
    assert flow.conversation(cid).status == "approved"


def test_invalid_edited_arguments_are_refused_and_nothing_changes(db_url):
    cid, review = start_deploy()
    with pytest.raises(InvalidInput) as refused:
        flow.decide_as("alice", review.id, "approve", edited_args={"service": "Billing API!", "version": "latest"})
    assert "service" in str(refused.value) and "version" in str(refused.value)
    assert flow.only_open_review(cid).version == review.version
    assert tool_call(cid).status == "pending" and deploys() == []


def test_denied_tool_call_never_runs_and_the_agent_hears_why(db_url):
    cid, review = start_deploy()
    flow.decide_as("alice", review.id, "revise", instructions="freeze window until Monday; do not deploy")
    flow.work()
    assert deploys() == []
    assert tool_call(cid).status == "denied"
    report = flow.messages(cid)[-1]
    assert report.source == "operator"
    assert "denied" in report.content.lower()


def test_a_held_back_call_opens_a_review_whatever_the_gate_policy_lists(sqlite_url):
    """Issue 29: the approval wrapper did not run the call, so a review opens even when the
    conversation's policy leaves the tool out (a start-form choice, or a team file's gates.tools);
    before, the call said "pending" and nothing opened: the conversation waited for ever."""
    flow.make_people()
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops",
                     gate_policy={"mode": "on_done", "tools": []})
    flow.work()
    review = flow.only_open_review(cid)
    assert (review.kind, review.required_role, review.rule) == ("tool_call", "security_reviewer", "tool")
    assert tool_call(cid).status == "pending" and deploys() == []
