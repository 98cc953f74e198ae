"""The database schema as the operator manages it: the Alembic revisions in alembic/, applied on
demand (`db upgrade`), never at import or at runtime. The CLI reaches the database only through
services, so these are the entry points for its schema commands."""

from __future__ import annotations

from hitl_dashboard.db import migrations


def upgrade_database() -> str | None:
    """Apply every revision not applied yet; returns the revision the database is now at."""
    return migrations.upgrade_to_head()


def require_current_schema() -> None:
    """Raises DatabaseNotReady (naming the command to run) unless the schema is at the head revision."""
    migrations.require_current_schema()
