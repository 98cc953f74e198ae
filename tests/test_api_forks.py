"""Forks and replays over HTTP, and at the CLI."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli
from tests.support import flow
from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review

pytestmark = pytest.mark.e2e


def test_fork_replay_and_the_fork_tree_over_http(api_app: ApiApp) -> None:
    starter = api_app.client(api_app.token(["security_reviewer"]))
    cid = start(starter)
    wait_for_review(starter, cid)  # planner and coder have spoken: two turns
    forker = api_app.client(api_app.token(["security_reviewer"]))

    forked = forker.post(f"/api/conversations/{cid}/fork", json={
        "turn": 1, "instructions": "use a circuit breaker too", "target_agent": "coder"})
    assert forked.status_code == 201, forked.text
    body = forked.json()
    assert (body["parent_id"], body["parent_turn"], body["origin"], body["turns"]) == (cid, 1, "fork", 1)
    replayed = forker.post(f"/api/conversations/{cid}/replay", json={"turn": 1})
    assert replayed.status_code == 201, replayed.text

    tree = starter.get(f"/api/conversations/{cid}/forks").json()
    assert tree["parent"] is None
    assert [(c["id"], c["turn"], c["origin"]) for c in tree["children"]] == [
        (body["id"], 1, "fork"), (replayed.json()["id"], 1, "replay")]
    assert starter.get(f"/api/conversations/{body['id']}/forks").json()["parent"]["id"] == cid
    # The fork's own review, which its forker may not approve.
    review = wait_for_review(forker, body["id"])
    refused = forker.post(f"/api/reviews/{review['id']}/decision", json={"action": "approve"})
    assert refused.status_code == 403, refused.text


@pytest.mark.parametrize("path, payload, status", [
    ("fork", {"turn": 0}, 422),
    ("fork", {"turn": "1"}, 422),
    ("fork", {"turn": 1, "target_agent": "ghost", "instructions": "x"}, 422),
    ("fork", {"turn": 99}, 422),
    ("replay", {"turn": 2}, 409),
])
def test_bad_forks_are_refused(api_app: ApiApp, path: str, payload: dict, status: int) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    cid = start(client)
    wait_for_review(client, cid)
    response = client.post(f"/api/conversations/{cid}/{path}", json=payload)
    assert response.status_code == status, response.text
    assert client.post("/api/conversations/999999/fork", json={"turn": 1}).status_code == 404


def test_fork_and_replay_at_the_cli(sqlite_url) -> None:
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    forked = json.loads(run_cli("--json", "fork", str(cid), "--turn", "2", "--instructions", "add a timeout",
                                "--target", "coder", "--as", "alice").stdout)
    assert (forked["parent_id"], forked["parent_turn"], forked["origin"]) == (cid, 2, "fork")
    replayed = json.loads(run_cli("--json", "replay", str(cid), "--turn", "1", "--as", "bob").stdout)
    assert replayed["origin"] == "replay"
    shown = json.loads(run_cli("--json", "show", str(replayed["conversation_id"])).stdout)
    assert shown["parent"] == {"id": cid, "turn": 1, "origin": "replay"}
    assert f"replay of #{cid} after its turn 1" in run_cli("show", str(replayed["conversation_id"])).stdout
    refused = run_cli("fork", str(cid), "--turn", "9", "--as", "bob", check=False)
    assert refused.returncode != 0 and "has 2 turns, not 9" in refused.stderr
    flow.work()
    assert [m.source for m in flow.messages(forked["conversation_id"])] == ["frank", "planner", "coder", "alice",
                                                                           "coder"]
