"""Typed access to rows and tables: a row that must be there, the Core table of a model, Core writes of
model rows for the hot paths."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Insert, Table, insert, inspect, update
from sqlmodel import Session, SQLModel

from hitl_dashboard.domain.errors import NotFound

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


def write_changes(session: Session, row: SQLModel) -> None:
    """Write what changed on a loaded row with one Core UPDATE on the session's connection, then
    hold the row as clean, as the ORM's flush would leave it. For a hot path (issue 33): the ORM's
    flush of one changed row costs several times the statement. Nothing changed: no statement."""
    state = inspect(row)
    changed = {key: state.dict[key] for key, old in state.committed_state.items() if state.dict.get(key) != old}
    if changed:
        table = table_of(type(row))
        (key_column,) = table.primary_key.columns
        session.connection().execute(
            update(table).where(key_column == getattr(row, key_column.key)).values(changed))
    # Every change is written: none is left for a flush (what the ORM does after its own).
    state._commit_all(state.dict, session.identity_map)  # noqa: SLF001 - the ORM's own post-flush step


def insert_row(session: Session, model: type[SQLModel], values: dict[str, Any]) -> int:
    """One Core INSERT on the session's connection; returns the new row's id. The values are the
    table's columns, every one the model would fill (a Core INSERT knows no model defaults)."""
    statement = _inserts.get(model)
    if statement is None:
        table = table_of(model)
        statement = _inserts[model] = insert(table).returning(table.c.id)
    return session.connection().execute(statement, values).scalar_one()


_inserts: dict[type[SQLModel], Insert] = {}  # built once per model: building one costs more than its run
