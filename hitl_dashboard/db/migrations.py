"""Apply the committed Alembic revisions (never create tables any other way)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.settings import PROJECT_ROOT


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
