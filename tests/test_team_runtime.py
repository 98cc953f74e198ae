"""A team from a file runs (issue 10): a custom team read from TEAMS_DIR, its prompts and declared
models, a tool whose approval mode is `when environment == production`, its own sign-off chain and SLA."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest

from tests.support import flow
from tests.support.team_dirs import teams_dir

TEAM = """
name: careful-ops
description: Deploys to staging freely; production waits for a human.
agents:
  - name: planner
    description: Plans the deployment
    system_prompt: "Start with 'TASK TYPE: ops', then a short plan."
    model: offline
  - name: operator
    description: Deploys with deploy_to_prod
    system_prompt: Use deploy_to_prod. Report the outcome and say DONE.
    model: offline
    tools: [deploy_to_prod]
models:
  offline: {provider: scripted}
tools:
  deploy_to_prod:
    function: hitl_dashboard.agents.tools:deploy_to_prod
    approval: when
    when: {argument: environment, equals: production}
speaker_order: {mode: planner_then_producer, planner: planner}
task_types:
  ops: {producer: operator, sign_off: [product_reviewer, final_approver]}
gates: {mode: on_done, tools: [deploy_to_prod]}
tool_approver: final_approver
sla_hours: {final_approver: 2, product_reviewer: 3}
"""


@pytest.fixture
def team_dir(tmp_path: Path, monkeypatch, sqlite_url):
    with teams_dir(tmp_path / "teams", monkeypatch, {"careful-ops.yaml": TEAM}) as folder:
        yield folder


def deploys() -> list[dict]:
    log = Path(os.environ["DEPLOY_LOG_PATH"])
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_a_staging_call_runs_without_review(team_dir) -> None:
    flow.make_people()
    cid = flow.start("Deploy billing-api v2.4.1 to staging", task_type="ops", template="careful-ops")
    flow.work()
    assert [(d["service"], d["environment"]) for d in deploys()] == [("billing-api", "staging")]
    review = flow.only_open_review(cid)  # no tool review: the operator's DONE opens the sign-off
    assert (review.kind, review.required_role, review.rule) == ("signoff", "product_reviewer", "on_done")
    assert review.due_at - review.created_at == timedelta(hours=3)  # the team's SLA, not the server's 24 h
    flow.decide_as("bob", review.id, "approve")
    final = flow.only_open_review(cid)
    assert final.required_role == "final_approver"
    flow.decide_as("carol", final.id, "approve")
    assert flow.conversation(cid).status == "approved"


def test_a_production_call_waits_for_the_teams_tool_approver(team_dir) -> None:
    flow.make_people()
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="careful-ops")
    flow.work()
    assert deploys() == []
    review = flow.only_open_review(cid)
    assert (review.kind, review.required_role, review.rule) == ("tool_call", "final_approver", "tool")
    assert review.due_at - review.created_at == timedelta(hours=2)
    flow.decide_as("carol", review.id, "approve")
    flow.work()
    assert [(d["service"], d["environment"]) for d in deploys()] == [("billing-api", "production")]
    flow.work()
    assert len(deploys()) == 1


def test_a_team_the_conversation_asks_for_must_serve_the_task_type(team_dir) -> None:
    from hitl_dashboard.domain.errors import InvalidInput

    flow.make_people()
    with pytest.raises(InvalidInput, match="template 'careful-ops' does ops tasks"):
        flow.start("Write a helper", task_type="code", template="careful-ops")
