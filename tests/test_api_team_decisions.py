"""A revise over HTTP aims at an agent of the conversation's own team (issue 10): a custom team's agent
name is accepted; a name the pinned team does not have is a 422 naming target_agent, as is a name that
is not an agent name at all."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review

pytestmark = pytest.mark.e2e


def team_file(name: str) -> str:
    # None of the built-in agent names: a schema that listed those would refuse `builder`.
    return f"""
name: {name}
description: A lead plans, a builder writes the code.
agents:
  - {{name: lead, description: Plans the work, model: offline, system_prompt: Plan it.}}
  - {{name: builder, description: Writes the code, model: coding, system_prompt: Write it.}}
models:
  offline: {{provider: scripted, config: {{plays: planner}}}}
  coding: {{provider: scripted, config: {{plays: coder}}}}
speaker_order: {{mode: planner_then_producer, planner: lead}}
task_types:
  code: {{producer: builder, sign_off: [security_reviewer, final_approver]}}
gates: {{mode: after_agent}}
"""


def transcript(client: httpx.Client, conversation_id: int) -> list[dict]:
    response = client.get(f"/api/conversations/{conversation_id}/transcript", params={"limit": 500})
    assert response.status_code == 200, response.text
    return response.json()["items"]


def wait_for_sources(client: httpx.Client, conversation_id: int, count: int, timeout_s: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        sources = [m["source"] for m in transcript(client, conversation_id)]
        if len(sources) >= count:
            return sources
        time.sleep(0.2)
    raise AssertionError(f"conversation {conversation_id} has fewer than {count} messages after {timeout_s} s")


def test_a_revise_targets_an_agent_of_the_conversations_team(api_app: ApiApp) -> None:
    admin = api_app.client(api_app.token(["admin"], "team-admin"))
    starter = api_app.client(api_app.token(["product_reviewer"], "starter"))
    alice = api_app.client(api_app.token(["security_reviewer"], "alice"))
    name = f"squad-{uuid.uuid4().hex[:6]}"
    saved = admin.put(f"/api/teams/{name}", json={"yaml": team_file(name)})
    assert saved.status_code == 200, saved.text

    cid = start(starter, template=name)
    review = wait_for_review(alice, cid)
    url = f"/api/reviews/{review['id']}/decision"
    for agent, problem in [("coder", "unknown agent 'coder'; this team has lead, builder"),  # a built-in name
                           ("ghost", "unknown agent 'ghost'"),
                           ("not an agent", "should match pattern"), ("x" * 65, "should match pattern")]:
        refused = alice.post(url, json={"action": "revise", "instructions": "add a timeout", "target_agent": agent})
        assert refused.status_code == 422, (agent, refused.text)
        [error] = refused.json()["detail"]
        assert error["loc"] == ["body", "target_agent"] and problem in error["msg"], (agent, error)
    assert alice.get(f"/api/conversations/{cid}").json()["status"] == "awaiting_review"  # nothing applied

    before = len(transcript(alice, cid))
    decided = alice.post(url, json={"action": "revise", "instructions": "add a timeout", "target_agent": "builder"})
    assert decided.status_code == 200, decided.text
    assert (decided.json()["action"], decided.json()["conversation_status"]) == ("revise", "running")
    wait_for_sources(alice, cid, before + 2)
    decision, answer = transcript(alice, cid)[before:before + 2]  # the decision, then the agent it named
    assert decision["source"].startswith("alice-") and decision["content"].startswith("REVISE by alice-")
    assert answer["source"] == "builder"
