"""Browser sessions: a password sign-in yields a session token (services/tokens, kind "session").

Sign-in attempts are throttled per account and per client address (services/sign_in_throttle),
here in the service, so every way in (websocket, HTTP, CLI) is covered. Every refused attempt
is audited as `user.sign_in_failed` in its own transaction, with the attempted name and the
address, never the password."""

from __future__ import annotations

from sqlmodel import select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import ApiToken, User, utcnow
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.domain.errors import PermissionDenied, TooManyAttempts
from hitl_dashboard.services.auth.sign_in_throttle import get_sign_in_throttle
from hitl_dashboard.services.auth.tokens import hash_token, issue_token, token_facts
from hitl_dashboard.services.auth.users import authenticate
from hitl_dashboard.services.transactions import transaction

SESSION_HOURS = 12.0
# Usernames are at most 64 characters; an attempted name is kept no longer than that in the audit.
AUDITED_NAME_CHARS = 64
AUDITED_ADDRESS_CHARS = 64


def sign_in(username: str, password: str, *, address: str) -> str:
    """Returns the session token. PermissionDenied for a wrong name or password (the same
    answer for both); TooManyAttempts when the account or `address` tried too often lately."""
    name = (username or "").strip().lower()
    throttle = get_sign_in_throttle()
    try:
        throttle.begin_attempt(name, address)
    except TooManyAttempts:
        if throttle.should_audit_throttled(name, address):
            _audit_failure(name, address, "throttled")
        raise
    try:
        with transaction() as uow:
            actor = authenticate(uow, name, password or "")
            # One event per sign-in: the session token it opened is recorded in it, not as its own
            # token.created (sign-ins were half of a busy trail, twice over).
            session, token = issue_token(uow, user_id=actor.user_id, name="browser session", kind="session",
                                         ttl_hours=SESSION_HOURS, audited=False)
            append_audit(uow.session, actor=actor.username, action="user.signed_in",
                         details={"address": address[:AUDITED_ADDRESS_CHARS], "session_token_id": session.id,
                                  **token_facts(session)})
    except PermissionDenied:
        # After the sign-in's transaction has rolled back: on SQLite it held the write lock.
        _audit_failure(name, address, "bad_credentials")
        raise
    throttle.record_success(name)
    return token


def _audit_failure(name: str, address: str, reason: str) -> None:
    # Its own transaction: the sign-in fails, the record of the attempt must not.
    with transaction() as uow:
        append_audit(uow.session, actor="anonymous", action="user.sign_in_failed",
                     details={"username": name[:AUDITED_NAME_CHARS], "address": address[:AUDITED_ADDRESS_CHARS],
                              "reason": reason})


def sign_out(token: str) -> None:
    with transaction() as uow:
        row = uow.session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
        if row is None or row.revoked_at is not None:
            return
        row.revoked_at = utcnow()
        uow.session.add(row)
        append_audit(uow.session, actor=get_existing(uow.session, User, row.user_id).username,
                     action="user.signed_out")
