"""Is this request from Slack, fresh, and about something we asked? Checked before anything is
read from it: the signing secret (slack-sdk's SignatureVerifier), the timestamp window, the form's
single `payload`, and a response_url that can only be Slack's."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from slack_sdk.signature import SignatureVerifier

from hitl_dashboard.domain.bounded_input import load_json
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.webhooks.slack_blocks import ACTIONS, OPEN_ACTION
from hitl_dashboard.settings import get_settings

# Slack's own window (and SignatureVerifier's): a request signed longer ago than this is refused.
TIMESTAMP_WINDOW_S = 5 * 60
MAX_BODY_BYTES = 64 * 1024  # an interaction payload is a few KB
SLACK_RESPONSE_HOST = "hooks.slack.com"
_LOOPBACK = "127.0.0.1"


class SlackRefused(Exception):
    """A request refused before it reached a decision: the HTTP status and why (shown to Slack)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class SlackUnverified(SlackRefused):
    """Refused before its signature was found good: nobody's action (anyone can send it), so it is
    counted and logged, never audited."""


@dataclass(frozen=True)
class Interaction:
    """The parts of a verified block_actions payload that we act on."""

    slack_team_id: str
    slack_user_id: str
    action_id: str
    value: str
    action_ts: str
    response_url: str
    replay_key: str  # sha256 of the request's signature: equal for the very same request only


def verify(body: bytes, timestamp: str | None, signature: str | None, *, now: float | None = None) -> Interaction:
    """The interaction in a signed, fresh Slack request, or SlackRefused saying why not."""
    secret = get_settings().slack_signing_secret
    if not secret:
        # Not a server error: the endpoint is off, as if absent (and fuzzers see no 5xx).
        raise SlackUnverified(404, "Slack buttons are not configured on this server (SLACK_SIGNING_SECRET is unset)")
    if len(body) > MAX_BODY_BYTES:
        raise SlackUnverified(413, "the request is larger than a Slack interaction")
    if not (timestamp or "").isdigit() or len(timestamp or "") > 12:
        raise SlackUnverified(401, "missing or malformed X-Slack-Request-Timestamp")
    current = time.time() if now is None else now
    if abs(current - int(timestamp or 0)) > TIMESTAMP_WINDOW_S:
        raise SlackUnverified(401, "the request's timestamp is more than 5 minutes away from now: refused as a replay")
    try:  # slack-sdk decodes the body itself and would raise on bytes that are not UTF-8
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise SlackUnverified(400, "the body is not UTF-8 text, as a Slack interaction is") from None
    # compare_digest raises on non-ASCII text; a header can carry any latin-1 character
    if not signature or not signature.isascii() or not SignatureVerifier(secret).is_valid(text, timestamp, signature):
        raise SlackUnverified(401, "the request's signature does not match this server's Slack signing secret")
    return _interaction(_payload(text), hashlib.sha256(signature.encode("utf-8")).hexdigest())


def _payload(text: str) -> dict[str, Any]:
    try:
        form = parse_qs(text, keep_blank_values=True, strict_parsing=True, max_num_fields=10)
        [raw] = form.get("payload", [])
        payload = load_json(raw, "payload")
    except (ValueError, InvalidInput):
        raise SlackRefused(400, "the body is not a Slack interaction (a form with one JSON `payload`)") from None
    if not isinstance(payload, dict):
        raise SlackRefused(400, "the payload is not a JSON object")
    return payload


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any, limit: int = 200) -> str:
    return value if isinstance(value, str) and 0 < len(value) <= limit else ""


def _interaction(payload: dict[str, Any], replay_key: str) -> Interaction:
    user, team = _object(payload.get("user")), _object(payload.get("team"))
    actions = payload.get("actions")
    action = _object(actions[0] if isinstance(actions, list) and actions else None)
    if payload.get("type") != "block_actions" or action.get("action_id") not in (*ACTIONS, OPEN_ACTION):
        raise SlackRefused(400, "this endpoint answers only the Approve and Deny buttons of a review message")
    interaction = Interaction(
        slack_team_id=_text(team.get("id"), 32) or _text(user.get("team_id"), 32),
        slack_user_id=_text(user.get("id"), 32), action_id=action["action_id"],
        value=_text(action.get("value"), 2000), action_ts=_text(action.get("action_ts"), 64),
        response_url=_text(payload.get("response_url"), 2000), replay_key=replay_key,
    )
    if not interaction.slack_team_id or not interaction.slack_user_id:
        raise SlackRefused(400, "the payload names no Slack user and workspace")
    if not allowed_response_url(interaction.response_url):
        raise SlackRefused(400, "the payload's response_url is not a Slack URL (https://hooks.slack.com/...)")
    return interaction


def allowed_response_url(url: str) -> bool:
    """Only Slack's own host, over https: the answer is never sent to a URL a payload made up. Tests
    (SLACK_ALLOW_LOOPBACK_RESPONSE_URL) also let a stub on 127.0.0.1 receive it."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    if parts.username or parts.password:
        return False
    if parts.scheme == "https" and parts.hostname == SLACK_RESPONSE_HOST and port in (None, 443):
        return parts.path.startswith("/")
    return (get_settings().slack_allow_loopback_response_url and parts.scheme == "http"
            and parts.hostname == _LOOPBACK)
