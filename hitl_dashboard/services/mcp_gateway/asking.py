"""A gated call becomes an external approval request (services/external/requests.py), under an id
derived from the call itself, so a client that reconnects and repeats it finds the same review.

Why the call's content and not the MCP request id: a JSON-RPC id counts per session (0, 1, 2...) and
starts again when a client reconnects, so it cannot tell a repeat from a new call. The id here is
`mcp-<hash of team, server, tool, arguments>-<n>`: the same call by the same caller finds review n
while it waits, and for MCP_GATEWAY_REPEAT_WINDOW_S (600 s) after it was last decided or reported (a
repeat of a call that ran gets its recorded result, it does not run again); after that, or after the
caller withdrew it, the same call asks anew as n+1. Two identical calls at the same moment compute
the same n+1: the unique (caller, request id) lets one of them create it, the other finds it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import col, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import Conversation, utcnow
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.hashing import canonical_json, content_hash
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.external.requests import ApprovalCommand, request_approval
from hitl_dashboard.services.external.views import ApprovalView, approval_view
from hitl_dashboard.services.external.withdraw import WITHDRAWN
from hitl_dashboard.services.mcp_gateway.catalog import GatewayTeam
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.settings import get_settings


def call_key(team: GatewayTeam, server: str, tool: str, arguments: dict[str, Any]) -> str:
    called = {"team": team.name, "workspace": team.workspace, "server": server, "tool": tool, "arguments": arguments}
    return "mcp-" + content_hash(canonical_json(called))[:40] + "-"


def ask(actor: Actor, team: GatewayTeam, server: str, tool: str, arguments: dict[str, Any],
        args_schema: dict[str, Any] | None, client: str) -> ApprovalView:
    """The review of this call: the one a repeat finds, or a new one."""
    prefix = call_key(team, server, tool, arguments)
    for _ in range(2):
        earlier, number = _earlier(actor, prefix)
        if earlier is not None:
            return earlier
        command = ApprovalCommand(
            request_id=f"{prefix}{number}", team=team.name, workspace=team.workspace,
            title=f"{tool} ({server}, through the MCP gateway)"[:200], tool=tool, arguments=arguments,
            args_schema=args_schema,
            context=f"Called through the MCP gateway by **{actor.username}** (token *{actor.token_name}*) "
                    f"from the MCP client `{client}`; upstream server `{server}` of team `{team.name}`.")
        try:
            return request_approval(actor, command)
        except Conflict:  # the same call raced in from another client of this caller: look again
            continue
    raise Conflict("the same call is being asked for at this moment by another connection; call again")


def _earlier(actor: Actor, prefix: str) -> tuple[ApprovalView | None, int]:
    """(the review a repeat finds, or None with the number of the next one)."""
    with reading() as uow:
        session = uow.session
        row = session.exec(select(ExternalRequest).where(
            ExternalRequest.caller_id == actor.user_id, col(ExternalRequest.caller_request_id).startswith(prefix))
            .order_by(col(ExternalRequest.id).desc()).limit(1)).first()
        if row is None:
            return None, 1
        number = int(row.caller_request_id.rsplit("-", 1)[1]) + 1
        conversation = session.get(Conversation, row.conversation_id)
        assert conversation is not None
        view = approval_view(session, row, conversation)
        if not view.outcome.decided:
            return view, number
        if conversation.status == ConversationStatus.ABORTED and (conversation.status_reason or "").startswith(
                WITHDRAWN):
            return None, number
        window = timedelta(seconds=get_settings().mcp_gateway_repeat_window_s)
        last = max(conversation.updated_at, row.reported_at or conversation.updated_at)
        if utcnow() - _aware(last) <= window:
            return view, number
        return None, number


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite reads naive
