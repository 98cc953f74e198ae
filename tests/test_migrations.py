"""The committed Alembic revisions build exactly the schema the models describe, and the newest
revision can be undone and redone without losing rows (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

import hitl_dashboard.db.tables  # noqa: F401  (registers every table)
from alembic import command
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.migrations import alembic_config, current_revision
from tests.support.flow import decide_as, make_people, only_open_review, start, work

# The subject is the revisions themselves: db_url runs them all here, not a copy of the template.
pytestmark = pytest.mark.real_migrations


def _differences() -> list:
    with get_engine().connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        return compare_metadata(context, SQLModel.metadata)


def test_migrations_at_head_match_the_models(db_url):
    assert _differences() == []


def test_the_newest_revision_downgrades_and_upgrades_keeping_decisions(db_url):
    make_people()
    cid = start("Add rate limiting to the login endpoint")
    work()
    review_id = only_open_review(cid).id
    decide_as("alice", review_id, "approve", idempotency_key="k-1")
    head = current_revision()
    command.downgrade(alembic_config(), "-1")
    command.upgrade(alembic_config(), "head")
    assert current_revision() == head and _differences() == []
    # The decision survived both ways; its key still replays instead of deciding twice.
    assert decide_as("alice", review_id, "approve", idempotency_key="k-1").replayed
