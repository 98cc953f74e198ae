"""The FastAPI app that Reflex mounts in front of its own routes (same port)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

import hitl_dashboard
from hitl_dashboard import listeners
from hitl_dashboard.api import health, metrics
from hitl_dashboard.api.request_context import RequestContextMiddleware, traced
from hitl_dashboard.api.routes import sign_in
from hitl_dashboard.api.wiring import mount_api
from hitl_dashboard.gateway.http import MOUNT as MCP_MOUNT
from hitl_dashboard.gateway.http import GatewayHttp

API_PREFIX = "/api"
DOCS_URL = f"{API_PREFIX}/docs"
DOCS_ASSETS_URL = f"{API_PREFIX}/docs-assets"


def create_api() -> FastAPI:
    listeners.install()  # every process that serves the API writes audit events through services
    # Docs live under /api so they never shadow a page route of the frontend. FastAPIOffline
    # serves Swagger UI's script, stylesheet and icon from the app (a pinned package) instead of
    # a CDN, so /api/docs works on a machine with no internet access.
    # FastAPI's own lifespan does not run under Reflex: background work is
    # registered with app.register_lifespan_task in the app module instead (the MCP gateway's too; under
    # uvicorn and in the tests this lifespan runs it).
    gateway = GatewayHttp()
    api = FastAPIOffline(
        lifespan=lambda _app: gateway.lifespan(),
        title="HITL Dashboard API",
        version=hitl_dashboard.__version__,
        docs_url=DOCS_URL,
        redoc_url=None,
        openapi_url=f"{API_PREFIX}/openapi.json",
        swagger_ui_oauth2_redirect_url=f"{DOCS_URL}/oauth2-redirect",
        static_url=DOCS_ASSETS_URL,
        # No spec validation against an online service (and no request leaving the machine).
        swagger_ui_parameters={"validatorUrl": None},
        # FastAPI's native OpenTelemetry spans (a no-op until observability/tracing.py configures
        # an exporter), for /api requests only.
        telemetry={"exclude": lambda scope: not traced(scope)},
    )
    api.include_router(health.router, prefix=API_PREFIX, tags=["health"])
    api.include_router(metrics.router)  # /metrics, where Prometheus looks by default
    api.include_router(sign_in.router)  # /auth/...: the browser's sign-in cookie (HTML forms, redirects)
    mount_api(api, API_PREFIX)  # conversations, reviews, audit: routers, errors, body limit
    api.state.mcp_gateway = gateway
    api.mount(MCP_MOUNT, gateway)  # the MCP gateway (docs/mcp-gateway.md): /mcp/<team>, streamable HTTP
    api.add_middleware(RequestContextMiddleware, prefix=API_PREFIX)  # request ids for logs, a span per request
    return api


api = create_api()
