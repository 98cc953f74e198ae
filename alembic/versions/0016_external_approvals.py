"""external approval requests and approvals-only API tokens

external_requests: one row per conversation of origin 'external' (docs/external-approvals.md):
the caller, its own request id (unique per caller), what was asked, the link back, the context,
the callback and what the caller reported as run. api_tokens.scope: 'full' (every token before
this revision) or 'approvals' (only external approval requests).

Revision ID: 0016_external_approvals
Revises: 0015_slack_links
Create Date: 2026-12-04 13:30:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0016_external_approvals'
down_revision: Union[str, None] = '0015_slack_links'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('api_tokens', sa.Column('scope', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False,
                                          server_default='full'))
    op.create_table(
        'external_requests',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('conversation_id', sa.Integer(), nullable=False),
        sa.Column('caller_id', sa.Integer(), nullable=False),
        sa.Column('token_name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('caller_request_id', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('fingerprint', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('link', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True),
        sa.Column('context', sa.Text(), nullable=True),
        sa.Column('args_schema', sa.JSON(), nullable=True),
        sa.Column('callback_url', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True),
        sa.Column('callback_webhook_id', sa.Integer(), nullable=True),
        sa.Column('result_status', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column('result', sa.Text(), nullable=True),
        sa.Column('reported_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['conversation_id'], ['conversations.id']),
        sa.ForeignKeyConstraint(['caller_id'], ['users.id']),
        sa.ForeignKeyConstraint(['callback_webhook_id'], ['webhooks.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('conversation_id'),
        sa.UniqueConstraint('caller_id', 'caller_request_id', name='uq_external_requests_caller_id'),
    )


def downgrade() -> None:
    op.drop_table('external_requests')
    with op.batch_alter_table('api_tokens') as batch:
        batch.drop_column('scope')
