"""request log

`request_log`: one row per API request of a key (time, method, path, status, error code, duration, Idempotency-Key,
the assessment it names), for the partner's request log in the portal. No bodies. Kept 7 days and capped per key.

Revision ID: b6d8f0a2c4e6
Revises: a4c6e8f0b2d4
Create Date: 2026-11-27 15:20:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b6d8f0a2c4e6'
down_revision = 'a4c6e8f0b2d4'
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade():
    op.create_table(
        'request_log',
        sa.Column('id', BigId, nullable=False),
        sa.Column('api_key_id', BigId, nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('method', sa.String(length=10), nullable=False),
        sa.Column('path', sa.String(length=300), nullable=False),
        sa.Column('status', sa.Integer(), nullable=False),
        sa.Column('error_code', sa.String(length=64), nullable=True),
        sa.Column('duration_ms', sa.Integer(), nullable=False),
        sa.Column('idempotency_key', sa.String(length=255), nullable=True),
        sa.Column('assessment_id', sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(['api_key_id'], ['api_keys.id'], name=op.f('fk_request_log_api_key_id_api_keys')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_request_log')),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table('request_log', schema=None) as batch_op:
        batch_op.create_index('ix_request_log_key', ['api_key_id', 'id'], unique=False)
        batch_op.create_index(batch_op.f('ix_request_log_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_request_log_assessment_id'), ['assessment_id'], unique=False)


def downgrade():
    with op.batch_alter_table('request_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_request_log_assessment_id'))
        batch_op.drop_index(batch_op.f('ix_request_log_at'))
        batch_op.drop_index('ix_request_log_key')
    op.drop_table('request_log')
