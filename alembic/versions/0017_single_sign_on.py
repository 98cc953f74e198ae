"""single sign-on: users linked to their provider identity, sign-ins in flight; browser sign-ins move
to an HttpOnly cookie

users.oidc_issuer / users.oidc_subject: the OpenID Connect identity a user signs in as (unique
together; null for password users). sso_attempts: one row per single sign-on in flight (the state's
hash, nonce, PKCE verifier, where to return), finished once.

Browser sign-ins were tokens kept in the browser's localStorage; they now live only in an HttpOnly
cookie. Every open browser sign-in is ended here, so old tokens still in a browser stop working: that
browser is sent to the sign-in page once, with a message.

Revision ID: 0017_single_sign_on
Revises: 0016_external_approvals
Create Date: 2026-12-04 13:30:00
"""
from datetime import UTC, datetime
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = '0017_single_sign_on'
down_revision: Union[str, None] = '0016_external_approvals'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('users', sa.Column('oidc_issuer', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True))
    op.add_column('users', sa.Column('oidc_subject', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True))
    op.create_index('ux_users_oidc_identity', 'users', ['oidc_issuer', 'oidc_subject'], unique=True)
    op.create_table(
        'sso_attempts',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('state_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('nonce', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column('code_verifier', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column('return_to', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('state_hash'),
    )
    op.create_index(op.f('ix_sso_attempts_created_at'), 'sso_attempts', ['created_at'], unique=False)
    # Browser sign-ins held in localStorage end here (see the docstring); API tokens are untouched.
    tokens = sa.table('api_tokens', sa.column('kind', sa.String()),
                      sa.column('revoked_at', sqlmodel.sql.sqltypes.UTCDateTime()))
    op.execute(tokens.update().where(tokens.c.kind == 'session', tokens.c.revoked_at.is_(None))
               .values(revoked_at=datetime.now(UTC)))


def downgrade() -> None:
    op.drop_index(op.f('ix_sso_attempts_created_at'), table_name='sso_attempts')
    op.drop_table('sso_attempts')
    op.drop_index('ux_users_oidc_identity', table_name='users')
    # A plain DROP COLUMN (SQLite >= 3.35 has it): a batch copy of users would have to drop the table
    # that every other table's user column refers to.
    op.execute('ALTER TABLE users DROP COLUMN oidc_subject')
    op.execute('ALTER TABLE users DROP COLUMN oidc_issuer')
