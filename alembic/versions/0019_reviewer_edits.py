"""Reviewer edits: a code revision or a message can be written by a person (issue 32)

code_revisions.author_id / messages.author_id: the user who wrote this version when a reviewer
approved with their own changes (null: an agent wrote it, or a person's transcript note). The
sign-off rule that nobody approves their own work reads it. No foreign key, like
conversations.parent_id: SQLite could not drop the column again on a downgrade.

Revision ID: 0019_reviewer_edits
Revises: 0018_live_changes
Create Date: 2026-12-04 16:40:00
"""
from typing import Sequence, Union

import sqlalchemy as sa

from alembic import op

revision: str = '0019_reviewer_edits'
down_revision: Union[str, None] = '0018_live_changes'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('code_revisions', sa.Column('author_id', sa.Integer(), nullable=True))
    op.add_column('messages', sa.Column('author_id', sa.Integer(), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 has it), as in 0017.
    op.execute('ALTER TABLE messages DROP COLUMN author_id')
    op.execute('ALTER TABLE code_revisions DROP COLUMN author_id')
