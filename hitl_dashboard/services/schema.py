"""The database as the operator manages it: the Alembic revisions in alembic/, applied on
demand (`db upgrade`), never at import or at runtime. The CLI reaches the database only through
services, so these are the entry points for its schema commands."""

from __future__ import annotations

import logging

from sqlalchemy import text

from hitl_dashboard.db import migrations
from hitl_dashboard.db.engine import get_engine

logger = logging.getLogger(__name__)


def upgrade_database() -> str | None:
    """Apply every revision not applied yet; returns the revision the database is now at."""
    return migrations.upgrade_to_head()


def require_current_schema() -> None:
    """Raises DatabaseNotReady (naming the command to run) unless the schema is at the head revision."""
    migrations.require_current_schema()


def database_status() -> str:
    """"ok", or "unreachable" (logged with its cause) for the health check."""
    try:
        with get_engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any driver or network error means "unreachable" here
        logger.exception("health check: database unreachable")
        return "unreachable"
    return "ok"


def connections_per_worker() -> int | None:
    """How many database connections this process's pool may hold at once (pool + overflow), or
    None when the pool has no fixed size."""
    pool = get_engine().pool
    size = getattr(pool, "size", None)
    if not callable(size):
        return None
    return size() + max(getattr(pool, "_max_overflow", 0), 0)
