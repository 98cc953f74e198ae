"""Shared fixtures: a fresh, migrated database per test on SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
IN_CI = os.environ.get("CI", "").lower() == "true"
# The running app for the HTTP API tests (session-scoped, on SQLite and PostgreSQL).
pytest_plugins = ["tests.support.api_app"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every case parametrised onto PostgreSQL (directly or through a fixture such as db_url),
    so `make test-fast` can leave them out with `-m "not postgresql"`. tryfirst: pytest's own
    `-m` deselection runs in this same hook and must see the marker."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "postgresql" in callspec.params.values():
            item.add_marker(pytest.mark.postgresql)


def _pg_available() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001
        return f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}"


def require_pg() -> None:
    problem = _pg_available()
    if problem:
        if IN_CI:
            pytest.fail(problem + " (CI=true: PostgreSQL tests must run)")
        pytest.skip(problem)


def create_pg_database() -> str:
    import psycopg

    name = f"hitl_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_pg_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def use_database(url: str) -> None:
    from hitl_dashboard.settings import reset_settings_cache

    os.environ["DATABASE_URL"] = url
    reset_settings_cache()


@contextlib.contextmanager
def fresh_database(kind: str, tmp_path: Path, monkeypatch) -> Iterator[str]:
    """A database with no tables yet (a new SQLite file or PostgreSQL database); the process
    environment points at it (for subprocesses too) until it is dropped."""
    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.settings import reset_settings_cache

    pg_name = None
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'hitl.db'}"
    else:
        require_pg()
        pg_name = create_pg_database()
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{pg_name}"
    monkeypatch.setenv("DATABASE_URL", url)
    reset_settings_cache()
    try:
        yield url
    finally:
        get_engine(url).dispose()
        reset_settings_cache()
        if pg_name:
            drop_pg_database(pg_name)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path, monkeypatch):
    """A migrated, empty database."""
    from hitl_dashboard.db.migrations import upgrade_to_head

    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    monkeypatch.setenv("DEPLOY_LOG_PATH", str(tmp_path / "deploys.jsonl"))
    # Published audit heads (services/audit_anchor.py) stay with the test's database.
    monkeypatch.setenv("AUDIT_ANCHOR_FILE", str(tmp_path / "audit-heads.jsonl"))
    with fresh_database(request.param, tmp_path, monkeypatch) as url:
        upgrade_to_head()
        yield url


@pytest.fixture
def sqlite_url(tmp_path, monkeypatch):
    """SQLite only, for tests whose subject is not the database."""
    from hitl_dashboard.db.migrations import upgrade_to_head
    from hitl_dashboard.settings import reset_settings_cache

    url = f"sqlite:///{tmp_path / 'hitl.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("DEPLOY_LOG_PATH", str(tmp_path / "deploys.jsonl"))
    reset_settings_cache()
    upgrade_to_head()
    yield url
    reset_settings_cache()


def run_cli(*args: str, env: dict | None = None, check: bool = True, timeout: float = 120):
    """The CLI in a new process, as an operator would run it."""
    result = subprocess.run(
        [sys.executable, "-m", "hitl_dashboard", *args],
        cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"CLI {args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result
