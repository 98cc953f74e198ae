"""Standing rules on a content sign-off gate (issue 42): a rule's scope is a tool, or a gate (the
team's task type and one of its sign-off roles, which the team file must allow). Tool rules keep
their rows as they are (task_type and sign_off_role NULL). A rule's observation of a sign-off names
no tool call, so tool_call_id becomes nullable.

Revision ID: 0024_content_gate_rules
Revises: 0023_standing_rules
Create Date: 2026-12-07 17:20:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0024_content_gate_rules'
down_revision: Union[str, None] = '0023_standing_rules'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_TEXT = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.add_column('standing_rules', sa.Column('task_type', _TEXT(length=16), nullable=True))
    op.add_column('standing_rules', sa.Column('sign_off_role', _TEXT(length=32), nullable=True))
    with op.batch_alter_table('standing_rule_observations') as batch:
        batch.alter_column('tool_call_id', existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT 1 FROM standing_rules WHERE sign_off_role IS NOT NULL LIMIT 1")).first():
        raise RuntimeError("cannot downgrade below 0024: there are standing rules on sign-off gates, which "
                           "0023's schema cannot hold")
    with op.batch_alter_table('standing_rule_observations') as batch:
        batch.alter_column('tool_call_id', existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table('standing_rules') as batch:
        batch.drop_column('sign_off_role')
        batch.drop_column('task_type')
