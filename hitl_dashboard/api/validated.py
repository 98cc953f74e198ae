"""Answer with a response model that is already validated, as FastAPI would have sent it.

For a synchronous endpoint FastAPI validates the returned value against response_model again, in
one more trip through the thread pool, then serialises it. The hot routes (claim, decision; issue 33)
build their response model from the service's result, which validates it once; they return its JSON
themselves and keep response_model on the route for the OpenAPI schema."""

from __future__ import annotations

from fastapi import Response
from pydantic import BaseModel


def validated_json(model: BaseModel) -> Response:
    # by_alias as FastAPI's own serialisation of a response model (response_model_by_alias=True).
    return Response(model.model_dump_json(by_alias=True), media_type="application/json")
