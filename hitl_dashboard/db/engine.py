"""Engines per URL. SQLite gets WAL and BEGIN IMMEDIATE so writers queue instead of failing;
read-only units of work (READ_ONLY execution option) begin deferred and never take the write lock."""

from __future__ import annotations

import contextlib
import logging
import os
import time
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING, Any, LiteralString

from sqlalchemy import event, exc
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import create_engine

from hitl_dashboard.db.pool_plan import PoolPlan, plan_pool
from hitl_dashboard.domain.errors import ConfigurationError
from hitl_dashboard.settings import get_settings

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)

# Execution option of a read-only engine (read_only_engine): on SQLite its transactions begin
# deferred, so a read runs on its WAL snapshot while another connection holds the write lock.
READ_ONLY = "hitl_read_only"
# A pooled PostgreSQL connection back in the pool for longer than this is pinged before it is used
# again (see _ping_when_idle); one that was in use a moment ago is not.
PING_IF_IDLE_S = 1.0
_RETURNED_AT = "hitl_returned_at"


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
    """The same engine (pool, events) whose transactions are only read: see READ_ONLY. On PostgreSQL
    its statements run in autocommit: under READ COMMITTED (the default, which the app uses) each
    statement of a transaction takes its own snapshot anyway, so a read-only transaction only added
    a BEGIN and a ROLLBACK round trip to every read (every API request's token check among them)."""
    options: dict = {READ_ONLY: True}
    if engine.dialect.name == "postgresql":
        options["isolation_level"] = "AUTOCOMMIT"
    return engine.execution_options(**options)


@lru_cache(maxsize=16)
def _engine_for(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        _configure_sqlite(engine)
        _engines.add(engine)
        return engine
    plan = pool_plan_for(url)
    engine = create_engine(url, pool_size=plan.pool_size, max_overflow=plan.max_overflow)
    _ping_when_idle(engine)
    _engines.add(engine)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    """SQLAlchemy's pool_pre_ping, for connections that sat idle only. pre_ping sends a SELECT 1
    before every checkout: three of a decision's fifteen round trips (the token check, the decision,
    the audit link each check one out), on both sides of the socket. A connection used a moment ago
    is as alive as one that answered a ping, and under load every connection is; after a quiet
    spell (a server restart, an idle timeout in between) the ping still replaces a dead connection
    before any statement fails on it. A connection that dies while in use fails its statement,
    as with pre_ping."""

    @event.listens_for(engine, "connect")
    def _connected(_dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED_AT] = time.monotonic()  # new: no ping needed

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: DBAPIConnection | None, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED_AT] = time.monotonic()  # .info is cleared when a connection is invalidated

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry, _proxy) -> None:
        returned = record.info.get(_RETURNED_AT)
        if returned is not None and time.monotonic() - returned < PING_IF_IDLE_S:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            # The pool discards this connection and checks out a fresh one (PoolEvents.checkout).
            raise exc.DisconnectionError(f"a pooled connection was closed while idle: {error}") from error


def check_pool_fits(url: str | None = None) -> PoolPlan | None:
    """For the web tier at start-up: PostgreSQL's plan, or ConfigurationError when the workers' pools
    could exceed max_connections (the message has the arithmetic and what to change)."""
    url = normalize_url(url or get_settings().database_url)
    if not url.startswith("postgresql"):
        return None
    plan = pool_plan_for(url)
    if plan.problem:
        raise ConfigurationError([plan.problem])
    log.info("database connection pools: %s", plan.summary)
    return plan


@lru_cache(maxsize=16)
def pool_plan_for(url: str) -> PoolPlan:
    """The pool each process opens on this PostgreSQL database (see db/pool_plan.py): one question to
    the server per process, at start-up. The web tier refuses to start on a plan with a problem
    (startup.py); other processes (runners, CLI) just use the sizes."""
    settings = get_settings()
    max_connections, superuser_reserved = _server_limits(normalize_url(url))
    return plan_pool(workers=settings.web_workers, max_connections=max_connections,
                     superuser_reserved=superuser_reserved, reserved=settings.db_reserved_connections,
                     pool_size=settings.db_pool_size, max_overflow=settings.db_max_overflow)


def _server_limits(url: str) -> tuple[int | None, int]:
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            max_connections = _show_int(conn, "max_connections")
            reserved = _show_int(conn, "superuser_reserved_connections")
            with contextlib.suppress(psycopg.Error):  # PostgreSQL 16+: reserved for pg_use_reserved_connections
                reserved += _show_int(conn, "reserved_connections")
            return max_connections, reserved
    except psycopg.Error:
        # Unreachable now: the first query will say so, in the caller's own words (one line at the
        # CLI); the pools use the configured or default sizes. The web tier's start-up check reads
        # max_connections before serving, so its pools are sized when the server is up.
        log.debug("could not read max_connections from PostgreSQL", exc_info=True)
        return None, 3


def _show_int(conn: psycopg.Connection[Any], setting: LiteralString) -> int:
    row = conn.execute("SHOW " + setting).fetchone()
    if row is None:  # SHOW always answers one row
        import psycopg

        raise psycopg.InterfaceError(f"SHOW {setting} returned no row")
    return int(row[0])


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
        # Straight to the driver: exec_driver_sql's statement machinery cost more than the BEGIN itself,
        # on every transaction (every agent turn among them).
        # A checked-out connection always has its driver connection (None only once invalidated).
        conn.connection.driver_connection.execute(  # type: ignore[union-attr]
            "BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE")


def _forget_inherited_connections() -> None:
    """In a forked child (gunicorn --preload, as granian did, forks its workers from the process that
    imported the app and ran the start-up checks, which read the database): the parent's pooled
    connections are the parent's. Two processes on one PostgreSQL socket corrupt each other's
    transactions (issue 12's 500s: "connection in transaction status INTRANS", "unexpected result
    EMPTY_QUERY from ROLLBACK"). dispose(close=False) drops them from the child's pool without closing
    the parent's sockets."""
    for engine in list(_engines):
        engine.dispose(close=False)


_engines: weakref.WeakSet[Engine] = weakref.WeakSet()  # every engine this process made, none created here
os.register_at_fork(after_in_child=_forget_inherited_connections)
