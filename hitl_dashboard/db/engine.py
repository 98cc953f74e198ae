"""Engines per URL. SQLite gets WAL and BEGIN IMMEDIATE so writers queue instead of failing;
read-only units of work (READ_ONLY execution option) begin deferred and never take the write lock."""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import create_engine

from hitl_dashboard.settings import get_settings

# Execution option of a read-only engine (read_only_engine): on SQLite its transactions begin
# deferred, so a read runs on its WAL snapshot while another connection holds the write lock.
READ_ONLY = "hitl_read_only"


def normalize_url(url: str) -> str:
    # psycopg 3 is the PostgreSQL driver; accept the plain URL people paste.
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def get_engine(url: str | None = None) -> Engine:
    return _engine_for(normalize_url(url or get_settings().database_url))


@lru_cache(maxsize=16)
def read_only_engine(engine: Engine) -> Engine:
    """The same engine (pool, events) whose transactions are only read: see READ_ONLY."""
    return engine.execution_options(**{READ_ONLY: True})


@lru_cache(maxsize=16)
def _engine_for(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        _configure_sqlite(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # A deferred transaction that reads and then writes can fail with SQLITE_BUSY
        # under WAL; taking the write lock up front makes writers wait their turn. A read-only
        # one never writes: deferred, it reads its snapshot without waiting for the writer.
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE")
