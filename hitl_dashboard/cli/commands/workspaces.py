"""`workspaces create|list|rename|archive` and `workspaces members add|remove|list` (issue 41): the
operator's side of the workspaces the instance admin manages in the browser and the API."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.domain.enums import WORKSPACE_ROLES
from hitl_dashboard.services.workspaces import workspaces

_ROLES = [r.value for r in WORKSPACE_ROLES]


def register(sub: Any) -> None:
    commands = group(sub, "workspaces", "workspaces and their members")
    p = leaf(commands, "create", "make a workspace (it starts with the built-in teams)", handler="workspaces create")
    p.add_argument("slug", help="2-40 lower-case letters, digits or '-'; in URLs, fixed once made")
    p.add_argument("--name", required=True)
    p = leaf(commands, "list", "list the workspaces", handler="workspaces list")
    p.add_argument("--all", action="store_true", help="archived ones too")
    p = leaf(commands, "rename", "give a workspace a new name (its slug stays)", handler="workspaces rename")
    p.add_argument("slug")
    p.add_argument("--name", required=True)
    p = leaf(commands, "archive", "archive a workspace: readable history, nothing new starts there",
             handler="workspaces archive")
    p.add_argument("slug")
    members = group(commands, "members", "who holds which roles in a workspace")
    p = leaf(members, "add", "add a user with roles, or set their roles", handler="workspaces members add")
    p.add_argument("slug")
    p.add_argument("username")
    p.add_argument("--role", action="append", required=True, choices=_ROLES)
    p = leaf(members, "remove", "take a user out of the workspace", handler="workspaces members remove")
    p.add_argument("slug")
    p.add_argument("username")
    p = leaf(members, "list", "the members and their roles", handler="workspaces members list")
    p.add_argument("slug")


def _workspace(row) -> dict[str, Any]:  # noqa: ANN001 - a Workspace row
    return {"slug": row.slug, "name": row.name, "archived": row.archived_at is not None,
            "created_at": row.created_at.isoformat()}


@command("workspaces create")
def _create(args) -> int:
    row = workspaces.create_workspace(None, slug=args.slug, name=args.name)
    emit(args, _workspace(row), f"created workspace {row.slug} ({row.name})")
    return 0


@command("workspaces list")
def _list(args) -> int:
    data = [_workspace(w) for w in workspaces.list_workspaces(None, include_archived=args.all)]
    emit(args, data, table([[d["slug"], d["name"], "archived" if d["archived"] else "active"] for d in data],
                           ["slug", "name", "state"]) if data else "no workspaces")
    return 0


@command("workspaces rename")
def _rename(args) -> int:
    row = workspaces.rename_workspace(None, args.slug, name=args.name)
    emit(args, _workspace(row), f"workspace {row.slug} is now named {row.name}")
    return 0


@command("workspaces archive")
def _archive(args) -> int:
    row = workspaces.archive_workspace(None, args.slug)
    emit(args, _workspace(row), f"archived workspace {row.slug}")
    return 0


def _member(member) -> dict[str, Any]:  # noqa: ANN001 - a workspaces.Member
    return {"username": member.username, "roles": member.roles, "active": member.active}


@command("workspaces members add")
def _add(args) -> int:
    member = workspaces.set_member(None, args.slug, username=args.username, roles=args.role)
    emit(args, _member(member), f"{member.username} holds {', '.join(member.roles)} in {args.slug}")
    return 0


@command("workspaces members remove")
def _remove(args) -> int:
    member = workspaces.remove_member(None, args.slug, username=args.username)
    emit(args, _member(member), f"{member.username} is no longer in {args.slug}")
    return 0


@command("workspaces members list")
def _members(args) -> int:
    data = [_member(m) for m in workspaces.list_members(None, args.slug)]
    emit(args, data, table([[d["username"], ", ".join(d["roles"]), "active" if d["active"] else "deactivated"]
                            for d in data], ["user", "roles", "state"]) if data else "no members")
    return 0
