"""Browser sessions: a password sign-in yields a session token (services/tokens, kind "session")."""

from __future__ import annotations

from sqlmodel import select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import ApiToken, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.tokens import create_token, hash_token
from hitl_dashboard.services.users import authenticate

SESSION_HOURS = 12.0


def sign_in(username: str, password: str) -> str:
    """Returns the session token. PermissionDenied for a wrong name or password."""
    with UnitOfWork() as uow:
        actor = authenticate(uow, (username or "").strip().lower(), password or "")
        _, token = create_token(uow, user_id=actor.user_id, name="browser session", kind="session",
                                ttl_hours=SESSION_HOURS)
        append_audit(uow.session, actor=actor.username, action="user.signed_in")
        uow.commit()
        return token


def sign_out(token: str) -> None:
    with UnitOfWork() as uow:
        row = uow.session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
        if row is None or row.revoked_at is not None:
            return
        row.revoked_at = utcnow()
        uow.session.add(row)
        append_audit(uow.session, actor=uow.session.get(User, row.user_id).username, action="user.signed_out")
        uow.commit()
