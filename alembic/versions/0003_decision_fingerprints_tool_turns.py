"""idempotency keys per reviewer with a request fingerprint; tool calls know their turn

- decisions.idempotency_key was unique across all users: another reviewer could occupy a key
  and make someone else's decision fail. Keys are now unique per reviewer, and the fingerprint
  of the request is stored so that the same key with a different body is refused.
- tool_calls.turn groups the calls one agent turn asked for: the team resumes once, when
  every call of the turn is decided.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 01:10:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0003'
down_revision: Union[str, None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# 0001 created an unnamed UNIQUE(idempotency_key): PostgreSQL named it decisions_idempotency_key_key;
# SQLite keeps it unnamed, so the batch copy names it by this convention to drop it.
_CONVENTION = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def _old_unique_name() -> str:
    if op.get_bind().dialect.name == "postgresql":
        return "decisions_idempotency_key_key"
    return "uq_decisions_idempotency_key"


def upgrade() -> None:
    with op.batch_alter_table('decisions', naming_convention=_CONVENTION) as batch_op:
        batch_op.add_column(sa.Column('request_fingerprint', sqlmodel.sql.sqltypes.AutoString(length=64),
                                      nullable=True))
        batch_op.drop_constraint(_old_unique_name(), type_='unique')
        batch_op.create_unique_constraint('uq_decisions_reviewer_idempotency_key',
                                          ['reviewer_id', 'idempotency_key'])
    with op.batch_alter_table('tool_calls') as batch_op:
        batch_op.add_column(sa.Column('turn', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('tool_calls') as batch_op:
        batch_op.drop_column('turn')
    with op.batch_alter_table('decisions', naming_convention=_CONVENTION) as batch_op:
        batch_op.drop_constraint('uq_decisions_reviewer_idempotency_key', type_='unique')
        batch_op.create_unique_constraint(_old_unique_name(), ['idempotency_key'])
        batch_op.drop_column('request_fingerprint')
