"""Slack interactivity requests as Slack sends them: a form with one JSON `payload`, signed with the
app's signing secret (slack-sdk's own signer), for the Slack button tests."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"  # the shape of a Slack signing secret (Slack's docs example)
TEAM = "T0TEST0001"


def click(*, user: str, action: str, review, response_url: str, team: str = TEAM, action_ts: str | None = None,
          version: int | None = None) -> bytes:
    """The form body of a click on a review message's Approve (hitl_approve) or Deny (hitl_deny)."""
    value = json.dumps({"review_id": review.id, "version": review.version if version is None else version,
                        "content_hash": review.content_hash})
    payload = {
        "type": "block_actions", "team": {"id": team, "domain": "example"},
        "user": {"id": user, "team_id": team, "username": user.lower()},
        "actions": [{"type": "button", "action_id": action, "block_id": "b1", "value": value,
                     "action_ts": action_ts or f"{time.time():.6f}"}],
        "response_url": response_url, "trigger_id": "1.2.3",
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


def signed_headers(body: bytes, *, secret: str = SECRET, timestamp: int | None = None) -> dict[str, str]:
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    return {"Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body) or ""}
