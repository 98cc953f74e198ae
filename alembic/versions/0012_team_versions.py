"""team versions, and the version each conversation runs on

- team_versions: every saved team definition (YAML), immutable, numbered per team.
- conversations.team_version_id: the version a conversation started on. Conversations from before
  this revision keep null and run on their team's file as before.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 22:10:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0012'
down_revision: Union[str, None] = '0011'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'team_versions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('team', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('definition', sa.Text(), nullable=False),
        sa.Column('content_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('origin', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column('created_by', sa.Integer(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['created_by'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('team', 'number', name='uq_team_versions_team_number'),
    )
    op.create_index('ix_team_versions_team', 'team_versions', ['team'], unique=False)
    # No foreign key (as parent_id): SQLite would rebuild the conversations table to add one.
    op.add_column('conversations', sa.Column('team_version_id', sa.Integer(), nullable=True))


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        # In place (SQLite >= 3.35), as 0008 does: batch mode would copy the table, and the rows of
        # other tables referring to conversations forbid dropping the old copy.
        op.execute('ALTER TABLE conversations DROP COLUMN team_version_id')
    else:
        op.drop_column('conversations', 'team_version_id')
    op.drop_index('ix_team_versions_team', table_name='team_versions')
    op.drop_table('team_versions')
