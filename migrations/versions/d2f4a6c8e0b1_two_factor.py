"""two-factor sign-in

`totp_secret_encrypted` and `recovery_code_hashes` on users: null (two-factor sign-in off) for every user.

Revision ID: d2f4a6c8e0b1
Revises: c8e0a2b4d6f8
Create Date: 2026-11-27 16:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd2f4a6c8e0b1'
down_revision = 'c8e0a2b4d6f8'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:   # nullable columns: added in place on SQLite
        batch_op.add_column(sa.Column('totp_secret_encrypted', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('recovery_code_hashes', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('users', schema=None, table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_column('recovery_code_hashes')
        batch_op.drop_column('totp_secret_encrypted')
