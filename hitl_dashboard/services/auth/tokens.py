"""Bearer tokens: API tokens for bots and scripts, session tokens for browsers.

A token is `hitl_` + secrets.token_urlsafe(32) (256 random bits). Only its sha256 is stored.
A fast hash is right here, unlike for passwords: nobody can guess or dictionary-attack 256
random bits, so a slow hash (argon2, ~50 ms) would only slow every request down. The hash
is also what we look the token up by, so no per-token salt: equal tokens must hash equally.

create_token, create_token_for, resolve_token, revoke_token and list_tokens are use cases (their
own transaction); issue_token is the step sign-ins use inside theirs. create_own_token, own_tokens
and revoke_own_token are the tokens page's: a signed-in user's own API tokens, nobody else's.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import Select, bindparam, func, update
from sqlalchemy import select as core_select
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.memberships import memberships_of
from hitl_dashboard.db.models import ApiToken, User, utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.uow import CoreUnitOfWork, UnitOfWork
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import FULL_SCOPE, TOKEN_SCOPES, Actor, member_actor
from hitl_dashboard.services.auth.users import get_user_by_name
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.settings import get_settings

TOKEN_PREFIX = "hitl_"
TOKEN_KINDS = ("api", "session")
MAX_TOKEN_CHARS = 200
# Writing last_used_at on every request would make every read a write; once a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)
_REFUSED = "unknown, revoked or expired token"
MAX_ACTIVE_API_TOKENS = 50


def hash_token(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def create_token(
    *, user_id: int, name: str, kind: str = "api", ttl_hours: float | None = None, scope: str = FULL_SCOPE
) -> tuple[ApiToken, str]:
    """Returns the row and the plaintext; the plaintext is not stored and cannot be shown again."""
    with transaction() as uow:
        return issue_token(uow, user_id=user_id, name=name, kind=kind, ttl_hours=ttl_hours, scope=scope)


def create_token_for(username: str, *, name: str, ttl_hours: float | None = None,
                     scope: str = FULL_SCOPE, workspace_id: int | None = None) -> tuple[ApiToken, str]:
    """An API token for the user named `username` (the operator's CLI); workspace_id: it acts there only."""
    with transaction() as uow:
        user = get_user_by_name(uow, username)
        return issue_token(uow, user_id=user.id, name=name, ttl_hours=ttl_hours, scope=scope,
                           workspace_id=workspace_id)


def issue_token(
    uow: UnitOfWork, *, user_id: int, name: str, kind: str = "api", ttl_hours: float | None = None,
    audited: bool = True, scope: str = FULL_SCOPE, workspace_id: int | None = None,
) -> tuple[ApiToken, str]:
    """The step behind create_token, inside the caller's transaction. audited=False: the caller
    records the token in its own event (a sign-in's session is part of `user.signed_in`)."""
    if kind not in TOKEN_KINDS:
        raise InvalidInput(f"token kind must be one of {', '.join(TOKEN_KINDS)}", "kind")
    if scope not in TOKEN_SCOPES or (kind == "session" and scope != FULL_SCOPE):
        raise InvalidInput(f"token scope must be one of {', '.join(TOKEN_SCOPES)} (sessions: full)", "scope")
    if len(name or "") > 100:
        raise InvalidInput("a token name is at most 100 characters", "name")
    if ttl_hours is not None and not 0 < ttl_hours <= 24 * 366 * 10:
        raise InvalidInput("ttl_hours must be positive (at most ten years)", "ttl_hours")
    user = uow.session.get(User, user_id)
    if user is None:
        raise NotFound(f"user {user_id} does not exist")
    if not user.is_active:
        raise PermissionDenied(f"user '{user.username}' is disabled")
    if workspace_id is not None and "admin" not in user.roles and \
            workspace_id not in dict(memberships_of(uow.session.connection(), user_id)):
        raise NotFound("no such workspace")  # not a member: as if it did not exist
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    row = ApiToken(
        user_id=user_id, name=name or "", kind=kind, scope=scope, token_hash=hash_token(plaintext),
        prefix=plaintext[: len(TOKEN_PREFIX) + 6], created_at=now,
        expires_at=now + timedelta(hours=ttl_hours) if ttl_hours is not None else None, workspace_id=workspace_id,
    )
    uow.session.add(row)
    uow.session.flush()
    if audited:
        append_audit(uow.session, actor=user.username, action="token.created",
                     details={"token_id": row.id, "name": row.name, "kind": kind, "scope": scope,
                              **token_facts(row)})
    return row, plaintext


def token_facts(row: ApiToken) -> dict:
    """What the trail records about a token: never the token itself."""
    return {"prefix": row.prefix, "expires_at": row.expires_at.isoformat() if row.expires_at else None}


def resolve_token(plaintext: str, kind: str | None = None) -> Actor:
    """The actor a token stands for. One message for every refusal, so tokens cannot be probed.
    Every API request comes through here: it reads (no write lock on SQLite), and writes only
    when last_used_at is due (once a minute per token)."""
    if not plaintext or len(plaintext) > MAX_TOKEN_CHARS or not plaintext.startswith(TOKEN_PREFIX):
        raise PermissionDenied(_REFUSED)
    with CoreUnitOfWork(read_only=True) as uow:
        actor, token_to_touch = _resolve(uow, plaintext, kind)
    if token_to_touch is not None:
        with CoreUnitOfWork() as write:
            write.connection.execute(update(ApiToken).where(col(ApiToken.id) == token_to_touch)
                                     .values(last_used_at=utcnow()))
            write.commit()
    return actor


def _token_statement() -> Select:
    """The columns the check needs, not two whole entities: every API request pays for this read."""
    tokens, users = table_of(ApiToken), table_of(User)
    return (core_select(*(tokens.c[name] for name in ("id", "kind", "scope", "name", "revoked_at", "expires_at",
                                                       "last_used_at", "created_at", "user_id", "workspace_id")),
                        users.c.username, users.c.roles, users.c.is_active)
            .join(users, users.c.id == tokens.c.user_id).where(tokens.c.token_hash == bindparam("token_hash")))


# Built once, read with Core on a bare connection (issue 33: the ORM session and its statement
# handling cost more than the read itself, on every API request).
_TOKEN = _token_statement()


def _resolve(uow: CoreUnitOfWork, plaintext: str, kind: str | None) -> tuple[Actor, int | None]:
    """The actor, and the token's id when its last_used_at is due."""
    token = uow.connection.execute(_TOKEN, {"token_hash": hash_token(plaintext)}).first()
    if token is None:
        raise PermissionDenied(_REFUSED)
    now = utcnow()
    if token.revoked_at is not None or (token.expires_at is not None and token.expires_at <= now):
        raise PermissionDenied(_REFUSED)
    if kind is not None and token.kind != kind:
        raise PermissionDenied(_REFUSED)
    if token.kind == "session" and now - (token.last_used_at or token.created_at) > _sign_in_idle_limit():
        raise PermissionDenied(_REFUSED)  # a browser sign-in left idle too long (SIGN_IN_IDLE_MINUTES)
    if not token.is_active:
        raise PermissionDenied(f"user '{token.username}' is disabled")
    due = token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION
    actor = member_actor(token.user_id, token.username, token.roles, memberships_of(uow.connection, token.user_id),
                         scope=token.scope, token_name=token.name, workspace_id=token.workspace_id)
    return actor, token.id if due else None


def _sign_in_idle_limit() -> timedelta:
    # last_used_at moves once a minute (LAST_USED_RESOLUTION): the idle limit is that precise.
    return timedelta(minutes=get_settings().sign_in_idle_minutes)


def revoke_token(actor: Actor | None, token_id: int) -> ApiToken:
    """Owners revoke their own tokens, admins anyone's; `actor` None is the operator's CLI."""
    with transaction() as uow:
        return revoke_token_in(uow, actor, token_id)


def revoke_token_in(uow: UnitOfWork, actor: Actor | None, token_id: int) -> ApiToken:
    """The step behind revoke_token, inside the caller's transaction."""
    token = uow.session.get(ApiToken, token_id)
    if token is None:
        raise NotFound(f"token {token_id} does not exist")
    if actor is not None and token.user_id != actor.user_id and not actor.is_admin:
        raise PermissionDenied(f"{actor.username} may not revoke another user's token")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        uow.session.add(token)
        append_audit(uow.session, actor=actor.username if actor else "system", action="token.revoked",
                     details={"token_id": token.id, "prefix": token.prefix, "kind": token.kind})
    return token


def create_own_token(actor: Actor, *, name: str, ttl_hours: float | None = None,
                     scope: str = FULL_SCOPE) -> tuple[ApiToken, str]:
    """An API token for the signed-in user themself (the tokens page). At most MAX_ACTIVE_API_TOKENS
    unrevoked ones each: a script that creates tokens in a loop is stopped, not left filling the table."""
    with transaction() as uow:
        active = uow.session.exec(
            select(func.count()).select_from(ApiToken)
            .where(col(ApiToken.user_id) == actor.user_id, col(ApiToken.kind) == "api",
                   col(ApiToken.revoked_at).is_(None))
        ).one()
        if active >= MAX_ACTIVE_API_TOKENS:
            raise Conflict(f"you already have {active} API tokens: revoke some before creating more")
        return issue_token(uow, user_id=actor.user_id, name=(name or "").strip(), ttl_hours=ttl_hours, scope=scope)


def own_tokens(actor: Actor) -> list[ApiToken]:
    """The signed-in user's API tokens, newest first (never the plaintext: it is not stored)."""
    with reading() as uow:
        return [token for token, _ in _tokens(uow, user_id=actor.user_id, kind="api")]


def revoke_own_token(actor: Actor, token_id: int) -> ApiToken:
    """Revokes one of the user's own API tokens. Anyone else's (even for an admin) or a session is
    "does not exist" here: the tokens page manages one's own tokens only."""
    with transaction() as uow:
        token = uow.session.get(ApiToken, token_id)
        if token is None or token.user_id != actor.user_id or token.kind != "api":
            raise NotFound(f"you have no API token {token_id}")
        return revoke_token_in(uow, actor, token_id)


def list_tokens(*, username: str | None = None, kind: str | None = None) -> list[tuple[ApiToken, str]]:
    """Tokens with their owner's username, newest first (never the plaintext: it is not stored).
    Only the operator's CLI lists tokens, so there is no actor to check."""
    with reading() as uow:
        user_id = get_user_by_name(uow, username).id if username else None
        return _tokens(uow, user_id=user_id, kind=kind)


def _tokens(uow: UnitOfWork, *, user_id: int | None, kind: str | None) -> list[tuple[ApiToken, str]]:
    query = (select(ApiToken, User.username).join(User, col(User.id) == ApiToken.user_id)
             .order_by(col(ApiToken.id).desc()))
    if user_id is not None:
        query = query.where(ApiToken.user_id == user_id)
    if kind is not None:
        query = query.where(ApiToken.kind == kind)
    return [(token, username) for token, username in uow.session.exec(query)]
