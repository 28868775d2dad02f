"""embed pages

Embed pages as last rendered, one row per page of an assessment, named by a fingerprint of what they
were rendered from: a view of an unchanged page is one query that checks the token and reads the page.

Revision ID: b9e3d5f7a2c4
Revises: a8d2c4e6f1b3
Create Date: 2026-11-24 09:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b9e3d5f7a2c4'
down_revision = 'a8d2c4e6f1b3'
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade():
    op.create_table('embed_pages',
    sa.Column('id', BigId, nullable=False),
    sa.Column('assessment_id', BigId, nullable=False),
    sa.Column('kind', sa.String(length=12), nullable=False),
    sa.Column('persona', sa.String(length=40), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('report_id', sa.BigInteger(), nullable=False),
    sa.Column('html', sa.LargeBinary(), nullable=False),
    sa.Column('style_hashes', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessment_id'], ['assessments.id'], name=op.f('fk_embed_pages_assessment_id_assessments'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_embed_pages')),
    sa.UniqueConstraint('assessment_id', 'kind', 'persona', name=op.f('uq_embed_pages_assessment_id')),
    sqlite_autoincrement=True,  # ids never reused, like every other table
    )
    with op.batch_alter_table('embed_pages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_embed_pages_assessment_id'), ['assessment_id'], unique=False)


def downgrade():
    with op.batch_alter_table('embed_pages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_embed_pages_assessment_id'))

    op.drop_table('embed_pages')
