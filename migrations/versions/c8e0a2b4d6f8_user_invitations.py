"""user invitations

`role` on users ("owner" for every user that exists: the operator made them; "member" for users an owner invites)
and a pending invitation's `invite_token_hash` (unique) and `invite_expires_at`.

Revision ID: c8e0a2b4d6f8
Revises: b6d8f0a2c4e6
Create Date: 2026-11-27 15:40:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c8e0a2b4d6f8'
down_revision = 'b6d8f0a2c4e6'
branch_labels = None
depends_on = None


def upgrade():
    # Added columns with literal defaults: SQLite adds them in place (the table keeps its AUTOINCREMENT).
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('role', sa.String(length=10), server_default='owner', nullable=False))
        batch_op.add_column(sa.Column('invite_token_hash', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('invite_expires_at', sa.DateTime(timezone=True), nullable=True))
        # A unique index, not a constraint: SQLite creates it without rebuilding the table.
        batch_op.create_index(batch_op.f('ix_users_invite_token_hash'), ['invite_token_hash'], unique=True)


def downgrade():
    with op.batch_alter_table('users', schema=None, table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_index(batch_op.f('ix_users_invite_token_hash'))
        batch_op.drop_column('invite_expires_at')
        batch_op.drop_column('invite_token_hash')
        batch_op.drop_column('role')
