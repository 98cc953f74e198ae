"""team checkpoints turn by turn; forks and replays

- turn_checkpoints: each agent turn stores what it changed in the team state (or, for a conversation's
  first turn and the start of a fork, the whole state), so writing a turn no longer costs more as the
  conversation grows, and the state at any earlier turn can be rebuilt (forks, replays).
- conversations.checkpoint (the whole state, rewritten every turn) moves there: each conversation's
  last checkpoint becomes a 'full' row at its current turn, so a paused conversation resumes as before.
- conversations.parent_id / parent_turn / origin: a fork or replay names where it came from.

Downgrade rebuilds each conversation's last state into conversations.checkpoint (forks and replays
stay, as ordinary conversations, without their parent columns).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 07:30:00
"""
import json
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0008'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('turn_checkpoints',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('conversation_id', sa.Integer(), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('input', sa.JSON(), nullable=True),
    sa.Column('last_seq', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['conversation_id'], ['conversations.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('conversation_id', 'turn', name='uq_turn_checkpoints_conversation_turn')
    )
    op.execute(
        "INSERT INTO turn_checkpoints (conversation_id, turn, kind, data, input, last_seq, created_at) "
        "SELECT id, checkpoint_version, 'full', checkpoint, NULL, next_seq - 1, updated_at FROM conversations "
        "WHERE checkpoint IS NOT NULL AND CAST(checkpoint AS TEXT) <> 'null'"
    )
    _drop_column('checkpoint')
    op.add_column('conversations', sa.Column('parent_id', sa.Integer(), nullable=True))
    op.add_column('conversations', sa.Column('parent_turn', sa.Integer(), nullable=True))
    op.add_column('conversations', sa.Column('origin', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))
    op.create_index(op.f('ix_conversations_parent_id'), 'conversations', ['parent_id'], unique=False)


def downgrade() -> None:
    from hitl_dashboard.domain.checkpoints import FULL, rebuild, referenced_message_ids

    bind = op.get_bind()
    op.add_column('conversations', sa.Column('checkpoint', sa.JSON(), nullable=True))
    conversations = sa.table('conversations', sa.column('id'), sa.column('checkpoint_version'),
                             sa.column('checkpoint', sa.JSON()))
    checkpoints = sa.table('turn_checkpoints', sa.column('conversation_id'), sa.column('turn'),
                           sa.column('kind'), sa.column('data', sa.JSON()))
    messages = sa.table('messages', sa.column('conversation_id'), sa.column('seq'), sa.column('content'))
    for cid, turn in bind.execute(sa.select(conversations.c.id, conversations.c.checkpoint_version)).all():
        rows = bind.execute(
            sa.select(checkpoints.c.turn, checkpoints.c.kind, checkpoints.c.data)
            .where(checkpoints.c.conversation_id == cid, checkpoints.c.turn <= turn)
            .order_by(checkpoints.c.turn)
        ).all()
        full_at = max((i for i, r in enumerate(rows) if r.kind == FULL), default=None)
        if full_at is None:
            continue
        chain = [(r.kind, r.data if isinstance(r.data, dict) else json.loads(r.data)) for r in rows[full_at:]]
        ids = set().union(*(referenced_message_ids(data) for _, data in chain))
        texts = dict(bind.execute(sa.select(messages.c.seq, messages.c.content).where(
            messages.c.conversation_id == cid, messages.c.seq.in_(ids))).all()) if ids else {}
        bind.execute(conversations.update().where(conversations.c.id == cid)
                     .values(checkpoint=rebuild(chain, texts)))
    op.drop_index(op.f('ix_conversations_parent_id'), table_name='conversations')
    _drop_column('origin')
    _drop_column('parent_turn')
    _drop_column('parent_id')
    op.drop_table('turn_checkpoints')


def _drop_column(name: str) -> None:
    if op.get_bind().dialect.name == 'sqlite':
        # In place (SQLite >= 3.35): Alembic's batch mode would copy the table, and the rows of other
        # tables referring to conversations forbid dropping the old copy.
        op.execute(f'ALTER TABLE conversations DROP COLUMN {name}')
    else:
        op.drop_column('conversations', name)
