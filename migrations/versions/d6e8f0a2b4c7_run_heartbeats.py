"""run heartbeats and webhook rescue rounds

A run in progress carries its id, its owner's heartbeat and what it was asked, so that any serving
process can finish a run whose process died; a webhook delivery counts its rescue rounds.

Revision ID: d6e8f0a2b4c7
Revises: c3d5e7f9a1b2
Create Date: 2026-11-26 22:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd6e8f0a2b4c7'
down_revision = 'c3d5e7f9a1b2'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('assessments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('run_token', sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column('run_heartbeat_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('run_methodology', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('run_key_id', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('run_recoveries', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('run_base_url', sa.String(length=2048), nullable=True))
        batch_op.create_index(batch_op.f('ix_assessments_run_heartbeat_at'), ['run_heartbeat_at'], unique=False)
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rescue_rounds', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        batch_op.drop_column('rescue_rounds')
    with op.batch_alter_table('assessments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_assessments_run_heartbeat_at'))
        batch_op.drop_column('run_base_url')
        batch_op.drop_column('run_recoveries')
        batch_op.drop_column('run_key_id')
        batch_op.drop_column('run_methodology')
        batch_op.drop_column('run_heartbeat_at')
        batch_op.drop_column('run_token')
