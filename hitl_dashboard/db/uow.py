"""Unit of work: one transaction; rolls back unless committed."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

from hitl_dashboard.db.audit import link_after_commit
from hitl_dashboard.db.engine import get_engine, read_only_engine


class UnitOfWork:
    """read_only: for queries only (nothing is committed); on SQLite it takes no write lock."""

    def __init__(self, engine: Engine | None = None, *, read_only: bool = False):
        self.engine = engine or get_engine()
        self.read_only = read_only
        self.session: Session | None = None
        self.dialect = self.engine.dialect.name

    def __enter__(self) -> UnitOfWork:
        bind = read_only_engine(self.engine) if self.read_only else self.engine
        self.session = Session(bind, expire_on_commit=False)
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
        link_after_commit(self.session)  # PostgreSQL: this commit's audit events into the chain

    def rollback(self) -> None:
        assert self.session is not None
        self.session.rollback()
