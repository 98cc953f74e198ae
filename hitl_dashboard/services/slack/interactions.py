"""A click on a review message's Approve or Deny button in Slack (docs/slack.md).

The click becomes a decision through the one decide use case, with exactly the checks a browser
decision gets (role, four eyes, content hash, version, idempotency), as the product user the
admin mapped the Slack user to. Deny records the fixed instruction "denied in Slack by <user>": a
Slack modal would need a bot token to open it; people who want to write instructions follow the
"Open in dashboard" button. Every refusal is answered with an ephemeral message; a refusal of a
signed request is audited. A request without a good signature is nobody's action (anyone on the
internet can send one): it is counted (hitl_slack_unverified_requests) and logged at most once a
minute, so a flood cannot grow the audit trail."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import ReviewRequest, utcnow
from hitl_dashboard.db.slack_models import SlackSeenRequest
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action, ReviewKind
from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.observability import metrics
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.services.slack.links import linked_actor
from hitl_dashboard.services.slack.verification import (
    TIMESTAMP_WINDOW_S,
    Interaction,
    SlackRefused,
    SlackUnverified,
    verify,
)
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.webhooks.slack_blocks import (
    APPROVE_ACTION,
    OPEN_ACTION,
    ButtonValue,
    decided_message,
    ephemeral,
)
from hitl_dashboard.services.webhooks.webhooks import review_url

# Kept twice the timestamp window: an older copy of a request is refused by its timestamp anyway.
SEEN_KEPT = timedelta(seconds=2 * TIMESTAMP_WINDOW_S)
AUDIT_ACTOR = "slack"
_LOG_EVERY_S = 60.0
log = logging.getLogger(__name__)
UNLINKED = ("your Slack user is not linked to an active dashboard user in this review's workspace; "
            "ask its workspace admin to link you (`python -m hitl_dashboard slack link ... --workspace SLUG`)")


@dataclass(frozen=True)
class SlackAnswer:
    """The HTTP answer to Slack, and the message to POST to the request's response_url after it
    (None: nothing; a request we could not trust never gets one)."""

    status: int
    body: dict[str, Any]
    response_url: str | None = None
    follow_up: dict[str, Any] | None = None


def handle_interaction(body: bytes, timestamp: str | None, signature: str | None) -> SlackAnswer:
    try:
        interaction = verify(body, timestamp, signature)
    except SlackRefused as refused:
        if isinstance(refused, SlackUnverified):
            _count_unverified(refused)
        else:
            _audit_refusal(refused.reason, {})
        # `detail` as in the API's other errors, for whatever is not Slack (a proxy, a probe).
        return SlackAnswer(refused.status, {**ephemeral(f"Refused: {refused.reason}"), "detail": refused.reason})
    if interaction.action_id == OPEN_ACTION:  # the link opened the page; nothing to decide
        return SlackAnswer(200, {"text": ""})
    context: dict[str, Any] = {"slack_team_id": interaction.slack_team_id,
                               "slack_user_id": interaction.slack_user_id, "slack_action": interaction.action_id}
    try:
        value = _button_value(interaction)
        context["review_id"] = value.review_id
        actor, tool_call = _first_sight(interaction, value, context)
        context["username"] = actor.username  # who the refusals below were refused to
        outcome = decide(actor, value.review_id, _decision(interaction, value, actor, tool_call=tool_call))
    except _AlreadyAudited as refused:
        return _refused(interaction, refused.reason, refused.status)
    except SlackRefused as refused:
        _audit_refusal(refused.reason, context)
        return _refused(interaction, refused.reason, refused.status)
    except DomainError as exc:  # the decision's own checks: role, four eyes, version, content, closed
        _audit_refusal(str(exc), context)
        return _refused(interaction, str(exc), 200)
    verb = "approved" if interaction.action_id == APPROVE_ACTION else "denied"
    summary = (f"Review #{outcome.review_request_id} was {verb} by {actor.username} in Slack"
               + (" (the same click again: nothing new was applied)" if outcome.replayed else ""))
    message = decided_message(summary, review_url(outcome.review_request_id))
    return SlackAnswer(200, ephemeral(summary), interaction.response_url, message)


def _first_sight(interaction: Interaction, value: ButtonValue, context: dict[str, Any]) -> tuple[Actor, bool]:
    """Records the request as seen (a replay is refused, in every worker) with its audit event, and
    maps the Slack user, in one transaction. An unmapped user's click is still consumed. Also says
    whether the review is a tool call's (how Deny is recorded; decide() does every check)."""
    now = utcnow()
    with transaction() as uow:
        session = uow.session
        session.execute(delete(SlackSeenRequest).where(col(SlackSeenRequest.expires_at) < now))
        session.add(SlackSeenRequest(key=interaction.replay_key, expires_at=now + SEEN_KEPT))
        try:
            session.flush()
        except IntegrityError:
            uow.rollback()
            raise SlackRefused(409, "this exact request was already received: replays are refused") from None
        # The link of the review's workspace decides who clicked: a Slack user linked elsewhere only,
        # or a review that does not exist, is refused alike (nothing tells the two apart).
        review = session.exec(select(ReviewRequest.kind, ReviewRequest.workspace_id)
                              .where(ReviewRequest.id == value.review_id)).first()
        kind, workspace_id = review if review is not None else (None, None)
        actor = linked_actor(session, interaction.slack_team_id, interaction.slack_user_id, workspace_id)
        if actor is not None:
            append_audit(session, actor=actor.username, action="slack.action_received", workspace_id=workspace_id,
                         details=context)
        else:
            append_audit(session, actor=AUDIT_ACTOR, action="slack.refused", details={**context, "reason": UNLINKED})
    if actor is None:  # after the commit: the click is consumed and its refusal recorded
        raise _AlreadyAudited(UNLINKED)
    return actor, kind == ReviewKind.TOOL_CALL


class _AlreadyAudited(SlackRefused):
    """Refused with the refusal's audit event already in the committed transaction."""

    def __init__(self, reason: str) -> None:
        super().__init__(200, reason)


def _button_value(interaction: Interaction) -> ButtonValue:
    try:
        return ButtonValue.decode(interaction.value)
    except DomainError as exc:
        raise SlackRefused(200, str(exc)) from None


def _decision(interaction: Interaction, value: ButtonValue, actor: Actor, *, tool_call: bool) -> DecisionInput:
    # One key per click (per Slack user and action time): a click is applied at most once even if
    # it reached us twice under different signatures.
    click = f"{interaction.slack_team_id}:{interaction.slack_user_id}:{interaction.action_ts}:{interaction.value}"
    key = "slack-" + hashlib.sha256(click.encode("utf-8")).hexdigest()[:40]
    if interaction.action_id == APPROVE_ACTION:
        return DecisionInput(Action.APPROVE, idempotency_key=key, expected_version=value.version,
                             expected_content_hash=value.content_hash)
    # As the dashboard's Deny on a tool call: a reason only, so an external caller gets a denial
    # (ApprovalDenied), not a revision. Other reviews go back to the agents: the text is their instruction.
    why = f"denied in Slack by {actor.username}"
    return DecisionInput(Action.REVISE, reason=why, instructions=None if tool_call else why, idempotency_key=key,
                         expected_version=value.version, expected_content_hash=value.content_hash)


def _refused(interaction: Interaction, reason: str, status: int) -> SlackAnswer:
    """Told to the person who clicked only (ephemeral). A replay gets no message at the response_url:
    whoever replays a request is not the one who clicked."""
    message = ephemeral(f"Not applied: {reason}")
    if status == 409:
        return SlackAnswer(status, message)
    return SlackAnswer(status, message, interaction.response_url, message)


class _UnverifiedLog:
    """One log line a minute at most, saying how many were refused since the last one."""

    last_at, unlogged = 0.0, 0


def _count_unverified(refused: SlackRefused) -> None:
    metrics.slack_unverified(refused.status)
    _UnverifiedLog.unlogged += 1
    now = time.monotonic()
    if now - _UnverifiedLog.last_at >= _LOG_EVERY_S:
        log.warning("Slack endpoint: %d request(s) without a good signature refused in the last minute "
                    "(latest: %s %s)", _UnverifiedLog.unlogged, refused.status, refused.reason)
        _UnverifiedLog.last_at, _UnverifiedLog.unlogged = now, 0


def _audit_refusal(reason: str, context: dict[str, Any]) -> None:
    with transaction() as uow:
        append_audit(uow.session, actor=AUDIT_ACTOR, action="slack.refused", details={**context, "reason": reason})
