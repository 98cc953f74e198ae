"""Typed access to rows and tables: a row that must be there, the Core table of a model, Core writes of
model rows for the hot paths."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Insert, Table, Update, and_, bindparam, false, insert, inspect, or_, true, update
from sqlmodel import Session, SQLModel

from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.permissions import Actor

RowT = TypeVar("RowT", bound=SQLModel)


def get_existing(session: Session, model: type[RowT], row_id: int, **options: Any) -> RowT:
    """session.get for a row another row refers to (a foreign key, a review's subject): its absence
    breaks an invariant, so this raises NotFound naming the row rather than hand the caller a None
    to trip over later. `options` go to Session.get (options=..., with_for_update=...)."""
    row = session.get(model, row_id, **options)
    if row is None:
        raise NotFound(f"{model.__name__} {row_id} does not exist")
    return row


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a table model, for Core statements on the hot paths."""
    return model.__table__  # type: ignore[attr-defined]  # SQLModel's metaclass sets it; its types do not declare it


def one_of(column: Any, values: Iterable[Any]) -> ColumnElement[bool]:
    """`column IN (values)` for a statement built once, as `column = v1 OR column = v2 ...` with plain
    bound parameters (issue 33): a Core IN list is an expanding parameter, which SQLAlchemy rewrites
    into the statement's SQL text again on every execution. The same rows, for a column that is never
    NULL (a NULL column matches neither form)."""
    return or_(*(column == value for value in values))


def write_changes(session: Session, row: SQLModel) -> None:
    """Write what changed on a loaded row with one Core UPDATE on the session's connection, then
    hold the row as clean, as the ORM's flush would leave it. For a hot path (issue 33): the ORM's
    flush of one changed row costs several times the statement. Nothing changed: no statement."""
    state = inspect(row)
    changed = {key: state.dict[key] for key, old in state.committed_state.items() if state.dict.get(key) != old}
    if changed:
        statement, key = _updates.get(type(row)) or _update_statement(type(row))
        session.connection().execute(statement, {**changed, _ROW_KEY: getattr(row, key)})
    # Every change is written: none is left for a flush (what the ORM does after its own).
    state._commit_all(state.dict, session.identity_map)  # noqa: SLF001 - the ORM's own post-flush step


_ROW_KEY = "row_key_"  # the WHERE's parameter: no column has this name (the SET clause takes the others)


def _update_statement(model: type[SQLModel]) -> tuple[Update, str]:
    table = table_of(model)
    (key_column,) = table.primary_key.columns
    _updates[model] = found = (update(table).where(key_column == bindparam(_ROW_KEY)), key_column.key)
    return found


def insert_row(session: Session, model: type[SQLModel], values: dict[str, Any]) -> int:
    """One Core INSERT on the session's connection; returns the new row's id. The values are the
    table's columns, every one the model would fill (a Core INSERT knows no model defaults)."""
    statement = _inserts.get(model)
    if statement is None:
        table = table_of(model)
        statement = _inserts[model] = insert(table).returning(table.c.id)
    return session.connection().execute(statement, values).scalar_one()


_inserts: dict[type[SQLModel], Insert] = {}  # built once per model: building one costs more than its run
_updates: dict[type[SQLModel], tuple[Update, str]] = {}  # the same for write_changes


def in_workspaces(column: Any, workspace_ids: frozenset[int] | None) -> ColumnElement[bool]:
    """The workspace filter of every list, count and export (issue 41): `workspace_ids` is what
    Actor.workspaces_with answered (None: every workspace, the instance admin's; empty: none)."""
    if workspace_ids is None:
        return true()
    if not workspace_ids:
        return false()
    return column.in_(sorted(workspace_ids))


def holds_role_there(actor: Actor, role_column: Any, workspace_column: Any) -> ColumnElement[bool]:
    """Rows whose role the actor holds in the row's own workspace (a claim, a role's queue): a role
    held in one workspace grants nothing in another. The instance admin: any role, in the workspaces
    it acts in."""
    if actor.is_admin:
        return in_workspaces(workspace_column, actor.workspaces_with())
    terms = [and_(workspace_column == workspace_id, role_column.in_(sorted(roles)))
             for workspace_id, roles in actor.memberships
             if roles and (actor.workspace_id is None or workspace_id == actor.workspace_id)]
    return or_(*terms) if terms else false()
