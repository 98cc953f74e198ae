"""reviewer aids: static-analysis findings and questions to the agent (issue 14)

code_analyses: one row per analysed content hash (pending / running / analysed / not_analysed and
why); code_findings: bandit's and ruff's findings on that text, by line; review_questions: a
reviewer's question to the producing agent and its answer.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 07:50:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0009'
down_revision: Union[str, None] = '0008'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('code_analyses',
    sa.Column('content_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('file', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('claim_expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('content_hash')
    )
    op.create_index('ix_code_analyses_status', 'code_analyses', ['status', 'claim_expires_at'], unique=False)
    op.create_table('code_findings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('analyser', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('rule', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('severity', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('line', sa.Integer(), nullable=False),
    sa.Column('column', sa.Integer(), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_code_findings_hash_line', 'code_findings', ['content_hash', 'line'], unique=False)
    op.create_table('review_questions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('review_request_id', sa.Integer(), nullable=False),
    sa.Column('conversation_id', sa.Integer(), nullable=False),
    sa.Column('asker_id', sa.Integer(), nullable=False),
    sa.Column('agent', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
    sa.Column('line', sa.Integer(), nullable=True),
    sa.Column('question', sa.Text(), nullable=False),
    sa.Column('answer', sa.Text(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('claim_expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('answered_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['asker_id'], ['users.id'], ),
    sa.ForeignKeyConstraint(['conversation_id'], ['conversations.id'], ),
    sa.ForeignKeyConstraint(['review_request_id'], ['review_requests.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_review_questions_status', 'review_questions', ['status', 'claim_expires_at'], unique=False)
    op.create_index(op.f('ix_review_questions_review_request_id'), 'review_questions', ['review_request_id'],
                    unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_review_questions_review_request_id'), table_name='review_questions')
    op.drop_index('ix_review_questions_status', table_name='review_questions')
    op.drop_table('review_questions')
    op.drop_index('ix_code_findings_hash_line', table_name='code_findings')
    op.drop_table('code_findings')
    op.drop_index('ix_code_analyses_status', table_name='code_analyses')
    op.drop_table('code_analyses')
