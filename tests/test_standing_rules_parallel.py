"""Standing rules on two tool calls of one agent turn (through a real OpenAI-protocol endpoint): a rule
decides one, a person the other, and the team resumes once with both outcomes; when rules decide both,
the turn never pauses; each approved call runs exactly once."""

from __future__ import annotations

import pytest

from hitl_dashboard.services.rules import rules
from hitl_dashboard.services.rules.rules import RuleCommand
from tests.support import flow
from tests.support.openai_stub import ParallelToolCallsReply, ToolCallReply, stub_as_model_endpoint
from tests.test_parallel_tool_calls import PLAN, PRODUCTION, REPORT, STAGING, _deployed, assert_resumed_once


@pytest.fixture
def stub(monkeypatch):
    with stub_as_model_endpoint(monkeypatch, MODEL_PROVIDER="openai") as server:
        yield server


def _active(when: dict) -> int:
    made = rules.create_rule(flow.actor("alice"), RuleCommand(team="ops", tool="deploy_to_prod", when=when))
    return rules.promote_rule(flow.actor("erin"), made.id, override_reason="test").id


def _start(stub) -> int:
    stub.enqueue(PLAN, ParallelToolCallsReply((ToolCallReply("deploy_to_prod", STAGING, "call_staging"),
                                               ToolCallReply("deploy_to_prod", PRODUCTION, "call_production"))))
    return flow.start("Deploy billing-api 2.4.1 to staging and to production", task_type="ops")


def test_a_rule_decides_one_call_a_person_the_other_and_the_team_resumes_once(db_url, stub):
    flow.make_people()
    _active({"argument": "environment", "equals": "staging"})
    cid = _start(stub)
    flow.work()
    (waiting,) = flow.open_reviews(cid)  # the staging call was decided by the rule, in the same turn
    assert _deployed() == []  # nothing runs until the turn's last call is decided
    asked = len(stub.requests)
    stub.enqueue(REPORT)
    flow.decide_as("alice", waiting.id, "approve")
    assert_resumed_once(stub, asked, flow.work())
    assert _deployed() == [("production", "2.4.1"), ("staging", "2.4.1")]


def test_when_rules_decide_every_call_the_turn_never_waits_and_each_runs_once(db_url, stub):
    flow.make_people()
    _active({"argument": "service", "equals": "billing-api"})
    cid = _start(stub)
    stub.enqueue(REPORT)
    flow.work()
    # No tool call waited: the only review is the sign-off of the operator's report.
    assert [r.kind for r in flow.open_reviews(cid)] == ["signoff"]
    assert _deployed() == [("production", "2.4.1"), ("staging", "2.4.1")]
    assert flow.work() == 0 and len(_deployed()) == 2
