"""Slack user links belong to a workspace (issue 41): a workspace admin links Slack users to members
of that workspace, and a click on a review's button acts as the user linked in the review's
workspace. One Slack user may be linked in several workspaces (one link in each).

Links made before act in the workspace `default` (where 0020 put every role they could use).

Revision ID: 0021_slack_links_per_workspace
Revises: 0020_workspaces
Create Date: 2026-12-07 11:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa

from alembic import op

revision: str = '0021_slack_links_per_workspace'
down_revision: Union[str, None] = '0020_workspaces'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_DEFAULT = "COALESCE((SELECT id FROM workspaces WHERE slug = 'default'), (SELECT MIN(id) FROM workspaces))"


def upgrade() -> None:
    op.add_column('slack_user_links', sa.Column('workspace_id', sa.Integer(), nullable=True))
    op.execute(f"UPDATE slack_user_links SET workspace_id = {_DEFAULT}")
    with op.batch_alter_table('slack_user_links', recreate='always') as batch:
        batch.alter_column('workspace_id', existing_type=sa.Integer(), nullable=False)
        batch.drop_constraint('uq_slack_user_links_slack_user', type_='unique')
        batch.create_unique_constraint('uq_slack_user_links_slack_user_workspace',
                                       ['slack_team_id', 'slack_user_id', 'workspace_id'])
    op.create_index('ix_slack_user_links_workspace_id', 'slack_user_links', ['workspace_id'], unique=False)


def downgrade() -> None:
    bind = op.get_bind()
    several = bind.execute(sa.text(
        "SELECT count(*) FROM (SELECT slack_team_id, slack_user_id FROM slack_user_links "
        "GROUP BY slack_team_id, slack_user_id HAVING count(*) > 1) AS linked_twice")).scalar()
    if several:
        raise RuntimeError("cannot downgrade below 0021: a Slack user is linked in several workspaces; "
                           "unlink all but one first")
    op.drop_index('ix_slack_user_links_workspace_id', table_name='slack_user_links')
    with op.batch_alter_table('slack_user_links', recreate='always') as batch:
        batch.drop_constraint('uq_slack_user_links_slack_user_workspace', type_='unique')
        batch.create_unique_constraint('uq_slack_user_links_slack_user', ['slack_team_id', 'slack_user_id'])
        batch.drop_column('workspace_id')
