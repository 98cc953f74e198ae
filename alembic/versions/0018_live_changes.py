"""live_changes: the live bus through the database

A process with no browsers and no Redis (the CLI beside an embedded app) writes here what it
changed; the web worker reads the rows after the last it saw a few times a second and pushes the
change to the open pages (services/live/live_database.py). Only the newest rows are kept.

Revision ID: 0018_live_changes
Revises: 0017_single_sign_on
Create Date: 2026-12-04 16:30:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0018_live_changes'
down_revision: Union[str, None] = '0017_single_sign_on'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'live_changes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('event', sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )


def downgrade() -> None:
    op.drop_table('live_changes')
