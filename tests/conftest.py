"""Shared fixtures: a fresh, migrated database per test on SQLite and on PostgreSQL (a copy of one
template migrated once per test session and xdist worker), the cheap password hasher, and the
CLI run in this process."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import io
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
IN_CI = os.environ.get("CI", "").lower() == "true"
# The scripted model streams at a demo's pace by default (settings.scripted_chunk_delay_ms); tests
# run it at full speed, in this process and in every server or CLI process they start. A test that
# wants a pace sets its own (the e2e app: tests/e2e/conftest.py).
os.environ["SCRIPTED_CHUNK_DELAY_MS"] = "0"
# Files a test's app writes beside its database or in the project folder by default (published
# audit heads, the deploy tool's log) go to a temporary folder of this process, for every test and
# every process it starts; tests that read them set their own under tmp_path (db_url, sqlite_url).
# tests/support/checkout_clean.py fails a run that leaves a data file in the checkout anyway.
_FILES = Path(tempfile.mkdtemp(prefix="hitl-test-files-"))
os.environ.setdefault("AUDIT_ANCHOR_FILE", str(_FILES / "audit-heads.jsonl"))
os.environ.setdefault("DEPLOY_LOG_PATH", str(_FILES / "deploys.jsonl"))
atexit.register(shutil.rmtree, _FILES, ignore_errors=True)
# The running app for the HTTP API tests (session-scoped, on SQLite and PostgreSQL).
pytest_plugins = ["tests.support.api_app", "tests.support.ordering", "tests.support.checkout_clean",
                  "tests.support.webhook_receiver"]


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


def pg_url(name: str) -> str:
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def create_pg_database(template: str | None = None) -> str:
    """A new database; with `template`, a copy of that one (nobody may be connected to it)."""
    import psycopg

    name = f"hitl_test_{uuid.uuid4().hex[:10]}"
    clause = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{clause}')
    return name


def drop_pg_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def use_database(url: str) -> None:
    from hitl_dashboard.settings import reset_settings_cache

    os.environ["DATABASE_URL"] = url
    reset_settings_cache()


def _migrate_template(url: str) -> None:
    """Run every Alembic revision on `url`, then close every connection to it (a PostgreSQL
    template cannot be copied while anyone is connected; a SQLite file is copied whole)."""
    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.migrations import upgrade_to_head
    from hitl_dashboard.settings import reset_settings_cache

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DATABASE_URL", url)
        reset_settings_cache()
        try:
            upgrade_to_head()
        finally:
            get_engine(url).dispose()
    reset_settings_cache()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file at the newest revision, migrated once per session (per xdist worker: each has
    its own temporary folder, so no two processes ever write it). Tests get copies."""
    path = tmp_path_factory.mktemp("template-sqlite") / "template.db"
    _migrate_template(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """A PostgreSQL database at the newest revision, migrated once per session and xdist worker
    (its name is unique, so workers never share one); tests get `CREATE DATABASE ... TEMPLATE`
    copies. Nothing connects to it after the migration, which CREATE DATABASE requires."""
    require_pg()
    name = create_pg_database()
    try:
        _migrate_template(pg_url(name))
        yield name
    finally:
        drop_pg_database(name)


def copy_sqlite(template: Path, target: Path) -> None:
    # The backup API copies a consistent database whatever its journal (WAL) holds.
    with contextlib.closing(sqlite3.connect(template)) as source, contextlib.closing(sqlite3.connect(target)) as copy:
        source.backup(copy)


@contextlib.contextmanager
def fresh_database(kind: str, tmp_path: Path, monkeypatch, *, template: Path | str | None = None) -> Iterator[str]:
    """A new SQLite file or PostgreSQL database: with no tables yet, or with `template` a copy of
    that one (sqlite_template's path or pg_template's name). The process environment points at
    it (for subprocesses too) until it is dropped."""
    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.settings import reset_settings_cache

    pg_name = None
    if kind == "sqlite":
        path = tmp_path / "hitl.db"
        if template is not None:
            copy_sqlite(Path(template), path)
        url = f"sqlite:///{path}"
    else:
        require_pg()
        pg_name = create_pg_database(template=str(template) if template else None)
        url = pg_url(pg_name)
    monkeypatch.setenv("DATABASE_URL", url)
    reset_settings_cache()
    try:
        yield url
    finally:
        get_engine(url).dispose()
        reset_settings_cache()
        if pg_name:
            drop_pg_database(pg_name)


def migrated_database(request: pytest.FixtureRequest, kind: str, tmp_path: Path, monkeypatch):
    """fresh_database at the newest revision: a copy of the session's template, or, for tests
    marked real_migrations, every revision run on an empty database."""
    if request.node.get_closest_marker("real_migrations"):
        return _upgraded(fresh_database(kind, tmp_path, monkeypatch))
    template = request.getfixturevalue("sqlite_template" if kind == "sqlite" else "pg_template")
    return fresh_database(kind, tmp_path, monkeypatch, template=template)


@contextlib.contextmanager
def _upgraded(database: contextlib.AbstractContextManager[str]) -> Iterator[str]:
    from hitl_dashboard.db.migrations import upgrade_to_head

    with database as url:
        upgrade_to_head()
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path, monkeypatch):
    """A migrated, empty database."""
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    monkeypatch.setenv("DEPLOY_LOG_PATH", str(tmp_path / "deploys.jsonl"))
    # Published audit heads (services/audit_anchor.py) stay with the test's database.
    monkeypatch.setenv("AUDIT_ANCHOR_FILE", str(tmp_path / "audit-heads.jsonl"))
    with migrated_database(request, request.param, tmp_path, monkeypatch) as url:
        yield url


@pytest.fixture
def sqlite_url(request, tmp_path, monkeypatch):
    """SQLite only, for tests whose subject is not the database."""
    monkeypatch.setenv("DEPLOY_LOG_PATH", str(tmp_path / "deploys.jsonl"))
    monkeypatch.setenv("AUDIT_ANCHOR_FILE", str(tmp_path / "audit-heads.jsonl"))
    with migrated_database(request, "sqlite", tmp_path, monkeypatch) as url:
        yield url


@pytest.fixture(autouse=True, scope="session")
def _listeners() -> None:
    """What every process's start-up does (hitl_dashboard/listeners.py): this one writes through
    services too, to its own databases and to the served apps' (users, tokens, seeded work)."""
    from hitl_dashboard import listeners

    listeners.install()


@pytest.fixture(autouse=True)
def _cheap_password_hashing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its production cost takes ~0.1 s per user, and most tests create users without
    being about passwords: they get argon2's cheapest parameters (the hashes still verify with the
    production hasher). Tests marked argon2 keep the production hasher. Only this fixture swaps
    it, so nothing outside the tests can."""
    if request.node.get_closest_marker("argon2"):
        return
    from tests.support.db_state import use_cheap_passwords

    use_cheap_passwords(monkeypatch)


def run_cli(*args: str, env: dict | None = None, check: bool = True, timeout: float = 120):
    """The CLI's entry point (hitl_dashboard.cli.entry.main) called in this process, with what an
    operator's run would see: `env` laid over this process's environment (restored after), fresh
    settings, its own stdout and stderr, and the exit code. Returns a CompletedProcess like
    run_cli_process; `timeout` is pytest-timeout's job here."""
    result = _cli_in_process(list(args), {k: str(v) for k, v in (env or {}).items()})
    if check and result.returncode != 0:
        raise AssertionError(f"CLI {args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def run_cli_process(*args: str, env: dict | None = None, check: bool = True, timeout: float = 120):
    """The CLI in a new process, as an operator would run it: for tests whose subject is the
    process itself (start-up, refusing to start, signals)."""
    result = subprocess.run(
        [sys.executable, "-m", "hitl_dashboard", *args],
        cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"CLI {args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def _cli_in_process(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    from hitl_dashboard.cli.entry import main
    from hitl_dashboard.services.live import live
    from hitl_dashboard.settings import reset_settings_cache

    out, err = io.StringIO(), io.StringIO()
    outcome: list[int] = []

    def call() -> None:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                outcome.append(main(args) or 0)
            except SystemExit as exc:  # argparse's usage errors, or a command's own exit
                if exc.code is None or isinstance(exc.code, int):
                    outcome.append(exc.code or 0)
                else:
                    print(exc.code, file=sys.stderr)
                    outcome.append(1)
            except Exception:  # noqa: BLE001 (what an uncaught exception does to a process)
                traceback.print_exc()
                outcome.append(1)

    saved_env = {name: os.environ.get(name) for name in env}
    saved_cwd = os.getcwd()
    saved_logging = _logging_state()
    saved_sinks = list(live._sinks)
    try:
        os.environ.update(env)
        os.chdir(ROOT)
        reset_settings_cache()
        if _loop_running():
            # asyncio.run (the runner commands) refuses to start inside a running loop, such as the
            # one Playwright's sync API keeps in the main thread: a thread of its own has none.
            worker = threading.Thread(target=call, name="cli-in-process")
            worker.start()
            worker.join()
        else:
            call()
    finally:
        live._sinks[:] = saved_sinks
        _restore_logging(saved_logging)
        os.chdir(saved_cwd)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reset_settings_cache()
    return subprocess.CompletedProcess([sys.executable, "-m", "hitl_dashboard", *args], outcome[0],
                                       out.getvalue(), err.getvalue())


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _logging_state() -> dict[str, tuple[int, list[logging.Handler]]]:
    """The CLI sets up logging for its process (observability.setup): kept aside and put back."""
    names = ["", *logging.root.manager.loggerDict]
    loggers = {name: logging.getLogger(name) for name in names
               if name == "" or isinstance(logging.root.manager.loggerDict[name], logging.Logger)}
    return {name: (logger.level, list(logger.handlers)) for name, logger in loggers.items()}


def _restore_logging(state: dict[str, tuple[int, list[logging.Handler]]]) -> None:
    for name, (level, handlers) in state.items():
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.handlers[:] = handlers
    # Loggers first made during the run (a module imported by the command) keep no level or
    # handler of its: a handler on the run's closed stdout, or an INFO level, would reach later tests.
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if name not in state and isinstance(logger, logging.Logger):
            logger.setLevel(logging.NOTSET)
            logger.handlers.clear()
            logger.propagate = True
