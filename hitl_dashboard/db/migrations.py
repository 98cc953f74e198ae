"""Apply the committed Alembic revisions (never create tables any other way), and tell whether
the database is at their head before anything else touches it."""

from __future__ import annotations

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy.exc import OperationalError

from alembic import command
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.domain.errors import DatabaseNotMigrated, DatabaseNotReady
from hitl_dashboard.settings import PROJECT_ROOT

UPGRADE_COMMAND = "python -m hitl_dashboard db upgrade"


def alembic_config() -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "alembic"))
    return config


def upgrade_to_head() -> str | None:
    command.upgrade(alembic_config(), "head")
    return current_revision()


def current_revision() -> str | None:
    with get_engine().connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def require_current_schema() -> None:
    """Raise DatabaseNotReady (one line, with the command to run) unless the schema is at head.

    Checked up front because the alternative is the first query failing deep in a command with
    `no such table` and a long traceback."""
    try:
        current = current_revision()
    except OperationalError as exc:
        raise DatabaseNotReady(f"cannot connect to the database (DATABASE_URL): {_reason(exc)}") from None
    scripts = ScriptDirectory.from_config(alembic_config())
    heads = scripts.get_heads()
    if current in heads:
        return
    if current is None:
        state = "has no tables yet (not migrated)"
    elif _known(scripts, current):
        state = f"is at revision {current}, behind this version's {', '.join(heads)}"
    else:
        raise DatabaseNotMigrated(
            f"the database (DATABASE_URL) is at revision {current}, which this version of the app does not "
            "know (was it migrated by a newer version?); run that version, or restore a matching backup"
        )
    raise DatabaseNotMigrated(f"the database (DATABASE_URL) {state}; run `{UPGRADE_COMMAND}`")


def _known(scripts: ScriptDirectory, revision: str) -> bool:
    try:
        return scripts.get_revision(revision) is not None
    except CommandError:
        return False


def _reason(exc: OperationalError) -> str:
    # The driver's first line ("connection refused", "unable to open database file"); the URL's
    # password is blanked in case a driver ever quotes it.
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else type(exc).__name__
    password = get_engine().url.password
    return reason.replace(password, "<hidden>") if password else reason
