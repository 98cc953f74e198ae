"""Small helpers for the HTTP API tests: start a conversation and wait for the app's runner."""

from __future__ import annotations

import time

import httpx

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
