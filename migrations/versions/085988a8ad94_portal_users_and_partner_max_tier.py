"""portal users and partner max tier

Portal sign-in accounts (`users`) and the operator-set tier cap of each partner (`partners.max_tier`).

Revision ID: 085988a8ad94
Revises: 1794715b7740
Create Date: 2026-11-21 14:37:38.192271

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '085988a8ad94'
down_revision = '1794715b7740'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('users',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('partner_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_login_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('disabled_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['partner_id'], ['partners.id'], name=op.f('fk_users_partner_id_partners')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('email', name=op.f('uq_users_email'))
    )
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_users_partner_id'), ['partner_id'], unique=False)

    # The server default gives partners that already exist the default cap.
    with op.batch_alter_table('partners', schema=None) as batch_op:
        batch_op.add_column(sa.Column('max_tier', sa.String(length=20), server_default='standard', nullable=False))



def downgrade():
    with op.batch_alter_table('partners', schema=None) as batch_op:
        batch_op.drop_column('max_tier')

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_users_partner_id'))

    op.drop_table('users')
