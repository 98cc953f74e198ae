"""Slack buttons: Slack users mapped to product users, and Slack requests already seen (issue 31)

slack_user_links: an admin maps a Slack user (workspace id + user id) to a product user; only mapped
users can decide from Slack. slack_seen_requests: the hash of each accepted Slack request's signature
with an expiry, so a replay is refused by every web worker.

Revision ID: 0015_slack_links
Revises: 0014
Create Date: 2026-12-04 13:20:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0015_slack_links'
down_revision: Union[str, None] = '0014'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('slack_user_links',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('slack_team_id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('slack_user_id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('slack_team_id', 'slack_user_id', name='uq_slack_user_links_slack_user')
    )
    op.create_index(op.f('ix_slack_user_links_user_id'), 'slack_user_links', ['user_id'], unique=False)
    op.create_table('slack_seen_requests',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key')
    )
    op.create_index(op.f('ix_slack_seen_requests_expires_at'), 'slack_seen_requests', ['expires_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_slack_seen_requests_expires_at'), table_name='slack_seen_requests')
    op.drop_table('slack_seen_requests')
    op.drop_index(op.f('ix_slack_user_links_user_id'), table_name='slack_user_links')
    op.drop_table('slack_user_links')
