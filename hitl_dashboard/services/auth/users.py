"""Users, roles and password checks (argon2 through argon2-cffi).

Use cases (create_user, set_roles, list_users, find_actor) open their own transaction; the
steps that take a unit of work (insert_user, get_user_by_name, get_actor, authenticate,
any_users) run inside another service's transaction and never commit."""

from __future__ import annotations

import re

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.orm import object_session
from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.memberships import default_workspace_id, memberships_of
from hitl_dashboard.db.models import User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.db.workspace_models import Workspace, WorkspaceMember
from hitl_dashboard.domain.enums import INSTANCE_ROLES, WORKSPACE_ROLES, Role
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_an_admin_remains, check_can_manage_users, member_actor
from hitl_dashboard.services.transactions import reading, transaction

_hasher = PasswordHasher()
_USERNAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,63}$")
VALID_ROLES = {r.value for r in Role}
_INSTANCE = {r.value for r in INSTANCE_ROLES}
_IN_WORKSPACE = {r.value for r in WORKSPACE_ROLES}
WRONG_CREDENTIALS = "unknown user or wrong password"  # one answer for both, so names cannot be probed


def actor_of(user: User) -> Actor:
    """The user as an Actor with their memberships, read in the user's own session (or a new read)."""
    session = object_session(user)
    if session is not None:
        held = memberships_of(session.connection(), user.id)
    else:
        with get_engine().connect() as connection:
            held = memberships_of(connection, user.id)
    return member_actor(user.id, user.username, user.roles, held)


def split_roles(roles: list[str]) -> tuple[list[str], list[str]]:
    """(the instance's roles, the roles held in a workspace) of a validated list."""
    return sorted(r for r in roles if r in _INSTANCE), sorted(r for r in roles if r in _IN_WORKSPACE)


def put_membership(session: Session, *, user_id: int, workspace_id: int | None, roles: list[str]) -> list[str]:
    """Step: the user's roles in the workspace become `roles` (none: no longer a member). Returns the
    roles held there before. workspace_id None: the default workspace (refused when there is none)."""
    if workspace_id is None:
        workspace_id = default_workspace_id(session.connection())
        if workspace_id is None:
            raise InvalidInput("there is no workspace 'default': name the workspace for these roles", "workspace")
    member = session.exec(select(WorkspaceMember).where(WorkspaceMember.workspace_id == workspace_id,
                                                        WorkspaceMember.user_id == user_id)).first()
    before = sorted(member.roles) if member is not None else []
    if member is not None and not roles:
        session.delete(member)
    elif member is not None:
        member.roles = sorted(roles)
        session.add(member)
    elif roles:
        session.add(WorkspaceMember(workspace_id=workspace_id, user_id=user_id, roles=sorted(roles)))
    session.flush()
    return before


def validate_roles(roles: list[str]) -> list[str]:
    unknown = [r for r in roles if r not in VALID_ROLES]
    if unknown:
        raise InvalidInput(f"unknown role(s) {', '.join(unknown)}; valid: {', '.join(sorted(VALID_ROLES))}", "roles")
    if not roles:
        raise InvalidInput("a user needs at least one role", "roles")
    return sorted(set(roles))


def create_user(
    *,
    username: str,
    password: str,
    roles: list[str],
    display_name: str = "",
    by: Actor | None = None,
    is_demo: bool = False,
    workspace_id: int | None = None,
) -> User:
    """`by` is None only for bootstrap paths (CLI run by the operator, demo seed). Roles other than
    admin are held in `workspace_id` (None: the default workspace)."""
    with transaction() as uow:
        return insert_user(uow, username=username, password=password, roles=roles, display_name=display_name,
                           by=by, is_demo=is_demo, workspace_id=workspace_id)


def insert_user(
    uow: UnitOfWork,
    *,
    username: str,
    password: str,
    roles: list[str],
    display_name: str = "",
    by: Actor | None = None,
    is_demo: bool = False,
    workspace_id: int | None = None,
) -> User:
    """`by` is None only for bootstrap paths (CLI run by the operator, demo seed)."""
    if by is not None:
        check_can_manage_users(by)
    if not _USERNAME.match(username or ""):
        raise InvalidInput("username: 2-64 characters, lower-case letters, digits, '.', '_' or '-'", "username")
    if len(password or "") < 4 or len(password) > 1024:
        raise InvalidInput("password must be 4-1024 characters", "password")
    roles = validate_roles(roles)
    if uow.session.exec(select(User).where(User.username == username)).first():
        raise Conflict(f"user '{username}' already exists")
    instance_roles, workspace_roles = split_roles(roles)
    user = User(
        username=username,
        display_name=display_name or username.title(),
        password_hash=_hasher.hash(password),
        roles=instance_roles,
        is_demo=is_demo,
    )
    uow.session.add(user)
    uow.session.flush()
    if workspace_roles:
        put_membership(uow.session, user_id=user.id, workspace_id=workspace_id, roles=workspace_roles)
    append_audit(
        uow.session,
        actor=by.username if by else "system",
        action="user.created",
        details={"username": username, "roles": roles},
    )
    return user


def set_roles(*, username: str, roles: list[str], by: Actor, workspace_id: int | None = None) -> User:
    """The user's roles: admin (the instance's) on the user, the others in `workspace_id` (None: the
    default workspace)."""
    check_can_manage_users(by)
    with transaction() as uow:
        user = get_user_by_name(uow, username)
        after = validate_roles(roles)
        if user.is_active and Role.ADMIN.value in user.roles and Role.ADMIN.value not in after:
            check_an_admin_remains(lock_active_admins(uow, excluding=user.id), f"take the admin role from '{username}'")
        instance_roles, workspace_roles = split_roles(after)
        before_held = put_membership(uow.session, user_id=user.id, workspace_id=workspace_id, roles=workspace_roles)
        before = sorted(set(user.roles) | set(before_held))
        user.roles = instance_roles
        uow.session.add(user)
        append_audit(uow.session, actor=by.username, actor_role="admin", action="user.roles_changed",
                     details={"username": username, "before": before, "after": after})
        user_id, changed = user.id, before != after
    if user_id is not None and changed:
        # After the commit: their open tabs check again now, so a tab stops getting the pushed queue
        # summary of a role taken away (ui/states/session_watch.py; the sessions themselves go on).
        from hitl_dashboard.services.live import live

        live.publish_sessions_ended(user_id)
    return user


def lock_active_admins(uow: UnitOfWork, *, excluding: int | None) -> int:
    """Locks every active user's row (id order, so two of these never deadlock) and counts the admins
    among them other than `excluding`: the check that one admin remains, safe against two admins
    changing each other at once (SQLite's writers already take turns). Roles are a JSON list, so the
    filter runs here; an organisation's users table is small, and only admins' changes come here."""
    rows = uow.session.exec(
        select(User.id, User.roles).where(col(User.is_active)).order_by(col(User.id)).with_for_update()
    )
    return sum(1 for user_id, roles in rows if user_id != excluding and Role.ADMIN.value in roles)


def get_user_by_name(uow: UnitOfWork, username: str) -> User:
    user = uow.session.exec(select(User).where(User.username == username)).first()
    if user is None:
        raise NotFound(f"user '{username}' does not exist")
    return user


def get_actor(uow: UnitOfWork, username: str) -> Actor:
    user = get_user_by_name(uow, username)
    if not user.is_active:
        raise PermissionDenied(f"user '{username}' is disabled")
    return actor_of(user)


def authenticate(uow: UnitOfWork, username: str, password: str) -> Actor:
    """Same error for unknown user and wrong password, so names cannot be probed."""
    user = uow.session.exec(select(User).where(User.username == (username or ""))).first()
    refused = PermissionDenied(WRONG_CREDENTIALS)
    if user is None or not user.is_active:
        _hasher.hash("timing-equaliser")
        raise refused
    try:
        _hasher.verify(user.password_hash, password or "")
    except (VerificationError, InvalidHashError):
        raise refused from None
    return actor_of(user)


def find_actor(username: str) -> Actor:
    """The active user `username` as an Actor (NotFound, or PermissionDenied when disabled)."""
    with reading() as uow:
        return get_actor(uow, username)


def list_users(actor: Actor | None) -> list[User]:
    """Every user, by name. `actor` None is the operator at the CLI."""
    if actor is not None:
        check_can_manage_users(actor)
    with reading() as uow:
        return list(uow.session.exec(select(User).order_by(User.username)))


def roles_by_workspace(actor: Actor | None) -> dict[int, dict[str, list[str]]]:
    """For the users list: each user's roles per workspace slug, and the instance's under "*"."""
    if actor is not None:
        check_can_manage_users(actor)
    with reading() as uow:
        found: dict[int, dict[str, list[str]]] = {}
        for user_id, roles in uow.session.exec(select(User.id, User.roles)):
            if roles:
                found.setdefault(user_id, {})["*"] = sorted(roles)
        for user_id, slug, roles in uow.session.exec(
                select(WorkspaceMember.user_id, Workspace.slug, WorkspaceMember.roles)
                .join(Workspace, col(Workspace.id) == WorkspaceMember.workspace_id)):
            found.setdefault(user_id, {})[slug] = sorted(roles)
        return found


def any_users(uow: UnitOfWork) -> bool:
    return uow.session.exec(select(User.id).limit(1)).first() is not None
