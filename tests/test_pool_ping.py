"""PostgreSQL's pooled connections: one that died while it sat idle in the pool (a server restart,
an idle timeout, an operator's pg_terminate_backend) is replaced before a statement runs on it, so
nobody sees the error; one that was in use a moment ago is used as it is, without a ping first."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import text

from hitl_dashboard.db import engine as engine_module
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.services.transactions import reading
from tests.conftest import PG_ADMIN_URL

pytestmark = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def _backend(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text("SELECT pg_backend_pid()")).scalar()


def _terminate(pid: int) -> None:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0] is True


@pytest.fixture
def pings(monkeypatch):
    """Counts the pings the pool sends (and lets them through to the server)."""
    engine = get_engine()
    sent = []
    real_ping = engine.dialect.do_ping

    def counted(dbapi_connection):
        sent.append(dbapi_connection)
        return real_ping(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return sent


def test_a_connection_that_died_while_idle_is_replaced_before_use(db_url, pings, monkeypatch):
    engine = get_engine()
    dead = _backend(engine)
    assert engine.pool.checkedin() == 1
    _terminate(dead)
    monkeypatch.setattr(engine_module, "PING_IF_IDLE_S", 0.0)  # as if it had sat in the pool a while
    with reading() as uow:  # what every API request does first: no error reaches it
        assert uow.session.execute(text("SELECT pg_backend_pid()")).scalar() != dead
    assert pings[0].closed  # the ping found the dead one (and, with no idle time allowed, pinged its successor)


def test_a_connection_used_a_moment_ago_is_not_pinged(db_url, pings):
    engine = get_engine()
    first = _backend(engine)
    for _ in range(20):
        assert _backend(engine) == first  # the same pooled connection each time
    assert pings == []


def test_an_idle_connection_is_pinged_and_kept_when_alive(db_url, pings, monkeypatch):
    engine = get_engine()
    first = _backend(engine)
    monkeypatch.setattr(engine_module, "PING_IF_IDLE_S", 0.0)
    assert _backend(engine) == first
    assert len(pings) == 1
