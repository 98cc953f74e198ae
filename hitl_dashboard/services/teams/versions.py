"""Team versions (issue 10): the database holds every saved team definition, immutable and
numbered per team; the team files seed it. A conversation pins the version it started on.

- A team file that is new, or changed since it was last read, becomes the team's newest version
  (origin file), once per process and database. A version saved through the CLI or the API is
  not undone by a restart with an unchanged file: only a file change makes a new file version.
- Saving (CLI import, API) needs an admin; a save that changes nothing makes no version; every new
  version is audited (who, when, which version it replaces, which fields changed).
- The definition of a version never changes, so it is parsed once per process (by id)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import object_session
from sqlmodel import Session, col, func, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.memberships import default_workspace_id, find_workspace, resolve_workspace
from hitl_dashboard.db.models import Conversation, User
from hitl_dashboard.db.team_models import TeamVersion
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.db.workspace_models import Workspace
from hitl_dashboard.domain.errors import NotFound, PermissionDenied
from hitl_dashboard.domain.hashing import content_hash
from hitl_dashboard.domain.permissions import Actor, check_can_manage_workspace
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.teams.catalogue import catalogue, get_team
from hitl_dashboard.teams.loading import TeamFileInvalid, dump_team, parse_team
from hitl_dashboard.teams.model import TeamDefinition

# Keyed by the database too: ids restart in another database (each test has its own).
_definitions: dict[tuple[str, int], TeamDefinition] = {}
_synced: set[tuple[int, str]] = set()  # (the read of the team files, the database) already synced


@dataclass(frozen=True)
class VersionInfo:
    team: str
    number: int
    id: int
    origin: str
    source: str
    created_by: str | None
    created_at: datetime
    content_hash: str


# -- reading --------------------------------------------------------------------------------------
def pinned(conversation: Conversation) -> TeamDefinition:
    """The team a conversation runs on: the version it started on (its file's, before 0012). Read
    in the conversation's own session when it has one: its database, its transaction."""
    # Every session of ours is a sqlmodel Session (UnitOfWork); object_session is typed for any.
    return team_of(conversation.team_version_id, conversation.template,
                   cast("Session | None", object_session(conversation)))


def team_of(version_id: int | None, template: str, session: Session | None = None) -> TeamDefinition:
    return get_team(template) if version_id is None else definition(version_id, session)


def definition(version_id: int, session: Session | None = None) -> TeamDefinition:
    database = str(session.get_bind().engine.url) if session is not None else _database()
    found = _definitions.get((database, version_id))
    if found is not None:
        return found
    if session is not None:
        return _remember(session, _row(session, version_id))
    with reading() as uow:
        return _remember(uow.session, _row(uow.session, version_id))


def _row(session: Session, version_id: int) -> TeamVersion:
    row = session.get(TeamVersion, version_id)
    if row is None:
        raise NotFound(f"no team version {version_id}")
    return row


def current(session: Session, name: str, workspace_id: int) -> tuple[TeamVersion, TeamDefinition] | None:
    """The newest version of the workspace's team `name` (None: no such team). Step: in the caller's
    transaction."""
    sync_files(session)
    row = _latest(session, name, workspace_id)
    return (row, _remember(session, row)) if row is not None else None


def current_teams(session: Session, workspace_id: int) -> dict[str, tuple[TeamVersion, TeamDefinition]]:
    """Every team's newest version in the workspace: single-task teams first (code, copy, ops), then by name."""
    sync_files(session)
    newest = (select(TeamVersion.team, func.max(TeamVersion.number).label("number"))
              .where(TeamVersion.workspace_id == workspace_id).group_by(TeamVersion.team).subquery())
    rows = session.exec(select(TeamVersion).where(TeamVersion.workspace_id == workspace_id).join(
        newest, (col(TeamVersion.team) == newest.c.team) & (TeamVersion.number == newest.c.number))).all()
    found = {row.team: (row, _remember(session, row)) for row in rows}
    order = sorted(found, key=lambda n: (found[n][1].fixed_task_type is None, n))
    return {name: found[name] for name in order}


def list_current(actor: Actor | None, workspace: str | None = None) -> dict[str, tuple[VersionInfo, TeamDefinition]]:
    """Every member of a workspace may read its teams (a team holds no secret: key values are refused).
    workspace: its slug (None: the one the actor acts in; the CLI's: the default workspace)."""
    with _synced_reading() as uow:
        teams = current_teams(uow.session, _workspace_id(uow.session, actor, workspace))
        names = _usernames(uow.session, [row.created_by for row, _ in teams.values()])
        return {name: (_info(row, names), team) for name, (row, team) in teams.items()}


def versions(actor: Actor | None, name: str, workspace: str | None = None) -> list[VersionInfo]:
    with _synced_reading() as uow:
        workspace_id = _workspace_id(uow.session, actor, workspace)
        rows = uow.session.exec(select(TeamVersion).where(TeamVersion.team == name,
                                                          TeamVersion.workspace_id == workspace_id)
                                .order_by(col(TeamVersion.number).desc())).all()
        if not rows:
            raise NotFound(f"no team named '{name}'")
        names = _usernames(uow.session, [row.created_by for row in rows])
        return [_info(row, names) for row in rows]


# -- writing --------------------------------------------------------------------------------------
def save_team(actor: Actor, text: str, *, origin: str = "api", check=None,
              workspace: str | None = None) -> tuple[VersionInfo, bool]:
    """Stores `text` (a team file) as the workspace's team's newest version: (the version, whether it
    is new). Its workspace admin or the instance admin only. A bad file raises TeamFileInvalid naming
    the field; nothing is stored. check: a further check of the parsed team (the CLI and API pass the
    import check of tools)."""
    with reading() as uow:
        workspace_id = resolve_workspace(uow.session, actor, workspace, for_new_work=True).id
    try:
        check_can_manage_workspace(actor, workspace_id)
    except PermissionDenied:
        raise PermissionDenied("only an admin of the workspace may save a team") from None
    team = parse_team(text, "the team")
    if check is not None:
        check(team)
    canonical = dump_team(team)
    digest = content_hash(canonical)
    with transaction() as uow:
        session = uow.session
        sync_files(session)
        latest = _latest(session, team.name, workspace_id)
        if latest is not None and latest.content_hash == digest:
            return _info(latest, _usernames(session, [latest.created_by])), False
        row = _add(session, team.name, canonical, digest, origin=origin, source="", created_by=actor.user_id,
                   workspace_id=workspace_id)
        if row is None:  # another save took the number at the same moment
            raise TeamFileInvalid("the team", ["another version was saved at the same moment; try again"], "name")
        previous = _remember(session, latest) if latest is not None else None
        append_audit(session, actor=actor.username, action="team.saved", content_hash=digest,
                     workspace_id=workspace_id, details={
            "team": team.name, "version": row.number, "replaces": latest.number if latest else None,
            "origin": origin, "changed": changed_fields(previous, team)})
        return _info(row, {actor.user_id: actor.username}), True


def sync_files(session: Session) -> None:
    """Step: the team files not yet stored as their team's newest file version become versions, in
    every workspace (the built-in teams and TEAMS_DIR are every workspace's starting teams)."""
    files = catalogue()
    key = (files.read, str(session.get_bind().engine.url))
    if key in _synced:
        return
    for workspace_id in session.exec(select(Workspace.id).where(col(Workspace.archived_at).is_(None))).all():
        sync_workspace(session, workspace_id)
    # Remembered once stored: a caller's transaction that rolls back (a read refused after this
    # step) takes the versions with it, and the next read must store them again.
    event.listen(session, "after_commit", lambda _session: _synced.add(key), once=True)


def sync_workspace(session: Session, workspace_id: int) -> None:
    """Step: the team files into one workspace (a new one gets them at once)."""
    files = catalogue()
    for name, team in files.teams.items():
        canonical = dump_team(team)
        digest = content_hash(canonical)
        last_file = session.exec(select(TeamVersion).where(TeamVersion.team == name, TeamVersion.origin == "file",
                                                           TeamVersion.workspace_id == workspace_id)
                                 .order_by(col(TeamVersion.number).desc()).limit(1)).first()
        if last_file is None or last_file.content_hash != digest:
            _add(session, name, canonical, digest, origin="file", source=files.sources[name], created_by=None,
                 workspace_id=workspace_id)


def changed_fields(old: TeamDefinition | None, new: TeamDefinition) -> list[str]:
    """The fields that differ, two levels deep ('gates.keywords', 'sla_hours.security_reviewer')."""
    if old is None:
        return ["(new team)"]
    return _differences(old.model_dump(mode="json"), new.model_dump(mode="json"), "", 2)


def _differences(old: Any, new: Any, prefix: str, depth: int) -> list[str]:
    if old == new:
        return []
    if depth == 0 or not isinstance(old, dict) or not isinstance(new, dict):
        return [prefix.rstrip(".") or "(everything)"]
    out: list[str] = []
    for key in sorted(set(old) | set(new), key=str):
        out += _differences(old.get(key), new.get(key), f"{prefix}{key}.", depth - 1)
    return out


# -- helpers ----------------------------------------------------------------------------------------
@contextmanager
def _synced_reading() -> Iterator[UnitOfWork]:
    """A read, except the first of a process and database: that one may store the files' versions."""
    if (catalogue().read, _database()) not in _synced:
        with transaction() as uow:  # on its own: a read refused below must not roll it back
            sync_files(uow.session)
    with reading() as uow:
        yield uow


def _workspace_id(session: Session, actor: Actor | None, workspace: str | None) -> int:
    """The workspace a team read is in: named (NotFound if the actor is not in it), or the one the
    actor acts in; the CLI's (actor None): the default workspace unless named."""
    if actor is None:
        found = find_workspace(session, None, workspace) if workspace else None
        default = found.id if found is not None else default_workspace_id(session.connection())
        if default is None:
            raise NotFound("name the workspace: there is no workspace 'default'")
        return default
    return resolve_workspace(session, actor, workspace).id


def _latest(session: Session, name: str, workspace_id: int) -> TeamVersion | None:
    return session.exec(select(TeamVersion).where(TeamVersion.team == name, TeamVersion.workspace_id == workspace_id)
                        .order_by(col(TeamVersion.number).desc()).limit(1)).first()


def _add(session: Session, name: str, canonical: str, digest: str, *, origin: str, source: str,
         created_by: int | None, workspace_id: int) -> TeamVersion | None:
    """The next number of the team; None if another process took it first (PostgreSQL: a savepoint
    keeps the caller's transaction; SQLite's single writer cannot race here)."""
    number = (session.exec(select(func.max(TeamVersion.number)).where(
        TeamVersion.team == name, TeamVersion.workspace_id == workspace_id)).one() or 0) + 1
    row = TeamVersion(team=name, number=number, definition=canonical, content_hash=digest, origin=origin,
                      source=source[:300], created_by=created_by, workspace_id=workspace_id)
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        return None
    return row


def _remember(session: Session, row: TeamVersion) -> TeamDefinition:
    assert row.id is not None
    key = (str(session.get_bind().engine.url), row.id)
    found = _definitions.get(key)
    if found is None:
        found = _definitions[key] = parse_team(row.definition, f"team {row.team} version {row.number}")
    return found


def _database() -> str:
    return str(get_engine().url)


def _usernames(session: Session, ids: list[int | None]) -> dict[int, str]:
    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    return dict(session.exec(select(User.id, User.username).where(col(User.id).in_(wanted))).all())


def _info(row: TeamVersion, names: dict[int, str]) -> VersionInfo:
    assert row.id is not None
    return VersionInfo(row.team, row.number, row.id, row.origin, row.source,
                       names.get(row.created_by) if row.created_by is not None else None, row.created_at,
                       row.content_hash)
