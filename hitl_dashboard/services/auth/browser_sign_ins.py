"""Browser sign-ins: what a password or single sign-on opens, and how it ends.

A browser sign-in is an opaque token (services/tokens, kind "session") that lives only in an
HttpOnly cookie. It ends when signed out, after SIGN_IN_MAX_HOURS from its start (expires_at), after
SIGN_IN_IDLE_MINUTES without a request (tokens._resolve), or when its user signs out everywhere.

The CSRF token of a sign-in is derived from it (a hash with its own label), so nothing more is
stored: whoever holds the cookie's token can compute it, and the derived value reveals nothing of
the token. Forms and cookie-authenticated HTTP calls send it back (api/browser_auth.py)."""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import update
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import ApiToken, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.auth.tokens import hash_token, issue_token, resolve_token, token_facts
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.settings import get_settings

SIGN_IN_TOKEN_NAME = "browser sign-in"
SIGN_IN_COOKIE = "hitl_sign_in"  # HttpOnly; set and cleared only by the HTTP routes (api/routes/sign_in.py)
AUDITED_ADDRESS_CHARS = 64
_CSRF_LABEL = b"hitl-csrf-v1:"


def open_sign_in(uow: UnitOfWork, actor: Actor, *, address: str, method: str) -> str:
    """The step every way of signing in ends with, inside its transaction: a new browser sign-in
    and its one audit event (`user.signed_in`, with the method: password or sso). Returns the token."""
    row, token = issue_token(uow, user_id=actor.user_id, name=SIGN_IN_TOKEN_NAME, kind="session",
                             ttl_hours=get_settings().sign_in_max_hours, audited=False)
    append_audit(uow.session, actor=actor.username, action="user.signed_in",
                 details={"address": address[:AUDITED_ADDRESS_CHARS], "method": method,
                          "session_token_id": row.id, **token_facts(row)})
    return token


def signed_in_actor(token: str) -> Actor:
    """The user of a live browser sign-in (PermissionDenied otherwise: unknown, ended, idle, expired)."""
    return resolve_token(token, "session")


def csrf_token_for(token: str) -> str:
    return hashlib.sha256(_CSRF_LABEL + token.encode("utf-8")).hexdigest() if token else ""


def csrf_matches(token: str, submitted: str) -> bool:
    return bool(token and submitted) and hmac.compare_digest(csrf_token_for(token), submitted)


def sign_out(token: str) -> None:
    """Ends this browser sign-in; an unknown or already ended one is a no-op (signing out twice is fine)."""
    with transaction() as uow:
        row = uow.session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token),
                                                      ApiToken.kind == "session")).first()
        if row is None or row.revoked_at is not None:
            return
        row.revoked_at = utcnow()
        uow.session.add(row)
        user = uow.session.get(User, row.user_id)
        append_audit(uow.session, actor=user.username if user else "system", action="user.signed_out")


def sign_out_everywhere(token: str, *, address: str) -> int:
    """Ends every browser sign-in of the user this one belongs to (other browsers, other devices).
    API tokens are not touched. Returns how many ended; audited as `user.signed_out_everywhere`."""
    actor = signed_in_actor(token)  # only a live sign-in may end the others
    with transaction() as uow:
        ended = uow.session.exec(
            update(ApiToken)
            .where(col(ApiToken.user_id) == actor.user_id, col(ApiToken.kind) == "session",
                   col(ApiToken.revoked_at).is_(None))
            .values(revoked_at=utcnow())
        ).rowcount
        append_audit(uow.session, actor=actor.username, action="user.signed_out_everywhere",
                     details={"ended": ended, "address": address[:AUDITED_ADDRESS_CHARS]})
    if ended == 0:
        raise PermissionDenied("this sign-in has already ended")
    return ended
