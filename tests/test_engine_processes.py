"""PostgreSQL engines across processes and reads: a forked web worker never uses the connection its
parent had pooled (two processes on one socket corrupted each other's transactions under load: the
500s of issue 12), and read-only units of work run in autocommit (no BEGIN/ROLLBACK round trips)."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.uow import UnitOfWork

pytestmark = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def test_a_forked_child_opens_its_own_connections(db_url):
    engine = get_engine()
    with engine.connect() as conn:
        parent_backend = conn.execute(text("SELECT pg_backend_pid()")).scalar()
    assert engine.pool.checkedin() == 1  # pooled, as after the start-up checks
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, reports through the pipe
        code = 1
        try:
            pooled = engine.pool.checkedin()
            with engine.connect() as conn:
                backend = conn.execute(text("SELECT pg_backend_pid()")).scalar()
            os.write(write, f"{pooled} {backend}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    _, status = os.waitpid(child, 0)
    pooled, child_backend = (int(x) for x in os.read(read, 100).decode().split())
    os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0
    assert pooled == 0 and child_backend != parent_backend
    with engine.connect() as conn:  # and the parent's connection still works
        assert conn.execute(text("SELECT pg_backend_pid()")).scalar() == parent_backend


def test_reads_run_in_autocommit_and_writes_in_a_transaction(db_url):
    with UnitOfWork(read_only=True) as uow:
        uow.session.execute(text("SELECT 1"))
        assert uow.session.connection().connection.dbapi_connection.autocommit is True
    with UnitOfWork() as uow:
        uow.session.execute(text("SELECT 1"))
        assert uow.session.connection().connection.dbapi_connection.autocommit is False
