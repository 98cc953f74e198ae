"""`users add NAME --role R [--password P]`, `users list`."""

from __future__ import annotations

import secrets
from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.services.auth import users


def register(sub: Any) -> None:
    commands = group(sub, "users", "users and roles")
    p = leaf(commands, "add", "create a user", handler="users add")
    p.add_argument("name")
    p.add_argument("--role", action="append", required=True)
    p.add_argument("--password", help="default: a random one, printed once")
    leaf(commands, "list", "list users", handler="users list")


@command("users add")
def _users_add(args) -> int:
    password = args.password or secrets.token_urlsafe(12)
    user = users.create_user(username=args.name, password=password, roles=args.role)
    shown = "" if args.password else f" (password: {password})"
    emit(args, {"id": user.id, "username": user.username, "roles": user.roles,
                "password": None if args.password else password},
         f"created {user.username} with roles {', '.join(user.roles)}{shown}")
    return 0


@command("users list")
def _users_list(args) -> int:
    rows = users.list_users(None)  # None: the operator
    data: list[dict[str, Any]] = [{"id": u.id, "username": u.username, "roles": u.roles, "active": u.is_active}
                                  for u in rows]
    emit(args, data, table([[u["id"], u["username"], ", ".join(u["roles"])] for u in data], ["id", "user", "roles"]))
    return 0
