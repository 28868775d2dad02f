"""embed pdfs

PDFs of the embed pages, printed once per run and kept until the next one: one row per report and one
for all reports of an assessment, named by a fingerprint of what they were printed from.

Revision ID: f6d0a3b4c5e7
Revises: e5c9f2a3b4d6
Create Date: 2026-11-25 11:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f6d0a3b4c5e7'
down_revision = 'e5c9f2a3b4d6'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('embed_pdfs',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('assessment_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('scope', sa.String(length=40), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('pdf', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessment_id'], ['assessments.id'], name=op.f('fk_embed_pdfs_assessment_id_assessments'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_embed_pdfs')),
    sa.UniqueConstraint('assessment_id', 'scope', name=op.f('uq_embed_pdfs_assessment_id')),
    sqlite_autoincrement=True,  # ids never reused, like every other table
    )
    with op.batch_alter_table('embed_pdfs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_embed_pdfs_assessment_id'), ['assessment_id'], unique=False)


def downgrade():
    with op.batch_alter_table('embed_pdfs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_embed_pdfs_assessment_id'))

    op.drop_table('embed_pdfs')
