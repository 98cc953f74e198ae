"""The message Slack shows after a click, POSTed to the request's response_url (checked again here:
only Slack's host, or the loopback stub the tests allow). Sent after the HTTP answer, so Slack gets
that within its 3 seconds; a failure is logged, never retried (the decision itself is committed and
shows in the dashboard either way)."""

from __future__ import annotations

import logging
from typing import Any

import httpx

from hitl_dashboard.services.slack.verification import allowed_response_url

log = logging.getLogger(__name__)
TIMEOUT_S = 5.0


def post_reply(response_url: str, message: dict[str, Any]) -> bool:
    if not allowed_response_url(response_url):
        log.warning("Slack reply not sent: response_url is not Slack's")
        return False
    try:
        response = httpx.post(response_url, json=message, timeout=TIMEOUT_S, follow_redirects=False)
    except httpx.HTTPError as exc:
        log.warning("Slack reply to response_url failed: %s", type(exc).__name__)
        return False
    if response.status_code >= 300:
        log.warning("Slack reply to response_url answered %s", response.status_code)
        return False
    return True
