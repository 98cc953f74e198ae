"""GET /api/health: is the process up and can it reach its database?"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

import hitl_dashboard
from hitl_dashboard.services.schema import database_status

router = APIRouter()


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
