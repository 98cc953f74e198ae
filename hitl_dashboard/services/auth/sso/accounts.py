"""The user a verified single sign-on stands for: found by the provider's (issuer, subject), created
on the first sign-in, its roles set from the mapped claim at every sign-in.

A name the provider sends is only a suggestion for a new user's username: an existing password
user of that name is never taken over (the new user gets a free variant of the name)."""

from __future__ import annotations

import re
import secrets
from typing import Any

from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.sign_in_roles import roles_from_claim
from hitl_dashboard.services.auth.sso.refusals import SsoRefused
from hitl_dashboard.services.auth.users import actor_of
from hitl_dashboard.settings import get_settings

SSO_ACTOR = "sso"  # who the audit trail says created the user or changed its roles
NO_PASSWORD = ""  # not an argon2 hash: a password sign-in as this user always fails
_NOT_IN_USERNAMES = re.compile(r"[^a-z0-9_.-]+")
_MAX_BASE_CHARS = 56  # room for a "-NN" suffix within the 64 characters of a username


def user_for_claims(uow: UnitOfWork, claims: dict[str, Any]) -> Actor:
    settings = get_settings()
    issuer, subject = str(claims["iss"]), str(claims["sub"])
    roles = roles_from_claim(claims.get(settings.oidc_roles_claim), settings.oidc_roles())
    user = uow.session.exec(select(User).where(User.oidc_issuer == issuer, User.oidc_subject == subject)).first()
    if user is not None and not user.is_active:
        raise SsoRefused("disabled")
    if not roles:
        raise SsoRefused("no_role", f"no group in the '{settings.oidc_roles_claim}' claim maps to a role")
    if user is None:
        return actor_of(_create(uow, claims, issuer, subject, roles))
    if sorted(user.roles) != roles:
        before, user.roles = user.roles, roles
        uow.session.add(user)
        append_audit(uow.session, actor=SSO_ACTOR, action="user.roles_changed",
                     details={"username": user.username, "before": before, "after": roles,
                              "claim": settings.oidc_roles_claim})
    return actor_of(user)


def _create(uow: UnitOfWork, claims: dict[str, Any], issuer: str, subject: str, roles: list[str]) -> User:
    username = _free_username(uow, _suggested_name(claims))
    display = claims.get("name") if isinstance(claims.get("name"), str) else ""
    user = User(username=username, display_name=(display or username)[:128], password_hash=NO_PASSWORD,
                roles=roles, oidc_issuer=issuer, oidc_subject=subject)
    uow.session.add(user)
    uow.session.flush()
    append_audit(uow.session, actor=SSO_ACTOR, action="user.created",
                 details={"username": username, "roles": roles, "issuer": issuer,
                          "claim": get_settings().oidc_roles_claim})
    return user


def _suggested_name(claims: dict[str, Any]) -> str:
    for key in (get_settings().oidc_username_claim, "preferred_username", "email"):
        value = claims.get(key)
        if isinstance(value, str) and value.strip():
            name = value.strip().lower().split("@")[0] if key == "email" else value.strip().lower()
            name = _NOT_IN_USERNAMES.sub("-", name).strip("-._")[:_MAX_BASE_CHARS]
            if len(name) >= 2:
                return name
    return "user"


def _free_username(uow: UnitOfWork, base: str) -> str:
    candidates = [base] + [f"{base}-{n}" for n in range(2, 100)] + [f"{base}-{secrets.token_hex(3)}"]
    taken = set(uow.session.exec(select(User.username).where(col(User.username).startswith(base))))
    return next(name for name in candidates if name not in taken)
