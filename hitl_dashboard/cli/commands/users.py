"""`users add NAME --role R [--password P] [--workspace SLUG]`, `users list`, `users deactivate NAME`,
`users reactivate NAME`."""

from __future__ import annotations

import secrets
from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.services.auth import user_status, users
from hitl_dashboard.services.workspaces import workspaces


def register(sub: Any) -> None:
    commands = group(sub, "users", "users and roles")
    p = leaf(commands, "add", "create a user", handler="users add")
    p.add_argument("name")
    p.add_argument("--role", action="append", required=True)
    p.add_argument("--password", help="default: a random one, printed once")
    p.add_argument("--workspace", help="the slug of the workspace the roles are held in (default: default); "
                                       "admin is the instance's. More: workspaces members add")
    leaf(commands, "list", "list users", handler="users list")
    p = leaf(commands, "deactivate", "end a user's sessions and API tokens and keep them from signing in "
             "(their history stays)", handler="users deactivate")
    p.add_argument("name")
    p = leaf(commands, "reactivate", "let a deactivated user sign in again (old tokens stay revoked)",
             handler="users reactivate")
    p.add_argument("name")


@command("users add")
def _users_add(args) -> int:
    password = args.password or secrets.token_urlsafe(12)
    workspace_id = workspaces.workspace_id(args.workspace) if args.workspace else None
    user = users.create_user(username=args.name, password=password, roles=args.role, workspace_id=workspace_id)
    shown = "" if args.password else f" (password: {password})"
    roles = users.validate_roles(args.role)
    where = f" in workspace {args.workspace or 'default'}" if set(roles) - {"admin"} else ""
    emit(args, {"id": user.id, "username": user.username, "roles": roles, "workspace": args.workspace or "default",
                "password": None if args.password else password},
         f"created {user.username} with roles {', '.join(roles)}{where}{shown}")
    return 0


@command("users list")
def _users_list(args) -> int:
    rows = users.list_users(None)  # None: the operator
    held = users.roles_by_workspace(None)
    data: list[dict[str, Any]] = [
        {"id": u.id, "username": u.username,
         "roles": sorted({r for roles in held.get(u.id, {}).values() for r in roles}),
         "workspaces": {slug: roles for slug, roles in held.get(u.id, {}).items() if slug != "*"},
         "active": u.is_active} for u in rows]
    emit(args, data, table([[d["id"], d["username"], _roles_text(held.get(d["id"], {})),
                             "active" if d["active"] else "deactivated"] for d in data],
                           ["id", "user", "roles", "state"]))
    return 0


def _roles_text(held: dict[str, list[str]]) -> str:
    return "; ".join(", ".join(roles) if slug == "*" else f"{slug}: {', '.join(roles)}" for slug, roles in held.items())


@command("users deactivate")
def _users_deactivate(args) -> int:
    done = user_status.deactivate_user(None, args.name)  # None: the operator
    emit(args, {"username": done.username, "sessions_revoked": done.sessions_revoked,
                "api_tokens_revoked": done.api_tokens_revoked, "reviews_released": done.reviews_released},
         f"deactivated {done.username}: {done.sessions_revoked} session(s) and {done.api_tokens_revoked} API "
         f"token(s) revoked, {len(done.reviews_released)} claimed review(s) back in their queues")
    return 0


@command("users reactivate")
def _users_reactivate(args) -> int:
    user = user_status.reactivate_user(None, args.name)
    emit(args, {"username": user.username, "active": True},
         f"reactivated {user.username}: they may sign in again (their old tokens stay revoked)")
    return 0
