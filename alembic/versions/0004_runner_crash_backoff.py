"""runner crash backoff

conversations.crash_count: runs of this conversation in a row that crashed without storing a turn.
The runner backs off exponentially on it (the not-before time is the released lease's expiry) and
fails the conversation after RUNNER_MAX_CRASHES, instead of retrying at once for ever.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 10:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa

from alembic import op

revision: str = '0004'
down_revision: Union[str, None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('conversations', schema=None) as batch_op:
        batch_op.add_column(sa.Column('crash_count', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 has it): a batch copy would have to drop and recreate
    # conversations, which every other table references, and SQLite's foreign keys refuse that.
    op.execute("ALTER TABLE conversations DROP COLUMN crash_count")
