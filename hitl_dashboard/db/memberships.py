"""Who holds which roles in which workspace: read on every request that builds an Actor (token
check, sign-in), so with Core on the caller's connection. Below services/, so auth and the
workspace use cases share it."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection
from sqlmodel import Session, col
from sqlmodel import select as model_select

from hitl_dashboard.db.rows import in_workspaces, table_of
from hitl_dashboard.db.workspace_models import DEFAULT_WORKSPACE_SLUG, Workspace, WorkspaceMember
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, Memberships

_members, _workspaces = table_of(WorkspaceMember), table_of(Workspace)
# Archived workspaces keep their memberships (history stays readable to them) but count here too:
# reading stays possible, starting new work there is refused by the use cases.
_OF_USER = (select(_members.c.workspace_id, _members.c.roles)
            .where(_members.c.user_id == bindparam("user_id")).order_by(_members.c.workspace_id))


def memberships_of(connection: Connection, user_id: int) -> Memberships:
    return tuple((workspace_id, frozenset(roles or ())) for workspace_id, roles
                 in connection.execute(_OF_USER, {"user_id": user_id}))


def default_workspace_id(connection: Connection) -> int | None:
    """The workspace named `default` (the upgrade's; the one a single-group deployment uses)."""
    return connection.execute(select(_workspaces.c.id).where(_workspaces.c.slug == DEFAULT_WORKSPACE_SLUG)).scalar()


def missing_workspace(slug: str) -> str:
    return f"workspace '{slug}' does not exist"


def find_workspace(session: Session, actor: Actor | None, slug: str) -> Workspace:
    """The workspace `slug` if the actor is in it (None: the operator's CLI), else NotFound."""
    workspace = session.exec(model_select(Workspace).where(Workspace.slug == (slug or ""))).first()
    if workspace is None or (actor is not None and not actor.sees(workspace.id)):
        raise NotFound(missing_workspace(slug))
    return workspace


def resolve_workspace(session: Session, actor: Actor, slug: str | None, *, for_new_work: bool = False) -> Workspace:
    """The workspace a request acts in: `slug`, else the actor's bound one, else the only one the
    actor is in. Several and none named: InvalidInput asking which. for_new_work: not an archived one."""
    if slug:
        workspace = find_workspace(session, actor, slug)
    else:
        ids = actor.visible_workspaces() if actor.workspace_id is None else frozenset({actor.workspace_id})
        rows = session.exec(model_select(Workspace).where(in_workspaces(Workspace.id, ids),
                                                    col(Workspace.archived_at).is_(None)).limit(2)).all()
        if len(rows) != 1:
            raise InvalidInput("name the workspace (you are in several)" if rows else "you are in no workspace",
                               "workspace")
        workspace = rows[0]
    if for_new_work and workspace.archived_at is not None:
        raise Conflict(f"workspace '{workspace.slug}' is archived: nothing new starts there")
    return workspace


def target_workspace(session: Session, actor: Actor | None, slug: str | None) -> int:
    """The workspace something new is registered in (a webhook, a Slack link): `slug`, else the one
    the actor acts in; the operator's CLI (actor None) without a slug: the default workspace."""
    if actor is None and not slug:
        found = default_workspace_id(session.connection())
        if found is None:
            raise InvalidInput("name the workspace: there is no workspace 'default'", "workspace")
        return found
    if actor is None:
        return find_workspace(session, None, slug or "").id
    return resolve_workspace(session, actor, slug, for_new_work=True).id
