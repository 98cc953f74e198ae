"""Request dependencies: the caller (bearer token, or the browser's sign-in cookie; rate limits).

No dependency holds a unit of work: each service opens and ends its own inside the call. A yield
dependency would be closed after the response, from the event loop, and on SQLite an open
transaction holds the write lock until then; anything on the loop that waits for that lock (the
in-process runner does) would then wait for itself, for busy_timeout."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from hitl_dashboard.api.browser_auth import SAFE_METHODS, CrossSiteRequest, check_csrf, sign_in_token
from hitl_dashboard.api.rate_limits import RateLimiter, get_rate_limiter
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_full_scope
from hitl_dashboard.services.auth.browser_sign_ins import signed_in_actor
from hitl_dashboard.services.auth.tokens import hash_token, resolve_token
from hitl_dashboard.settings import get_settings

bearer = HTTPBearer(auto_error=False, description="An API token: `python -m hitl_dashboard tokens create USER`")


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail=message, headers={"WWW-Authenticate": "Bearer"})


def client_address(request: Request) -> str:
    """The caller's address for the per-address limit: the peer, or behind TRUSTED_PROXY_HOPS
    reverse proxies the entry the outermost trusted proxy appended to X-Forwarded-For. Entries a
    client wrote itself sit further left and are never read, so it cannot pick its own address.
    The same rule as Reflex's for the sign-in throttle (rxconfig trusted_proxy_hops)."""
    hops = get_settings().trusted_proxy_hops
    if hops:
        forwarded = [ip.strip() for ip in request.headers.get("x-forwarded-for", "").split(",") if ip.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.client.host if request.client else "unknown"


def current_actor(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Actor:
    """Every route but the external approval ones: a token of any scope but full is refused (403)."""
    actor = any_scope_actor(request, credentials)
    check_full_scope(actor)
    return actor


def any_scope_actor(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Actor:
    """The caller of the external approval routes: a full or an approvals-only token (the services
    check that a request is the caller's own)."""
    limiter = get_rate_limiter()
    limiter.check_address(client_address(request))  # first, so guessing tokens is limited too
    if credentials is None:
        return _cookie_actor(request, limiter)
    try:
        actor = resolve_token(credentials.credentials)
    except PermissionDenied as exc:
        raise _unauthorized(str(exc)) from None
    limiter.check_token(hash_token(credentials.credentials))
    return actor


def _cookie_actor(request: Request, limiter: RateLimiter) -> Actor:
    """The browser's own calls (downloads from its pages) carry the sign-in cookie instead of a token;
    one that changes something must also come from this site with the CSRF token (browser_auth)."""
    token = sign_in_token(request)
    if not token:
        raise _unauthorized("send an API token as 'Authorization: Bearer <token>'")
    try:
        actor = signed_in_actor(token)
    except PermissionDenied as exc:
        raise _unauthorized(str(exc)) from None
    if request.method not in SAFE_METHODS:
        try:
            check_csrf(request, "")
        except CrossSiteRequest as reason:
            raise HTTPException(status.HTTP_403_FORBIDDEN,
                                detail=f"refused: {reason}; a browser's request must come from this site's pages "
                                       "with its X-CSRF-Token header") from None
    limiter.check_token(hash_token(token))
    return actor


CurrentActor = Annotated[Actor, Depends(current_actor)]
ApprovalCaller = Annotated[Actor, Depends(any_scope_actor)]
