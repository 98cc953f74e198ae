"""Workspaces: many groups in one organisation, each seeing and deciding only its own work (issue 41)

- workspaces, workspace_members (roles per workspace).
- workspace_id on conversations, review_requests, team_versions, webhooks (NOT NULL), audit_events
  and audit_outbox (null: the instance's own events), api_tokens (null: every workspace of its user).
- Everything that exists goes into the workspace `default`; each user's roles other than admin
  become a membership there (admin stays on the user: the instance admin), so a running deployment
  upgrades with nothing lost and nobody locked out. An audit event's workspace is its conversation's.
  The audit hash chain covers no workspace column, so every existing event still verifies.
- No foreign keys on the added columns (as conversations.parent_id): SQLite adds a column with a
  foreign key only with a NULL default, and could not drop it again on a downgrade.

Revision ID: 0020_workspaces
Revises: 0019_reviewer_edits
Create Date: 2026-12-05 13:40:00
"""
import json
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0020_workspaces'
down_revision: Union[str, None] = '0019_reviewer_edits'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_OPEN = "status IN ('pending', 'claimed')"
_REQUIRED = ('conversations', 'review_requests', 'webhooks')


def upgrade() -> None:
    op.create_table(
        'workspaces',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('slug', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('archived_at', sa.DateTime(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('slug'),
    )
    op.create_table(
        'workspace_members',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('roles', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('workspace_id', 'user_id', name='uq_workspace_members_workspace_user'),
    )
    op.create_index('ix_workspace_members_user_id', 'workspace_members', ['user_id'], unique=False)
    bind = op.get_bind()
    bind.execute(sa.text("INSERT INTO workspaces (id, slug, name, created_at) "
                         "VALUES (1, 'default', 'Default', CURRENT_TIMESTAMP)"))
    if bind.dialect.name == 'postgresql':
        bind.execute(sa.text("SELECT setval(pg_get_serial_sequence('workspaces', 'id'), 1)"))
    _memberships_from_roles(bind)

    # Existing rows are the default workspace's; new rows name theirs (no default left on PostgreSQL;
    # SQLite keeps the DEFAULT it needs to add a NOT NULL column, and the code always sets it).
    for table in _REQUIRED:
        op.add_column(table, sa.Column('workspace_id', sa.Integer(), nullable=False, server_default='1'))
    with op.batch_alter_table('team_versions', recreate='always') as batch:
        batch.add_column(sa.Column('workspace_id', sa.Integer(), nullable=False, server_default='1'))
        batch.drop_constraint('uq_team_versions_team_number', type_='unique')
        batch.create_unique_constraint('uq_team_versions_workspace_team_number', ['workspace_id', 'team', 'number'])
    if bind.dialect.name == 'postgresql':
        for table in (*_REQUIRED, 'team_versions'):
            op.alter_column(table, 'workspace_id', server_default=None)
    op.add_column('audit_events', sa.Column('workspace_id', sa.Integer(), nullable=True))
    op.add_column('audit_outbox', sa.Column('workspace_id', sa.Integer(), nullable=True))
    op.add_column('api_tokens', sa.Column('workspace_id', sa.Integer(), nullable=True))
    # An event with a conversation happened in that conversation's workspace (the default one here).
    bind.execute(sa.text("UPDATE audit_events SET workspace_id = 1 WHERE conversation_id IS NOT NULL"))
    bind.execute(sa.text("UPDATE audit_outbox SET workspace_id = 1 WHERE conversation_id IS NOT NULL"))

    op.create_index('ix_conversations_workspace_id', 'conversations', ['workspace_id', 'id'])
    op.create_index('ix_reviews_open_workspace_role_due', 'review_requests',
                    ['workspace_id', 'required_role', 'due_at', 'id'],
                    sqlite_where=sa.text(_OPEN), postgresql_where=sa.text(_OPEN))
    op.create_index('ix_audit_workspace_seq', 'audit_events', ['workspace_id', 'seq'])
    op.create_index('ix_webhooks_workspace_id', 'webhooks', ['workspace_id'])


def _memberships_from_roles(bind) -> None:
    """Today's roles become memberships of `default`: admin stays the user's (the instance admin)."""
    users = bind.execute(sa.text("SELECT id, roles FROM users")).all()
    for user_id, roles in users:
        held = json.loads(roles) if isinstance(roles, str) else list(roles or [])
        kept = sorted(r for r in held if r != 'admin')
        if kept:
            bind.execute(sa.text("INSERT INTO workspace_members (workspace_id, user_id, roles, created_at) "
                                 "VALUES (1, :user_id, :roles, CURRENT_TIMESTAMP)"),
                         {"user_id": user_id, "roles": json.dumps(kept)})
        bind.execute(sa.text("UPDATE users SET roles = :roles WHERE id = :user_id"),
                     {"user_id": user_id, "roles": json.dumps(['admin'] if 'admin' in held else [])})


def downgrade() -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT count(*) FROM workspaces")).scalar() > 1:
        # Two workspaces' teams, roles and audit trails cannot be told apart without the column.
        raise RuntimeError("cannot downgrade below 0020 with more than one workspace: archive is not enough, "
                           "the other workspaces' data would merge into one")
    # Roles go back onto the users: the default workspace's membership, plus admin.
    for user_id, roles in bind.execute(sa.text("SELECT id, roles FROM users")).all():
        held = set(json.loads(roles) if isinstance(roles, str) else list(roles or []))
        row = bind.execute(sa.text("SELECT roles FROM workspace_members WHERE workspace_id = 1 AND user_id = :u"),
                           {"u": user_id}).first()
        if row is not None:
            held |= set(json.loads(row[0]) if isinstance(row[0], str) else row[0])
        held.discard('workspace_admin')
        bind.execute(sa.text("UPDATE users SET roles = :roles WHERE id = :user_id"),
                     {"user_id": user_id, "roles": json.dumps(sorted(held))})
    op.drop_index('ix_webhooks_workspace_id', table_name='webhooks')
    op.drop_index('ix_audit_workspace_seq', table_name='audit_events')
    op.drop_index('ix_reviews_open_workspace_role_due', table_name='review_requests')
    op.drop_index('ix_conversations_workspace_id', table_name='conversations')
    for table in ('api_tokens', 'audit_outbox', 'audit_events', *_REQUIRED):
        op.execute(f'ALTER TABLE {table} DROP COLUMN workspace_id')
    with op.batch_alter_table('team_versions', recreate='always') as batch:
        batch.drop_constraint('uq_team_versions_workspace_team_number', type_='unique')
        batch.create_unique_constraint('uq_team_versions_team_number', ['team', 'number'])
        batch.drop_column('workspace_id')
    op.drop_index('ix_workspace_members_user_id', table_name='workspace_members')
    op.drop_table('workspace_members')
    op.drop_table('workspaces')
