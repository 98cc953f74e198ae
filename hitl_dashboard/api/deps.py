"""Request dependencies: the caller (bearer token, or the browser's sign-in cookie; rate limits).

No dependency holds a unit of work: each service opens and ends its own inside the call. A yield
dependency would be closed after the response, from the event loop, and on SQLite an open
transaction holds the write lock until then; anything on the loop that waits for that lock (the
in-process runner does) would then wait for itself, for busy_timeout."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from starlette.concurrency import run_in_threadpool

from hitl_dashboard.api.browser_auth import SAFE_METHODS, CrossSiteRequest, check_csrf, sign_in_token
from hitl_dashboard.api.rate_limits import RateLimiter, get_rate_limiter
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_full_scope
from hitl_dashboard.services.auth.browser_sign_ins import signed_in_actor
from hitl_dashboard.services.auth.tokens import hash_token, resolve_token
from hitl_dashboard.services.workspaces.workspaces import acting_in
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


ACTOR_SCOPE_KEY = "hitl.actor"  # the caller, found by the route before anything else (strict_json.py)


# Every route's explicit workspace (issue 41): what it lists, counts and exports, and where what it
# creates goes. Without it: every workspace the caller is in for reads; for a new conversation, team,
# webhook or approval request, the caller's only one (several: 422 asking which).
WorkspaceParam = Annotated[str | None, Query(
    pattern=r"^[a-z0-9][a-z0-9-]{1,39}$",
    description="The workspace's slug: the request acts in this workspace only (404 if you are not in it). "
                "Without it, reads cover every workspace you are in, and a new conversation, team, webhook "
                "or approval request goes to your only workspace (you are in several: name one).")]


async def current_actor(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    workspace: WorkspaceParam = None,
) -> Actor:
    """Every route but the external approval ones: a token of any scope but full is refused (403)."""
    actor = await any_scope_actor(request, credentials, workspace)
    check_full_scope(actor)
    return actor


async def any_scope_actor(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    workspace: WorkspaceParam = None,
) -> Actor:
    """The caller of the external approval routes: a full or an approvals-only token (the services
    check that a request is the caller's own). `credentials` declares the scheme in the OpenAPI
    document; the caller itself was found by the route (StrictJsonRoute) before the body was read.
    With `workspace`, the caller is bound to it: every service then reads and writes there only."""
    actor: Actor | None = request.scope.get(ACTOR_SCOPE_KEY)
    if actor is None:  # a route of another class: the same check, now
        actor = await run_in_threadpool(authenticate, request)
    if workspace:
        actor = await run_in_threadpool(acting_in, actor, workspace)
    return actor


def authenticate(request: Request) -> Actor:
    """The caller by bearer token or sign-in cookie, or 401; rate-limited per address and per
    credential. Synchronous: a token is looked up in the database."""
    limiter = get_rate_limiter()
    limiter.check_address(client_address(request))  # first, so guessing tokens is limited too
    scheme, token = get_authorization_scheme_param(request.headers.get("authorization"))
    if not (scheme.lower() == "bearer" and token):
        return _cookie_actor(request, limiter)
    try:
        actor = resolve_token(token)
    except PermissionDenied as exc:
        raise _unauthorized(str(exc)) from None
    limiter.check_token(hash_token(token))
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
