"""GET /api/health: is the process up and can it reach its database?"""

from __future__ import annotations

import logging

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

import hitl_dashboard
from hitl_dashboard.db.engine import get_engine

logger = logging.getLogger(__name__)

router = APIRouter()


def database_status() -> str:
    try:
        with get_engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:  # any driver or network error means "unreachable" here
        logger.exception("health check: database unreachable")
        return "unreachable"
    return "ok"


@router.get("/health")
def health() -> JSONResponse:
    # A plain (sync) route: FastAPI runs it in a thread, so a slow database
    # does not block the event loop that also serves the websocket.
    database = database_status()
    body = {
        "status": "ok" if database == "ok" else "degraded",
        "database": database,
        "version": hitl_dashboard.__version__,
    }
    return JSONResponse(body, status_code=200 if database == "ok" else 503)
