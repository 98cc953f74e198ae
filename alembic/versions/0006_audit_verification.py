"""audit verification checkpoint

audit_verification: one row remembering how far the audit chain was verified (seq and hash) and the
last verification's answer, so the audit page no longer re-verifies the whole chain on every load and
"Verify now" goes on from the remembered event. `audit verify` at the CLI stays a full check.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 05:30:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0006'
down_revision: Union[str, None] = '0005'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('audit_verification',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('verified_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('ok', sa.Boolean(), nullable=False),
    sa.Column('first_bad_seq', sa.Integer(), nullable=True),
    sa.Column('problem', sa.Text(), nullable=True),
    sa.Column('full', sa.Boolean(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )


def downgrade() -> None:
    op.drop_table('audit_verification')
