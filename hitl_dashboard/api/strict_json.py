"""Request bodies read strictly (domain/bounded_input.py): UTF-8 only, no key given twice, a bounded
depth. FastAPI's own reading (json.loads on the bytes) guesses UTF-16 and UTF-32, skips a byte order
mark and lets the last of two equal keys win, so `{"action": "approve", "action": "abort"}` would be
applied as one of the two: here it is a 400 that says why, and nothing is applied."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute

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
    """Every /api router is made with route_class=StrictJsonRoute (wiring.py refuses one that is not)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict_handler
