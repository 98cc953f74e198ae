"""indexes for the review queues, the overdue check and tokens per day

- ix_reviews_open_role_due: open requests (pending, claimed) by role and due time; a role's queue
  reads its first page in order from it, instead of sorting every open row of the role.
- ix_reviews_open_due: open requests by due time; the overdue check (run by every runner every
  half second) reads only the overdue ones instead of scanning every review request.
- ix_messages_created_tokens: the managers' tokens-per-day chart reads its window from the index
  alone instead of scanning and sorting every message.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 05:30:00
"""
from typing import Sequence, Union

import sqlalchemy as sa

from alembic import op

revision: str = '0005'
down_revision: Union[str, None] = '0004'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_OPEN = sa.text("status IN ('pending', 'claimed')")


def upgrade() -> None:
    op.create_index('ix_reviews_open_role_due', 'review_requests', ['required_role', 'due_at', 'id'],
                    unique=False, sqlite_where=_OPEN, postgresql_where=_OPEN)
    op.create_index('ix_reviews_open_due', 'review_requests', ['due_at'],
                    unique=False, sqlite_where=_OPEN, postgresql_where=_OPEN)
    op.create_index('ix_messages_created_tokens', 'messages', ['created_at', 'prompt_tokens', 'completion_tokens'],
                    unique=False)


def downgrade() -> None:
    op.drop_index('ix_messages_created_tokens', table_name='messages')
    op.drop_index('ix_reviews_open_due', table_name='review_requests')
    op.drop_index('ix_reviews_open_role_due', table_name='review_requests')
