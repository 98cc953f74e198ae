"""A call that needs a person: it becomes a review (asking.py), waits for the decision without
holding a thread (a read now and then, as a long poll does; each still-pending read can send the
client a progress notification), and then:
- approved: the approved (possibly edited) arguments go upstream once. The start is committed
  before the call (services/external/forwarding.py), so a gateway killed mid-call and asked again
  never runs it twice: at most once, and the repeat is told the outcome is unknown; the result is
  reported (transcript, audit);
- denied: a tool error carrying the reviewer's reason; revise: a tool error with the instructions;
- cancelled by the client while it waits: the review is withdrawn (audited). A dropped connection
  or a gateway stopping is not a cancellation: the review stays, and a repeat finds it. With stateless
  sessions (MCP_GATEWAY_SESSIONS) a dropped request ends its waiting call here too (the MCP package
  cancels the handler when the request's stream closes): nothing is left waiting, so an approval given
  afterwards runs nothing until the client repeats the call (it then runs once, as above)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.external import DENIED, MAX_RESULT, REVISE
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.external.follow import report_result, wait_for_outcome
from hitl_dashboard.services.external.forwarding import start_forwarding
from hitl_dashboard.services.external.views import ApprovalView
from hitl_dashboard.services.external.withdraw import withdraw_request
from hitl_dashboard.services.mcp_gateway.asking import ask
from hitl_dashboard.services.mcp_gateway.catalog import GatewayTeam

logger = logging.getLogger(__name__)
# The threads the gateway's database work runs on, whatever the number of waiting calls: each
# waiting call reads its review every 2 s at most, a millisecond's work.
THREADS = anyio.CapacityLimiter(4)
WAIT_S = 3600.0  # one long poll's length (capped by EXTERNAL_MAX_WAIT_S); the wait itself has no limit
NOT_RUN_AGAIN = ("this call was approved and the gateway started forwarding it, but it stopped before the "
                 "upstream server answered: whether it ran is unknown, so it is not run again (at most once). "
                 "Check the upstream system; to run it anyway, call again after the repeat window")


@dataclass(frozen=True)
class Answer:
    text: str
    is_error: bool
    result: Any = None  # the upstream server's own result, when the call ran now


@dataclass(frozen=True)
class GatedCall:
    actor: Actor
    team: GatewayTeam
    server: str
    tool: str
    arguments: dict[str, Any]
    args_schema: dict[str, Any] | None
    client: str  # the MCP client's name and version, for the reviewers


UpstreamCall = Callable[[dict[str, Any]], Awaitable[tuple[Any, str, bool]]]  # -> (result, its text, is_error)
Progress = Callable[[ApprovalView], Awaitable[None]]


async def run_gated(call: GatedCall, upstream: UpstreamCall, progress: Progress,
                    client_cancelled: Callable[[], bool]) -> Answer:
    view = await anyio.to_thread.run_sync(lambda: ask(call.actor, call.team, call.server, call.tool,
                                                      call.arguments, call.args_schema, call.client),
                                          limiter=THREADS)
    try:
        while not view.outcome.decided:
            view = await wait_for_outcome(call.actor, view.id, WAIT_S, on_pending=progress, limiter=THREADS)
    except anyio.get_cancelled_exc_class():
        if client_cancelled():
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_withdraw, call.actor, view.id, limiter=THREADS)
        else:
            logger.info("mcp gateway: stopped waiting for approval %s (the client's request ended or the gateway "
                        "stops); the review stays open and a repeat of the call finds it", view.id)
        raise
    outcome = view.outcome
    if outcome.status == DENIED:
        return Answer(f"Denied by {outcome.decided_by}: {outcome.reason}", True)
    if outcome.status == REVISE:
        return Answer(f"Revise (asked by {outcome.decided_by}): {outcome.instructions}", True)
    return await _forward(call, view.id, upstream)


def _withdraw(actor: Actor, approval_id: int) -> None:
    with contextlib.suppress(Conflict):  # decided in the meantime: the decision stands
        withdraw_request(actor, approval_id, "the MCP client cancelled the call")


async def _forward(call: GatedCall, approval_id: int, upstream: UpstreamCall) -> Answer:
    forwarding = await anyio.to_thread.run_sync(
        lambda: start_forwarding(call.actor, approval_id, by="mcp gateway"), limiter=THREADS)
    if forwarding.reported is not None:
        status, text = forwarding.reported
        return Answer(text, status != "ok")
    if forwarding.interrupted:  # recorded as failed, as the runner does with a call a restart interrupted
        await anyio.to_thread.run_sync(lambda: report_result(call.actor, approval_id, ok=False, text=NOT_RUN_AGAIN),
                                       limiter=THREADS)
        return Answer(NOT_RUN_AGAIN, True)
    with anyio.CancelScope(shield=True):  # started: it runs to its end and is reported, once
        try:
            result, text, is_error = await upstream(forwarding.arguments)
        except Exception as exc:  # noqa: BLE001 - the upstream's failure is this call's answer
            result, text, is_error = None, f"the upstream server failed: {type(exc).__name__}: {exc}", True
        await anyio.to_thread.run_sync(lambda: report_result(call.actor, approval_id, ok=not is_error,
                                                             text=cut_visibly(text, MAX_RESULT - 100)),
                                       limiter=THREADS)
    return Answer(text, is_error, result)
