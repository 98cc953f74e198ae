"""The CLI on a database that is not ready for this version: never migrated, behind the head
revision, migrated by a version we do not know, or unreachable. One line that says what to run
(and the command it names really fixes it), on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from sqlalchemy import text

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.migrations import alembic_config, current_revision
from tests.conftest import fresh_database, run_cli
from tests.e2e.app_process import free_port

NOT_MIGRATED = 8
UNREACHABLE = 9


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db_url(request, tmp_path, monkeypatch):
    """A database with no tables at all (a fresh SQLite file, a new PostgreSQL database)."""
    with fresh_database(request.param, tmp_path, monkeypatch) as url:
        yield url


def refused(*args: str) -> str:
    result = run_cli(*args, check=False)
    assert result.returncode == NOT_MIGRATED, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    return line


def run_the_hint(line: str) -> None:
    """Runs the command the message names, exactly as written, with this interpreter as `python`."""
    [command] = re.findall(r"`([^`]+)`", line)
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "hitl_dashboard"], command
    run_cli(*words[3:])  # run_cli raises if it fails


def test_unmigrated_database_gets_the_upgrade_hint_and_the_hint_works(empty_db_url):
    line = refused("users", "list")
    assert line == ("error: the database (DATABASE_URL) has no tables yet (not migrated); "
                    "run `python -m hitl_dashboard db upgrade`")
    assert refused("worker", "--until-idle") == line  # every command, the runner too
    run_the_hint(line)
    assert json.loads(run_cli("--json", "users", "list").stdout) == []


def test_database_behind_head_gets_the_same_hint(empty_db_url):
    from alembic.script import ScriptDirectory

    from alembic import command

    scripts = ScriptDirectory.from_config(alembic_config())
    head = scripts.get_current_head()
    older = scripts.get_revision(head).down_revision
    command.upgrade(alembic_config(), older)
    line = refused("check")
    assert f"is at revision {older}, behind this version's {head}" in line
    assert line.endswith("run `python -m hitl_dashboard db upgrade`")
    run_the_hint(line)
    assert current_revision() == head
    assert run_cli("check").stdout.strip() == "configuration OK (demo mode)"


def test_database_from_an_unknown_version_is_named_and_not_upgraded(empty_db_url):
    from hitl_dashboard.db.migrations import upgrade_to_head

    upgrade_to_head()
    with get_engine().begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    line = refused("--json", "users", "list")
    error = json.loads(line)
    assert error["error"] == "DatabaseNotMigrated"
    assert "revision 9999_from_the_future, which this version of the app does not know" in error["message"]


def test_unreachable_database_is_one_line_without_the_password():
    url = f"postgresql://postgres:pw-THIS-MUST-NOT-LEAK@127.0.0.1:{free_port()}/hitl"
    result = run_cli("users", "list", env={"DATABASE_URL": url}, check=False)
    assert result.returncode == UNREACHABLE, (result.returncode, result.stderr)
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: cannot connect to the database (DATABASE_URL): ")
    assert "pw-THIS-MUST-NOT-LEAK" not in result.stderr + result.stdout

