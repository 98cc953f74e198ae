"""Unit of work: one transaction; rolls back unless committed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from hitl_dashboard.db.audit import link_after_commit
from hitl_dashboard.db.engine import get_engine, read_only_engine

log = logging.getLogger(__name__)


class UnitOfWork:
    """read_only: for queries only (nothing is committed); on SQLite it takes no write lock."""

    def __init__(self, engine: Engine | None = None, *, read_only: bool = False):
        self.engine = engine or get_engine()
        self.read_only = read_only
        self._session: Session | None = None
        self.dialect = self.engine.dialect.name

    @property
    def session(self) -> Session:
        """The open session; using it outside the `with` block is a bug, so it raises."""
        if self._session is None:
            raise RuntimeError("the unit of work is not open: use it inside its `with` block")
        return self._session

    def __enter__(self) -> UnitOfWork:
        bind = read_only_engine(self.engine) if self.read_only else self.engine
        self._session = Session(bind, expire_on_commit=False)
        return self

    def __exit__(self, *exc_info: object) -> None:
        # close() rolls back whatever was not committed, and (unlike rollback()) leaves the
        # loaded objects readable after the block.
        self.session.close()
        self._session = None

    def commit(self) -> None:
        self.session.commit()
        link_after_commit(self.session)  # PostgreSQL: this commit's audit events into the chain

    def rollback(self) -> None:
        self.session.rollback()


class CoreUnitOfWork:
    """A transaction on a bare connection, for a hot path that writes with Core statements only: no
    ORM objects and no audit events (those need UnitOfWork: its session links the audit chain). Rolls
    back unless committed; the callbacks given to on_commit run once the commit has returned.
    read_only: for a hot read (every API request's token check), as UnitOfWork's."""

    def __init__(self, engine: Engine | None = None, *, read_only: bool = False):
        self.engine = engine or get_engine()
        self.read_only = read_only
        self._connection: Connection | None = None
        self._after_commit: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []

    @property
    def connection(self) -> Connection:
        """The open connection; using it outside the `with` block is a bug, so it raises."""
        if self._connection is None:
            raise RuntimeError("the unit of work is not open: use it inside its `with` block")
        return self._connection

    def __enter__(self) -> CoreUnitOfWork:
        self._connection = (read_only_engine(self.engine) if self.read_only else self.engine).connect()
        self._connection.begin()  # SQLite: BEGIN IMMEDIATE, or deferred when read_only (db/engine.py)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.connection.close()  # rolls back whatever was not committed
        self._connection = None

    def on_commit(self, callback: Callable[..., Any], *args: Any) -> None:
        self._after_commit.append((callback, args))

    def commit(self) -> None:
        self.connection.commit()
        callbacks, self._after_commit = self._after_commit, []
        for callback, args in callbacks:
            try:
                callback(*args)
            except Exception:  # noqa: BLE001 - observing must never fail the work it observes
                log.exception("after-commit hook %r failed", callback)
