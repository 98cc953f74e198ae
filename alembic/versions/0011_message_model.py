"""the model that wrote each message

messages.model: the model label of the agent's client when the message was produced (for example
gpt-4o-mini, or scripted). Null for messages older than this revision, for people's messages and
for tool results (a tool wrote those, not a model).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 22:05:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0011'
down_revision: Union[str, None] = '0010'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('messages', sa.Column('model', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True))


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        # In place (SQLite >= 3.35): batch mode would copy the table, and the code revisions referring
        # to messages forbid dropping the old copy.
        op.execute('ALTER TABLE messages DROP COLUMN model')
    else:
        op.drop_column('messages', 'model')
