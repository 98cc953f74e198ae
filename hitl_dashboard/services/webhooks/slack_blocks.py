"""Slack Block Kit pieces: the Approve / Deny / "Open in dashboard" buttons of a review message, the
value they carry back, and the message that replaces it once decided (docs/slack.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hitl_dashboard.domain.errors import InvalidInput

APPROVE_ACTION = "hitl_approve"
DENY_ACTION = "hitl_deny"
ACTIONS = (APPROVE_ACTION, DENY_ACTION)
# A link button's click opens the page in the browser and is also sent to the Request URL; Slack
# shows a warning beside the button unless that request is acknowledged.
OPEN_ACTION = "hitl_open"
MAX_VALUE_CHARS = 2000  # Slack's limit on a button's value


@dataclass(frozen=True)
class ButtonValue:
    """What a decision button carries: the review the message showed, at the version and content
    the reviewer saw there, so a click on an outdated message is refused like a stale browser form."""

    review_id: int
    version: int
    content_hash: str

    def encode(self) -> str:
        return json.dumps({"review_id": self.review_id, "version": self.version, "content_hash": self.content_hash},
                          separators=(",", ":"), sort_keys=True)

    @classmethod
    def decode(cls, text: object) -> ButtonValue:
        try:
            data = json.loads(text) if isinstance(text, str) and len(text) <= MAX_VALUE_CHARS else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise InvalidInput("the button carries no review", "value")
        review_id, version, content_hash = data.get("review_id"), data.get("version"), data.get("content_hash")
        if not (isinstance(review_id, int) and _positive_int(review_id) and isinstance(version, int)
                and _positive_int(version) and isinstance(content_hash, str) and 0 < len(content_hash) <= 64):
            raise InvalidInput("the button carries no review", "value")
        return cls(review_id, version, content_hash)


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def _button(text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "button", "text": {"type": "plain_text", "text": text}, **fields}


def review_buttons(review: dict[str, Any], url: str | None) -> list[dict[str, Any]]:
    """Approve and Deny for an open review (as the webhook payload describes it), then the link."""
    elements: list[dict[str, Any]] = []
    if review.get("id") and review.get("version") and review.get("content_hash"):
        value = ButtonValue(int(review["id"]), int(review["version"]), str(review["content_hash"])).encode()
        elements += [
            _button("Approve", action_id=APPROVE_ACTION, value=value, style="primary"),
            _button("Deny", action_id=DENY_ACTION, value=value, style="danger", confirm={
                "title": {"type": "plain_text", "text": "Deny this review?"},
                "text": {"type": "plain_text", "text": "The reason recorded is \"denied in Slack by <you>\"; "
                                                       "open the dashboard to write your own instructions."},
                "confirm": {"type": "plain_text", "text": "Deny"},
                "deny": {"type": "plain_text", "text": "Cancel"}}),
        ]
    if url:
        elements.append(_button("Open in dashboard", url=url, action_id=OPEN_ACTION))
    return elements


def decided_message(summary: str, url: str | None) -> dict[str, Any]:
    """Replaces the review message in the channel: who decided and how, and the link; no buttons."""
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": summary}}]
    if url:
        blocks.append({"type": "actions", "elements": [_button("Open in dashboard", url=url, action_id=OPEN_ACTION)]})
    return {"replace_original": True, "text": summary, "blocks": blocks}


def ephemeral(text: str) -> dict[str, Any]:
    """Shown only to the person who clicked; the message in the channel stays as it was. The text
    may quote what people wrote (a reason in "closed: ..."): Slack shows it, never reads it as markup."""
    return {"response_type": "ephemeral", "replace_original": False, "text": escape_mrkdwn(text)}


def escape_mrkdwn(text: str) -> str:
    """Slack's three control characters, so text from agents and people is shown, not parsed."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
