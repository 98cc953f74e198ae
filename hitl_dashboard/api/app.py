"""The FastAPI app that Reflex mounts in front of its own routes (same port)."""

from __future__ import annotations

from fastapi import FastAPI

import hitl_dashboard
from hitl_dashboard.api import health
from hitl_dashboard.api.wiring import mount_api

API_PREFIX = "/api"


def create_api() -> FastAPI:
    # Docs live under /api so they never shadow a page route of the frontend.
    # FastAPI's own lifespan does not run under Reflex: background work is
    # registered with app.register_lifespan_task in the app module instead.
    api = FastAPI(
        title="HITL Dashboard API",
        version=hitl_dashboard.__version__,
        docs_url=f"{API_PREFIX}/docs",
        redoc_url=None,
        openapi_url=f"{API_PREFIX}/openapi.json",
    )
    api.include_router(health.router, prefix=API_PREFIX, tags=["health"])
    mount_api(api, API_PREFIX)  # conversations, reviews, audit: routers, errors, body limit
    return api


api = create_api()
