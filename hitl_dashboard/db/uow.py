"""Unit of work: one transaction; rolls back unless committed."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

from hitl_dashboard.db.engine import get_engine


class UnitOfWork:
    def __init__(self, engine: Engine | None = None):
        self.engine = engine or get_engine()
        self.session: Session | None = None
        self.dialect = self.engine.dialect.name

    def __enter__(self) -> UnitOfWork:
        self.session = Session(self.engine, expire_on_commit=False)
        return self

    def __exit__(self, *exc_info) -> None:
        assert self.session is not None
        # close() rolls back whatever was not committed, and (unlike rollback()) leaves the
        # loaded objects readable after the block.
        self.session.close()
        self.session = None

    def commit(self) -> None:
        assert self.session is not None
        self.session.commit()

    def rollback(self) -> None:
        assert self.session is not None
        self.session.rollback()
