"""Single sign-on, the two halves: begin (remember state, nonce and PKCE verifier; send the browser
to the provider) and finish (the provider's callback: check it all, open a browser sign-in).

The state is single-use: finishing marks its row in its own transaction first, so a replayed
callback is refused even when the first one failed later on. It is also bound to the browser that
began (a cookie holds it), so a callback carried to another browser is refused (login CSRF).
Every refusal is audited as `user.sign_in_failed` with method sso and the reason."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, update
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import SsoAttempt, utcnow
from hitl_dashboard.domain.return_paths import safe_return_path
from hitl_dashboard.services.auth.browser_sign_ins import AUDITED_ADDRESS_CHARS, open_sign_in
from hitl_dashboard.services.auth.sso import provider
from hitl_dashboard.services.auth.sso.accounts import user_for_claims
from hitl_dashboard.services.auth.sso.refusals import SsoRefused
from hitl_dashboard.services.transactions import reading, transaction

ATTEMPT_LIFETIME = timedelta(minutes=10)
# The page shows the provider's error code (RFC 6749 4.1.2.1: access_denied, ...) and nothing else
# from the URL, so a crafted link cannot put its own sentence on our page.
_OAUTH_ERROR_CODE = re.compile(r"^[a-z_]{1,40}$")
MAX_STATE_CHARS = 200


@dataclass(frozen=True)
class SsoStart:
    authorization_url: str
    state: str  # the browser keeps it in a cookie until the callback


@dataclass(frozen=True)
class SsoDone:
    token: str  # the new browser sign-in
    return_to: str  # a safe path, or "" for the home page


def _hash(state: str) -> str:
    return hashlib.sha256(state.encode("utf-8")).hexdigest()


def begin_single_sign_on(return_to: str) -> SsoStart:
    found = provider.discover()
    state, nonce, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(32), secrets.token_urlsafe(64)
    with transaction() as uow:
        # Old unfinished attempts go as new ones come, so abandoned sign-ins do not pile up.
        uow.session.exec(delete(SsoAttempt).where(col(SsoAttempt.created_at) < utcnow() - 2 * ATTEMPT_LIFETIME))
        uow.session.add(SsoAttempt(state_hash=_hash(state), nonce=nonce, code_verifier=verifier,
                                   return_to=safe_return_path(return_to)))
    return SsoStart(provider.authorization_url(found, state=state, nonce=nonce, code_verifier=verifier), state)


def finish_single_sign_on(*, state: str, code: str, error: str, browser_state: str, address: str) -> SsoDone:
    try:
        if error:  # some providers leave the state out of an error answer: nothing to check it against
            if state:
                _take_attempt(state)  # spent either way
            raise SsoRefused("provider_error", error if _OAUTH_ERROR_CODE.match(error) else "")
        attempt = _take_attempt(state)
        if not browser_state or not hmac.compare_digest(browser_state, state):
            raise SsoRefused("other_browser")
        if not code:
            raise SsoRefused("code_refused", "no code")
        found = provider.discover()
        claims = provider.verified_claims(found, provider.exchange_code(found, code=code,
                                                                        code_verifier=attempt.code_verifier),
                                          nonce=attempt.nonce)
        with transaction() as uow:
            actor = user_for_claims(uow, claims)
            token = open_sign_in(uow, actor, address=address, method="sso")
    except SsoRefused as refused:
        _audit_refusal(refused, address)
        raise
    return SsoDone(token, attempt.return_to)


def _take_attempt(state: str) -> SsoAttempt:
    """The attempt this state began, marked finished (committed at once); refused if unknown, used
    or too old."""
    if not state or len(state) > MAX_STATE_CHARS:
        raise SsoRefused("missing_state" if not state else "unknown_state")
    now = utcnow()
    with transaction() as uow:
        taken = uow.session.exec(
            update(SsoAttempt).where(col(SsoAttempt.state_hash) == _hash(state), col(SsoAttempt.finished_at).is_(None))
            .values(finished_at=now)
        ).rowcount
    with reading() as uow:
        attempt = uow.session.exec(select(SsoAttempt).where(SsoAttempt.state_hash == _hash(state))).first()
    if attempt is None:
        raise SsoRefused("unknown_state")
    if not taken:
        raise SsoRefused("replayed_state")
    if now - attempt.created_at > ATTEMPT_LIFETIME:
        raise SsoRefused("expired_state")
    return attempt


def _audit_refusal(refused: SsoRefused, address: str) -> None:
    # Its own transaction: the sign-in fails, the record of the attempt must not.
    with transaction() as uow:
        append_audit(uow.session, actor="anonymous", action="user.sign_in_failed",
                     details={"method": "sso", "reason": refused.reason, "detail": refused.detail,
                              "address": address[:AUDITED_ADDRESS_CHARS]})
