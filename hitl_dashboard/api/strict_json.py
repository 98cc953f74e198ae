"""Request bodies read only from a known caller (StrictJsonRoute), and strictly (domain/bounded_input.py):
UTF-8 only, no key given twice, a bounded depth. FastAPI's own reading (json.loads on the bytes)
guesses UTF-16 and UTF-32, skips a byte order mark and lets the last of two equal keys win, so
`{"action": "approve", "action": "abort"}` would be applied as one of the two: here it is a 400
that says why, and nothing is applied."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.types import Receive, Scope, Send

from hitl_dashboard.api.deps import ACTOR_SCOPE_KEY, any_scope_actor, authenticate, current_actor
from hitl_dashboard.domain.bounded_input import load_json
from hitl_dashboard.domain.errors import InvalidInput


class StrictJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = load_json(await self.body())
            except InvalidInput as exc:
                if isinstance(exc.__context__, json.JSONDecodeError):
                    # Plain bad syntax keeps FastAPI's usual 422 json_invalid (the API's contract).
                    raise exc.__context__ from None
                # An HTTPException is the one error FastAPI lets out of its body reading unchanged;
                # any other becomes a 400 "There was an error parsing the body" that says nothing.
                raise HTTPException(400, detail=str(exc)) from None
        return self._json


class StrictJsonRoute(APIRoute):
    """Every /api router is made with route_class=StrictJsonRoute (wiring.py refuses one that is not).

    A route that needs a caller finds it first, in `handle`, outside FastAPI's body limit and before
    its body is read or any parameter validated: an anonymous or unknown caller gets 401, never a
    400/413/422 about a body it had no right to send, and no large body is parsed for it. The
    dependency (deps.current_actor) then takes the caller found here."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        self.needs_caller = _needs_caller(self.dependant)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.needs_caller and scope["type"] == "http":
            scope[ACTOR_SCOPE_KEY] = await run_in_threadpool(authenticate, Request(scope))
        await super().handle(scope, receive, send)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict_handler


def _needs_caller(dependant: Dependant) -> bool:
    return any(d.call in (current_actor, any_scope_actor) or _needs_caller(d) for d in dependant.dependencies)
