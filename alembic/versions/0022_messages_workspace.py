"""Messages carry their conversation's workspace (issue 41), so a workspace manager's tokens-per-day
chart is read from one index (workspace, time, tokens) like the instance's: filtering each message
of the window by its conversation read every message of every workspace (1 s at 2M messages).

Revision ID: 0022_messages_workspace
Revises: 0021_slack_links_per_workspace
Create Date: 2026-12-07 11:30:00
"""
from typing import Sequence, Union

import sqlalchemy as sa

from alembic import op

revision: str = '0022_messages_workspace'
down_revision: Union[str, None] = '0021_slack_links_per_workspace'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # As 0020: every message is the default workspace's (id 1) unless its conversation is another's;
    # only those are rewritten. SQLite keeps the DEFAULT it needs to add a NOT NULL column.
    op.add_column('messages', sa.Column('workspace_id', sa.Integer(), nullable=False, server_default='1'))
    op.execute("UPDATE messages SET workspace_id = (SELECT c.workspace_id FROM conversations c "
               "WHERE c.id = messages.conversation_id) "
               "WHERE conversation_id IN (SELECT id FROM conversations WHERE workspace_id <> 1)")
    if op.get_bind().dialect.name == 'postgresql':
        op.alter_column('messages', 'workspace_id', server_default=None)
    op.create_index('ix_messages_workspace_created_tokens', 'messages',
                    ['workspace_id', 'created_at', 'prompt_tokens', 'completion_tokens'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_messages_workspace_created_tokens', table_name='messages')
    op.execute('ALTER TABLE messages DROP COLUMN workspace_id')
