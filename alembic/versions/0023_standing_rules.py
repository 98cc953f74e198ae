"""Standing rules (issue 42): rules that decide tool calls of one team's tool automatically, what they
saw in shadow and did when active, and the evidence thresholds per workspace. A rule's decision is a
decisions row with rule_id and rule_version and no reviewer, so reviewer_id becomes nullable.

Revision ID: 0023_standing_rules
Revises: 0022_messages_workspace
Create Date: 2026-12-07 13:40:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0023_standing_rules'
down_revision: Union[str, None] = '0022_messages_workspace'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_TEXT = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        'standing_rules',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('team', _TEXT(length=40), nullable=False),
        sa.Column('tool', _TEXT(length=64), nullable=False),
        sa.Column('effect', _TEXT(length=16), nullable=False),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('conditions', sa.JSON(), nullable=False),
        sa.Column('match_key', _TEXT(length=32), nullable=False),
        sa.Column('state', _TEXT(length=16), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('owner_id', sa.Integer(), nullable=False),
        sa.Column('promoted_by_id', sa.Integer(), nullable=True),
        sa.Column('override_reason', sa.Text(), nullable=True),
        sa.Column('state_reason', sa.Text(), nullable=True),
        sa.Column('daily_cap', sa.Integer(), nullable=True),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('agreements', sa.Integer(), nullable=False),
        sa.Column('disagreements', sa.Integer(), nullable=False),
        sa.Column('decided', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['owner_id'], ['users.id']),
        sa.ForeignKeyConstraint(['promoted_by_id'], ['users.id']),
        sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_standing_rules_scope', 'standing_rules', ['workspace_id', 'team', 'tool', 'state', 'match_key'])
    op.create_table(
        'standing_rule_observations',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('rule_id', sa.Integer(), nullable=False),
        sa.Column('rule_version', sa.Integer(), nullable=False),
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('conversation_id', sa.Integer(), nullable=False),
        sa.Column('review_request_id', sa.Integer(), nullable=False),
        sa.Column('tool_call_id', sa.Integer(), nullable=False),
        sa.Column('mode', _TEXT(length=16), nullable=False),
        sa.Column('would', _TEXT(length=16), nullable=False),
        sa.Column('human_action', _TEXT(length=16), nullable=True),
        sa.Column('human_edited', sa.Boolean(), nullable=False),
        sa.Column('agreed', sa.Boolean(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['rule_id'], ['standing_rules.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_rule_observations_rule_created', 'standing_rule_observations', ['rule_id', 'created_at'])
    op.create_index('ix_rule_observations_call', 'standing_rule_observations', ['tool_call_id'])
    op.create_table(
        'workspace_rule_settings',
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('min_approvals', sa.Integer(), nullable=False),
        sa.Column('window_days', sa.Integer(), nullable=False),
        sa.Column('min_agreements', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id']),
        sa.PrimaryKeyConstraint('workspace_id'),
    )
    op.add_column('decisions', sa.Column('rule_id', sa.Integer(), nullable=True))
    op.add_column('decisions', sa.Column('rule_version', sa.Integer(), nullable=True))
    with op.batch_alter_table('decisions') as batch:
        batch.alter_column('reviewer_id', existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT 1 FROM decisions WHERE reviewer_id IS NULL LIMIT 1")).first():
        raise RuntimeError("cannot downgrade below 0023: standing rules have decided calls (decisions with no "
                           "reviewer), which 0022's schema cannot hold")
    with op.batch_alter_table('decisions') as batch:
        batch.alter_column('reviewer_id', existing_type=sa.Integer(), nullable=False)
        batch.drop_column('rule_version')
        batch.drop_column('rule_id')
    op.drop_table('workspace_rule_settings')
    op.drop_index('ix_rule_observations_call', table_name='standing_rule_observations')
    op.drop_index('ix_rule_observations_rule_created', table_name='standing_rule_observations')
    op.drop_table('standing_rule_observations')
    op.drop_index('ix_standing_rules_scope', table_name='standing_rules')
    op.drop_table('standing_rules')
