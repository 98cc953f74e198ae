"""GET /metrics: Prometheus text format, for every process of the deployment (docs/operations.md).

Who may scrape: with METRICS_TOKEN set, whoever sends it as a bearer token; without one, in
hosted mode only clients in METRICS_ALLOW_NETWORKS (loopback by default), in demo mode anyone.
Queue depths are read from the database at scrape time; the counters come from every web worker
and runner process through PROMETHEUS_MULTIPROC_DIR."""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST

from hitl_dashboard.observability.metrics import exposition
from hitl_dashboard.services.observability.queue_metrics import ReviewQueueCollector
from hitl_dashboard.settings import get_settings

router = APIRouter(tags=["operations"])


@router.get("/metrics", response_class=Response, include_in_schema=False)
def metrics(request: Request) -> Response:
    # A plain (sync) route: the scrape reads the database in a thread, off the event loop.
    _check_access(request)
    return Response(exposition(ReviewQueueCollector()), media_type=CONTENT_TYPE_LATEST)


def _check_access(request: Request) -> None:
    settings = get_settings()
    if settings.metrics_token:
        sent = request.headers.get("authorization", "")
        scheme, _, token = sent.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(),
                                                                 settings.metrics_token.encode()):
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail="send the metrics token as a bearer token",
                                headers={"WWW-Authenticate": "Bearer"})
        return
    if settings.demo_mode:
        return
    address = _client_address(request, settings.trusted_proxy_hops)
    try:
        allowed = any(ipaddress.ip_address(address) in network for network in settings.metrics_networks())
    except ValueError:
        allowed = False
    if not allowed:
        raise HTTPException(status.HTTP_403_FORBIDDEN,
                            detail="metrics are served to METRICS_ALLOW_NETWORKS only, or with METRICS_TOKEN")


def _client_address(request: Request, trusted_hops: int) -> str:
    peer = request.client.host if request.client else ""
    if trusted_hops <= 0:
        return peer
    forwarded = [part.strip() for part in request.headers.get("x-forwarded-for", "").split(",") if part.strip()]
    # Each trusted proxy appended the address it saw: the one `hops` from the end is the client's.
    return forwarded[-trusted_hops] if len(forwarded) >= trusted_hops else peer
