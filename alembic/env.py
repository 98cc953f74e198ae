"""Alembic environment: targets SQLModel.metadata; URL from the app settings."""

from sqlmodel import SQLModel

import hitl_dashboard.db.tables  # noqa: F401  (registers every table)
from alembic import context
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.startup import settings_or_exit

settings_or_exit()  # `alembic upgrade head` with bad settings: one line per problem, no traceback

target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=str(get_engine().url), target_metadata=target_metadata, literal_binds=True, render_as_batch=True
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = context.config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    with get_engine().connect() as connection:
        _run(connection)


# Two deploy steps racing to migrate PostgreSQL queue on this lock instead of colliding.
MIGRATION_LOCK_KEY = 7_317_002


def _run(connection) -> None:  # noqa: ANN001
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
