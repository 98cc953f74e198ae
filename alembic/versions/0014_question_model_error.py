"""questions record the model that answered and why a model could not answer

review_questions.model: the label of the asked agent's model client (as messages.model), null before
this revision and while unanswered. review_questions.error: why the agent's model gave no answer
(status failed), shown on the thread beside a retry; failures before this revision kept their text
in `answer`.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-10 10:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0014'
down_revision: Union[str, None] = '0013'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('review_questions', sa.Column('error', sa.Text(), nullable=True))
    op.add_column('review_questions',
                  sa.Column('model', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('review_questions') as batch:
        batch.drop_column('model')
        batch.drop_column('error')
