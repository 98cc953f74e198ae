"""Connection pools per web worker sized from the worker count and PostgreSQL's max_connections,
and a deployment whose pools cannot fit refused at start-up with the arithmetic (issue 12: 5 workers
x (10 + 20) = 150 connections against the default 100 turned into HTTP 503s under load)."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest

from hitl_dashboard.db.engine import pool_plan_for
from hitl_dashboard.db.pool_plan import plan_pool
from hitl_dashboard.settings import reset_settings_cache
from tests.conftest import PG_ADMIN_URL, ROOT, require_pg, run_cli

PG_URL = PG_ADMIN_URL.replace("postgresql://", "postgresql+psycopg://")


def test_explicit_pools_that_exceed_max_connections_are_refused_with_the_arithmetic():
    plan = plan_pool(workers=5, max_connections=100, superuser_reserved=3, reserved=10, pool_size=10, max_overflow=20)
    assert plan.problem == (
        "5 web worker(s) x (DB_POOL_SIZE 10 + DB_MAX_OVERFLOW 20) = 150 connections, but PostgreSQL "
        "max_connections is 100, minus 3 reserved for superusers and DB_RESERVED_CONNECTIONS=10 for runners, "
        "the CLI and migrations, leaves 87; lower DB_POOL_SIZE / DB_MAX_OVERFLOW or WEB_WORKERS, or unset "
        "them to have them derived (17 per worker)")


def test_derived_pools_share_what_max_connections_leaves():
    for workers in (1, 2, 5, 8, 43):
        plan = plan_pool(workers=workers, max_connections=100, superuser_reserved=3, reserved=10)
        assert plan.problem is None, plan
        assert plan.pool_size >= 2 and workers * (plan.pool_size + plan.max_overflow) <= 87
    one, five = plan_pool(workers=1, max_connections=100), plan_pool(workers=5, max_connections=100)
    assert (one.pool_size, one.max_overflow) == (10, 20)  # the old sizes, when they fit
    assert five.pool_size + five.max_overflow == 17


def test_too_many_workers_for_the_server_is_refused():
    plan = plan_pool(workers=50, max_connections=100, superuser_reserved=3, reserved=10)
    assert plan.problem and "fewer than 2 connections for each of 50 web worker(s)" in plan.problem
    assert "max_connections is 100" in plan.problem


def test_unknown_max_connections_keeps_the_configured_or_default_sizes():
    assert (plan_pool(workers=3, max_connections=None).pool_size, plan_pool(workers=3, max_connections=None)
            .max_overflow) == (10, 20)
    plan = plan_pool(workers=3, max_connections=None, pool_size=4, max_overflow=1)
    assert (plan.pool_size, plan.max_overflow, plan.problem) == (4, 1, None)


def test_the_plan_reads_max_connections_from_the_server(monkeypatch):
    require_pg()
    with psycopg.connect(PG_ADMIN_URL) as conn:
        max_connections = int(conn.execute("SHOW max_connections").fetchone()[0])
    monkeypatch.setenv("GRANIAN_WORKERS", "3")
    reset_settings_cache()
    pool_plan_for.cache_clear()
    try:
        plan = pool_plan_for(PG_URL)
    finally:
        pool_plan_for.cache_clear()
        reset_settings_cache()
    assert plan.problem is None
    assert f"3 worker(s) x (pool {plan.pool_size} + overflow {plan.max_overflow})" in plan.summary
    assert 3 * (plan.pool_size + plan.max_overflow) <= max_connections - 3 - 10


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_web_tier_and_check_refuse_pools_that_cannot_fit(db_url):
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(DATABASE_URL=db_url, GRANIAN_WORKERS="8", DB_POOL_SIZE="10", DB_MAX_OVERFLOW="20",
               PYTHONUNBUFFERED="1")
    app = subprocess.run([sys.executable, "-c", "import hitl_dashboard.hitl_dashboard"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert app.returncode == 2, app.stderr
    [line] = [x for x in app.stderr.splitlines() if x.strip()]
    assert line.startswith("configuration error: 8 web worker(s) x (DB_POOL_SIZE 10 + DB_MAX_OVERFLOW 20) = 240 "
                           "connections, but PostgreSQL max_connections is ")
    check = run_cli("check", env=env, check=False)
    assert check.returncode == 2 and "= 240 connections" in check.stderr
