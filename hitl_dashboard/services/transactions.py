"""How a use case holds its transaction.

Every public use case in services/ opens its own unit of work, commits it, and publishes the live
update after the commit; callers (ui/, api/, cli/) pass plain values and get a result or a domain
error (hitl_dashboard.domain.errors). Steps that run inside another use case's transaction take the
session (or unit of work) as their first argument and never commit: several steps compose through
one use case, never through a transaction shared across layers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hitl_dashboard.db.uow import UnitOfWork


@contextmanager
def transaction() -> Iterator[UnitOfWork]:
    """A unit of work committed when the block ends normally, rolled back on an exception."""
    with UnitOfWork() as uow:
        yield uow
        uow.commit()


@contextmanager
def reading() -> Iterator[UnitOfWork]:
    """A unit of work for queries only: nothing is committed. On SQLite it begins deferred, so it
    reads its snapshot while a writer holds the write lock (writes stay single-writer)."""
    with UnitOfWork(read_only=True) as uow:
        yield uow
