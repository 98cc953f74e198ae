"""Typed access to rows and tables: a row that must be there, the Core table of a model."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Table
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
