"""Who may call through the gateway: the user of an approvals-scope token (HTTP: its bearer header;
stdio: HITL_TOKEN). A full-scope token is refused: an agent holding one could read the queues and
decide its own reviews, which is what the gateway is there to prevent."""

from __future__ import annotations

import time

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import APPROVALS_SCOPE, Actor
from hitl_dashboard.services.auth.tokens import hash_token, resolve_token


class FullScopeToken(PermissionDenied):
    """A valid token, of the wrong scope for the gateway."""


FULL_SCOPE_REFUSED = ("this is a full-scope token: the MCP gateway takes only an approvals-scope token, so the "
                      "agent can ask for reviews but never decide them. Make one with `python -m hitl_dashboard "
                      "tokens create <user> --name <agent> --scope approvals`")


# Every HTTP request of a session carries the token: a token found good is trusted for this long
# before it is looked up again (a revoked token or a deactivated user stops working within it).
TRUSTED_FOR_S = 2.0
_trusted: dict[str, tuple[float, Actor]] = {}


def gateway_caller(token: str) -> Actor:
    """The caller, or PermissionDenied (unknown, revoked or expired token) or FullScopeToken."""
    key = hash_token(token)
    now = time.monotonic()
    found = _trusted.get(key)
    if found is not None and now - found[0] < TRUSTED_FOR_S:
        return found[1]
    actor = resolve_token(token)
    if actor.scope != APPROVALS_SCOPE:
        raise FullScopeToken(FULL_SCOPE_REFUSED)
    if len(_trusted) > 10_000:
        _trusted.clear()
    _trusted[key] = (now, actor)
    return actor
