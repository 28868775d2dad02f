"""portal sessions

Server-side records of portal sign-ins: the session cookie carries a random token whose SHA-256 is
stored here, so signing out (deleting the row) ends the session for every copy of the cookie.

Revision ID: c7e2a9b4d1f3
Revises: a3f1c2d4e5b6
Create Date: 2026-11-24 09:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c7e2a9b4d1f3'
down_revision = 'a3f1c2d4e5b6'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('portal_sessions',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('user_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_portal_sessions_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portal_sessions')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_portal_sessions_token_hash')),
    sqlite_autoincrement=True,  # ids never reused, like every other table
    )
    with op.batch_alter_table('portal_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_portal_sessions_user_id'), ['user_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_portal_sessions_last_seen_at'), ['last_seen_at'], unique=False)


def downgrade():
    with op.batch_alter_table('portal_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_portal_sessions_last_seen_at'))
        batch_op.drop_index(batch_op.f('ix_portal_sessions_user_id'))

    op.drop_table('portal_sessions')
