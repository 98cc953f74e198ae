"""indexes for the managers' review analytics

- ix_decisions_created: decisions in a period (time to decision, throughput, revise rate) are read
  as a range instead of a scan of every decision.
- ix_reviews_created: review requests opened in a period by role and status (opened and SLA
  breach counts), read from the index alone.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 17:45:00
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0010'
down_revision: Union[str, None] = '0009'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_index('ix_decisions_created', 'decisions', ['created_at'], unique=False)
    op.create_index('ix_reviews_created', 'review_requests', ['created_at', 'required_role', 'status'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_reviews_created', table_name='review_requests')
    op.drop_index('ix_decisions_created', table_name='decisions')
