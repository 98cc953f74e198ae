"""Small helpers for the HTTP API tests: start a conversation, wait for the app's runner, and put
a shared app's team back as it was."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import httpx
import yaml

TASK = "Add retry with exponential backoff to the payments client"


def start(client: httpx.Client, task: str = TASK, **fields) -> int:
    response = client.post("/api/conversations", json={"task": task, **fields})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def wait_for_review(client: httpx.Client, conversation_id: int, role: str = "security_reviewer",
                    timeout_s: float = 60) -> dict:
    """The conversation's open review once the runner has produced one (as listed by /api/reviews)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        response = client.get("/api/reviews", params={"role": role, "conversation_id": conversation_id})
        assert response.status_code == 200, response.text
        if response.json():
            return response.json()[0]
        time.sleep(0.2)
    raise AssertionError(f"conversation {conversation_id} got no {role} review within {timeout_s} s")


@contextlib.contextmanager
def team_restored(admin: httpx.Client, name: str) -> Iterator[dict]:
    """Team `name` as it is now (yielded); saved back over the API afterwards, however the block
    ends, so tests that come later on the same app (in any order) find the rules they expect.
    The admin client's app, not the page: a failed browser step must not leave the change behind."""
    original = admin.get(f"/api/teams/{name}")
    assert original.status_code == 200, original.text
    try:
        yield original.json()
    finally:
        restored = admin.put(f"/api/teams/{name}", json={"yaml": yaml.safe_dump(original.json(), sort_keys=False)})
        assert restored.status_code == 200, restored.text


def assert_refused(response: httpx.Response, status: int, says: str) -> None:
    """A refusal that names the rule that refused: its status and the words of its detail."""
    assert response.status_code == status and says in response.text, (response.status_code, response.text)
