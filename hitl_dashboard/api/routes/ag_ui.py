"""GET /api/conversations/{id}/ag-ui: the conversation as AG-UI events over server-sent events
(docs/api.md, "AG-UI stream"). Each event's SSE id is its position; a client that reconnects with
Last-Event-ID continues after it. Events come from stored rows, so any web worker can serve any
reconnect, and a paused conversation costs an open stream one short read per poll."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from hitl_dashboard.api.browser_auth import sign_in_token
from hitl_dashboard.api.deps import CurrentActor, bearer
from hitl_dashboard.api.errors import COMMON_RESPONSES, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.domain.ag_ui_cursor import StreamCursor
from hitl_dashboard.domain.errors import NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.ag_ui.stream import change_mark, check_readable, next_batch
from hitl_dashboard.services.auth.browser_sign_ins import signed_in_actor
from hitl_dashboard.services.auth.tokens import resolve_token
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)
router = APIRouter(prefix="/conversations/{conversation_id}", tags=["ag-ui"],
                   responses={**COMMON_RESPONSES, **NOT_FOUND}, route_class=StrictJsonRoute)
KEEPALIVE_S = 15.0  # a comment line this often on an idle stream, so proxies keep it open
RECHECK_TOKEN_S = 10.0  # a revoked token or a deactivated user ends an open stream within this
EVENT_ID_CHARS = 120
STREAM_DOC: dict[int | str, dict[str, Any]] = {200: {"content": {"text/event-stream": {}},
                    "description": "AG-UI events as server-sent events, each with its id"},
              204: {"description": "The run already finished at the given Last-Event-ID: nothing follows"}}


@router.get("/ag-ui", response_class=StreamingResponse, responses=STREAM_DOC)
async def ag_ui_stream(
    request: Request, conversation_id: IdPath, actor: CurrentActor,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=EVENT_ID_CHARS)] = None,
    after: Annotated[str | None, Query(max_length=EVENT_ID_CHARS, description=(
        "An event id to continue after, for clients that cannot send Last-Event-ID; the header wins"))] = None,
) -> Response:
    """RUN_STARTED; each message as TEXT_MESSAGE_START, token-sized TEXT_MESSAGE_CONTENT deltas that
    add up to the stored message, TEXT_MESSAGE_END; approval-gated tool calls as TOOL_CALL_START, _ARGS,
    _END; STATE_SNAPSHOT when the status, sign-off progress or open reviews change; a CUSTOM event
    `hitl.review_waiting` per review waiting for a human; RUN_FINISHED once approved or aborted."""
    cursor = StreamCursor.decode(last_event_id or after)  # a malformed id: 422, before anything streams
    await run_in_threadpool(check_readable, actor, conversation_id)  # 404 before anything streams
    if cursor.finished:
        return Response(status_code=status.HTTP_204_NO_CONTENT)  # EventSource stops reconnecting on 204
    # Re-checked as it was authenticated: the bearer token, or else the browser's sign-in cookie.
    still_valid = (partial(_still_valid, resolve_token, credentials.credentials) if credentials
                   else partial(_still_valid, signed_in_actor, sign_in_token(request) or ""))
    return StreamingResponse(_events(actor, still_valid, conversation_id, cursor), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _events(actor: Actor, still_valid: Callable[[], bool], conversation_id: int,
                  cursor: StreamCursor) -> AsyncIterator[str]:
    poll = get_settings().ag_ui_poll_seconds
    quiet_since = recheck_at = time.monotonic()
    recheck_at += RECHECK_TOKEN_S
    seen: tuple | None = None  # the change mark at the last whole pass (only spares passes; never skips an event)
    more = True
    while True:
        try:
            mark = await run_in_threadpool(change_mark, conversation_id)
            if more or mark is None or mark != seen:
                batch = await run_in_threadpool(next_batch, actor, conversation_id, cursor)
                seen, more, cursor = mark, batch.more, batch.cursor
                for event_id, event in batch.events:
                    yield f"id: {event_id}\ndata: {event.model_dump_json(by_alias=True)}\n\n"
                if batch.finished:
                    return
                if batch.events:
                    quiet_since = time.monotonic()
        except (OperationalError, NotFound) as exc:
            # The client reconnects with the last id it got and loses nothing.
            log.warning("AG-UI stream of conversation %s ended: %s", conversation_id, type(exc).__name__)
            return
        now = time.monotonic()
        if now - quiet_since >= KEEPALIVE_S:
            quiet_since = now
            yield ": keep-alive\n\n"
        if now >= recheck_at:
            recheck_at = now + RECHECK_TOKEN_S
            if not await run_in_threadpool(still_valid):
                return
        if not more:
            await asyncio.sleep(poll)


def _still_valid(resolve: Callable[[str], Actor], token: str) -> bool:
    """False once the token or the sign-in is revoked, expired or its user deactivated."""
    try:
        resolve(token)
    except PermissionDenied:
        return False
    return True
