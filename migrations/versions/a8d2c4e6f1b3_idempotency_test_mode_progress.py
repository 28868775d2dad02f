"""idempotency keys, test mode, generation progress

`idempotency_keys`: a POST's Idempotency-Key, a hash of its request and its first answer, for 24 hours.
`livemode` on keys and assessments: false for test keys and what they create (never billed, kept apart).
`reports_done` on assessments: reports written so far by the running (or last) run.

Revision ID: a8d2c4e6f1b3
Revises: f6d0a3b4c5e7
Create Date: 2026-11-24 06:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a8d2c4e6f1b3'
down_revision = 'f6d0a3b4c5e7'
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade():
    # Added columns only, with literal server defaults, so SQLite adds them in place (no table rebuild
    # that would drop AUTOINCREMENT); every existing key and assessment is live.
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('livemode', sa.Boolean(), server_default='1', nullable=False))
    with op.batch_alter_table('assessments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('livemode', sa.Boolean(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('reports_done', sa.Integer(), server_default='0', nullable=False))
    op.create_table('idempotency_keys',
    sa.Column('id', BigId, nullable=False),
    sa.Column('partner_id', BigId, nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('request_hash', sa.String(length=64), nullable=False),
    sa.Column('state', sa.String(length=10), nullable=False),
    sa.Column('locked_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('response_status', sa.Integer(), nullable=True),
    sa.Column('response_headers', sa.JSON(), nullable=True),
    sa.Column('response_body', sa.LargeBinary(), nullable=True),
    sa.Column('assessment_id', BigId, nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessment_id'], ['assessments.id'],
                            name=op.f('fk_idempotency_keys_assessment_id_assessments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['partner_id'], ['partners.id'], name=op.f('fk_idempotency_keys_partner_id_partners')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_idempotency_keys')),
    sa.UniqueConstraint('partner_id', 'livemode', 'key', name=op.f('uq_idempotency_keys_partner_id')),
    sqlite_autoincrement=True,  # ids never reused, like every other table
    )
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_idempotency_keys_assessment_id'), ['assessment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_idempotency_keys_expires_at'), ['expires_at'], unique=False)


def downgrade():
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_idempotency_keys_expires_at'))
        batch_op.drop_index(batch_op.f('ix_idempotency_keys_assessment_id'))
    op.drop_table('idempotency_keys')
    # Dropping columns rebuilds the table on SQLite: keep AUTOINCREMENT so ids are never reused.
    with op.batch_alter_table('assessments', schema=None,
                              table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_column('reports_done')
        batch_op.drop_column('livemode')
    with op.batch_alter_table('api_keys', schema=None,
                              table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_column('livemode')
