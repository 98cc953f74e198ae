"""What a webhook receives: the body in its format (our JSON, or Slack's text + blocks) and
the headers that let the receiver check it came from us."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.webhooks.slack_blocks import escape_mrkdwn, review_buttons

SIGNATURE_HEADER = "X-HITL-Signature"
EVENT_HEADER = "X-HITL-Event"
DELIVERY_HEADER = "X-HITL-Delivery"


def sign(secret: str, body: bytes) -> str:
    """HMAC-SHA256 of the exact bytes sent; receivers recompute it over the raw body."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    """For receivers (and our tests): constant-time comparison."""
    return header is not None and hmac.compare_digest(sign(secret, body), header)


def render_body(fmt: str, payload: dict[str, Any]) -> bytes:
    content = slack_message(payload) if fmt == "slack" else payload
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def headers_for(secret: str, body: bytes, event: str, delivery_id: int) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": "hitl-dashboard-webhooks",
        SIGNATURE_HEADER: sign(secret, body),
        EVENT_HEADER: event,
        DELIVERY_HEADER: str(delivery_id),
    }


def _escape(text: Any) -> str:
    # Titles and reasons come from agents and people: Slack must show them, never parse them as markup.
    return escape_mrkdwn(cut_visibly(str(text or ""), 500))


def _summary(event: str, data: dict[str, Any]) -> str:
    review, conversation = data.get("review") or {}, data.get("conversation") or {}
    title = _escape(conversation.get("title") or f"conversation {review.get('conversation_id')}")
    if event == "review.requested":
        reason = _escape(review.get("reason"))
        return f"Review #{review.get('id')} requested from {review.get('role')} for \"{title}\": {reason}"
    if event == "review.escalated":
        target = data.get("to_role") or "nobody (the conversation was stopped)"
        return f"Review #{review.get('id')} ({review.get('role')}) is overdue and went to {target}"
    if event == "review.decided":
        decision = data.get("decision") or {}
        return (f"{_escape(decision.get('reviewer'))} ({decision.get('role')}) chose {decision.get('action')} "
                f"on review #{review.get('id')} of \"{title}\"")
    if event == "conversation.finished":
        return f"Conversation #{conversation.get('id')} \"{title}\" is {conversation.get('status')}"
    if event == "audit.head":
        return f"Audit chain head: seq {data.get('seq')}, hash {_escape(data.get('hash'))}"
    return event


def slack_message(payload: dict[str, Any]) -> dict[str, Any]:
    data, event = payload.get("data") or {}, payload.get("event", "")
    text, url = _summary(event, data), data.get("url")
    label = "Open in dashboard"
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
    # A requested review can be decided from Slack itself (POST /api/slack/interactions).
    review = (data.get("review") or {}) if event == "review.requested" else {}
    buttons = review_buttons(review, url)
    if buttons:
        blocks.append({"type": "actions", "elements": buttons})
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"{event} · {payload.get('id')}"}]})
    return {"text": f"{text} <{url}|{label}>" if url else text, "blocks": blocks}
