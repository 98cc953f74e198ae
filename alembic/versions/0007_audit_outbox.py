"""audit outbox

audit_outbox: on PostgreSQL an audit event is committed here with its change, and linked into the
chain (audit_events: seq, prev_hash, hash) right after that commit, in batches under the chain lock,
so the lock is no longer held across every change's commit (issue 12). Empty between links.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 07:30:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0007'
down_revision: Union[str, None] = '0006'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('audit_outbox',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('actor_role', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(length=48), nullable=False),
    sa.Column('conversation_id', sa.Integer(), nullable=True),
    sa.Column('review_request_id', sa.Integer(), nullable=True),
    sa.Column('content_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )


def downgrade() -> None:
    # Events still waiting would vanish from the trail (the app links them after every commit; a crash
    # between a commit and its link leaves some here until the next link).
    if op.get_bind().execute(sa.text("SELECT count(*) FROM audit_outbox")).scalar():
        raise RuntimeError("audit_outbox holds audit events not yet linked into the chain; run any change "
                           "with the app (it links them) before downgrading")
    op.drop_table('audit_outbox')
