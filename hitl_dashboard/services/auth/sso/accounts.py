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
from hitl_dashboard.db.memberships import memberships_of
from hitl_dashboard.db.models import User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.db.workspace_models import DEFAULT_WORKSPACE_SLUG, Workspace
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.sign_in_roles import roles_from_claim, split_grants
from hitl_dashboard.services.auth.sso.refusals import SsoRefused
from hitl_dashboard.services.auth.users import actor_of, put_membership
from hitl_dashboard.settings import get_settings

SSO_ACTOR = "sso"  # who the audit trail says created the user or changed its roles
NO_PASSWORD = ""  # not an argon2 hash: a password sign-in as this user always fails
_NOT_IN_USERNAMES = re.compile(r"[^a-z0-9_.-]+")
_MAX_BASE_CHARS = 56  # room for a "-NN" suffix within the 64 characters of a username


def user_for_claims(uow: UnitOfWork, claims: dict[str, Any]) -> Actor:
    """Roles come from the mapped claim at every sign-in: the instance's on the user, the others as
    memberships (issue 41: 'slug:role', or a bare role in the default workspace). A group mapped to a
    workspace that does not exist grants nothing there. Memberships the mapping no longer gives end."""
    settings = get_settings()
    issuer, subject = str(claims["iss"]), str(claims["sub"])
    instance, held = _granted(uow, roles_from_claim(claims.get(settings.oidc_roles_claim), settings.oidc_roles()))
    user = uow.session.exec(select(User).where(User.oidc_issuer == issuer, User.oidc_subject == subject)).first()
    if user is not None and not user.is_active:
        raise SsoRefused("disabled")
    if not instance and not held:
        raise SsoRefused("no_role", f"no group in the '{settings.oidc_roles_claim}' claim maps to a role")
    after = _grants_text(instance, held)
    if user is None:
        user = _create(uow, claims, issuer, subject, instance, after)
        before = after
    else:
        before = _grants_text(user.roles, dict(memberships_of(uow.session.connection(), user.id)))
        user.roles = instance
        uow.session.add(user)
    for workspace_id in set(dict(memberships_of(uow.session.connection(), user.id))) | set(held):
        put_membership(uow.session, user_id=user.id, workspace_id=workspace_id,
                       roles=sorted(held.get(workspace_id, ())))
    if before != after:
        append_audit(uow.session, actor=SSO_ACTOR, action="user.roles_changed",
                     details={"username": user.username, "before": before, "after": after,
                              "claim": settings.oidc_roles_claim})
    return actor_of(user)


def _granted(uow: UnitOfWork, grants: list[str]) -> tuple[list[str], dict[int, frozenset[str]]]:
    """(instance roles, {workspace id: roles}) of the mapped grants; unknown workspaces left out."""
    instance, by_slug = split_grants(grants, DEFAULT_WORKSPACE_SLUG)
    ids = dict(uow.session.exec(select(Workspace.slug, Workspace.id)
                                .where(col(Workspace.slug).in_(list(by_slug)))).all()) if by_slug else {}
    return instance, {ids[slug]: frozenset(roles) for slug, roles in by_slug.items() if slug in ids}


def _grants_text(instance: list[str], held: dict[int, frozenset[str]]) -> list[str]:
    """What the audit trail records: 'admin' and 'workspace-id:role' entries, sorted."""
    return sorted([*instance, *(f"{w}:{role}" for w, roles in held.items() for role in roles)])


def _create(uow: UnitOfWork, claims: dict[str, Any], issuer: str, subject: str, roles: list[str],
            grants: list[str]) -> User:
    username = _free_username(uow, _suggested_name(claims))
    display = claims.get("name") if isinstance(claims.get("name"), str) else ""
    user = User(username=username, display_name=(display or username)[:128], password_hash=NO_PASSWORD,
                roles=roles, oidc_issuer=issuer, oidc_subject=subject)
    uow.session.add(user)
    uow.session.flush()
    append_audit(uow.session, actor=SSO_ACTOR, action="user.created",
                 details={"username": username, "roles": grants, "issuer": issuer,
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
