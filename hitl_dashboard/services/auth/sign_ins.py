"""Password sign-in: it opens a browser sign-in (services/auth/browser_sign_ins.py).

Sign-in attempts are throttled per account and per client address (services/sign_in_throttle),
here in the service, so every way in (websocket, HTTP, CLI) is covered. Every refused attempt
is audited as `user.sign_in_failed` in its own transaction, with the attempted name and the
address, never the password."""

from __future__ import annotations

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.domain.errors import PermissionDenied, TooManyAttempts
from hitl_dashboard.services.auth.browser_sign_ins import AUDITED_ADDRESS_CHARS, open_sign_in
from hitl_dashboard.services.auth.sign_in_throttle import get_sign_in_throttle
from hitl_dashboard.services.auth.users import authenticate
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.settings import get_settings

PASSWORD_OFF = "password sign-in is turned off here; sign in with single sign-on"
# Usernames are at most 64 characters; an attempted name is kept no longer than that in the audit.
AUDITED_NAME_CHARS = 64


def sign_in(username: str, password: str, *, address: str) -> str:
    """Returns the browser sign-in's token. PermissionDenied for a wrong name or password (the same
    answer for both) or when PASSWORD_SIGN_IN is false; TooManyAttempts when the account or
    `address` tried too often lately."""
    if not get_settings().password_sign_in:
        raise PermissionDenied(PASSWORD_OFF)
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
            token = open_sign_in(uow, actor, address=address, method="password")
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
