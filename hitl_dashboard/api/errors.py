"""Domain errors become HTTP statuses here, and nothing else becomes a 500 unless it is a bug."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from hitl_dashboard.domain.errors import (
    Conflict,
    DomainError,
    InvalidInput,
    NotFound,
    PermissionDenied,
    TooManyAttempts,
)

log = logging.getLogger(__name__)

STATUS_BY_ERROR = {NotFound: 404, PermissionDenied: 403, Conflict: 409, InvalidInput: 422, TooManyAttempts: 429}


class ErrorBody(BaseModel):
    detail: str


# What FastAPI's `responses=` takes: the documented answers by status code.
Responses = dict[int | str, dict[str, Any]]


def _doc(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


# Documented on every authenticated route (422 is FastAPI's own validation schema).
COMMON_RESPONSES: Responses = {
    400: _doc("The body is not readable JSON: not UTF-8, a byte order mark, a key given twice, nested too deep"),
    401: _doc("Missing, unknown, revoked or expired token"),
    403: _doc("The token's user lacks the role"),
    # Every such route takes ?workspace= (api/deps.py): one the caller is not in does not exist.
    404: _doc("No such resource, or the workspace named is not one of yours"),
    413: _doc("Request body too large"),
    429: _doc("Rate limit exceeded; see Retry-After"),
}
NOT_FOUND: Responses = {404: _doc("No such resource")}
CONFLICT: Responses = {409: _doc("Changed under you: stale version, already claimed or decided")}


def _domain_error(request: Request, exc: DomainError) -> JSONResponse:
    status = next((code for kind, code in STATUS_BY_ERROR.items() if isinstance(exc, kind)), 400)
    if isinstance(exc, InvalidInput):
        # The same shape as FastAPI's own validation errors, so clients parse one format.
        where = "body" if request.method in ("POST", "PUT", "PATCH") else "query"
        loc = [where, exc.field] if exc.field else [where]
        return JSONResponse({"detail": [{"loc": loc, "msg": str(exc), "type": "invalid_input"}]}, status_code=422)
    return JSONResponse({"detail": str(exc)}, status_code=status)


def _printable(text: str) -> str:
    # A lone surrogate in the input can end up in a message; JSON-encoding it as UTF-8 would fail.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    # FastAPI's shape without echoing the input back: the input may be huge or not encodable.
    errors = [{"loc": [_printable(str(p)) if isinstance(p, str) else p for p in e.get("loc", ())],
               "msg": _printable(str(e.get("msg", ""))), "type": str(e.get("type", ""))} for e in exc.errors()]
    return JSONResponse({"detail": errors}, status_code=422)


def _database_unavailable(request: Request, exc: OperationalError) -> JSONResponse:
    log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc.orig)
    return JSONResponse({"detail": "the database is busy or unreachable; retry shortly"}, status_code=503,
                        headers={"Retry-After": "2"})


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # Called outside the except block that caught it: pass the exception for the traceback.
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": "internal error; it has been logged"}, status_code=500)


def install_error_handlers(api: FastAPI) -> None:
    # Starlette types every handler as taking any Exception; each of these is registered for, and
    # only called with, the class it names.
    api.add_exception_handler(DomainError, _domain_error)  # type: ignore[arg-type]
    api.add_exception_handler(RequestValidationError, _invalid_request)  # type: ignore[arg-type]
    api.add_exception_handler(OperationalError, _database_unavailable)  # type: ignore[arg-type]
    api.add_exception_handler(Exception, _unexpected)
    api.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]


async def _http_error(request: Request, exc: StarletteHTTPException):  # noqa: ANN202 - a Response
    """Starlette's own answers. A path that no route's pattern can match (a line break in it: the
    /api fallback's path pattern stops at one) got a plain-text 404; under /api the answer is JSON."""
    if request.url.path.startswith("/api/") and exc.status_code == 404:
        return JSONResponse({"detail": f"no API endpoint at {request.url.path[:200]}"}, status_code=404)
    return await http_exception_handler(request, exc)
