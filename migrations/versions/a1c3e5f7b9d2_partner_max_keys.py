"""partner key limit

A partner's hourly budget is per key, so the number of active keys it may hold is capped: `max_keys` on
the partner, NULL for the operator's default (PARTNER_MAX_KEYS).

Revision ID: a1c3e5f7b9d2
Revises: d6e8f0a2b4c7
Create Date: 2026-11-27 05:50:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a1c3e5f7b9d2'
down_revision = 'd6e8f0a2b4c7'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('partners', schema=None) as batch_op:
        batch_op.add_column(sa.Column('max_keys', sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table('partners', schema=None) as batch_op:
        batch_op.drop_column('max_keys')
