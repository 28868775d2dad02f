"""progress linking

`previous_assessment_id` on assessments: the client's earlier assessment this one is compared with (a foreign key
to the same table, ON DELETE SET NULL: erasing the earlier one unlinks the later ones), null for every assessment
that exists. `change`: what changed since that one (counts, scores, requirement ids), computed when the link is
made. An index on (partner_id, livemode, external_company_id, id) finds a client's earlier assessments.

Revision ID: e2b4d6f8a1c3
Revises: b7e1d3f5a9c2
Create Date: 2026-11-29 09:00:00

"""
from contextlib import contextmanager

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e2b4d6f8a1c3'
down_revision = 'b7e1d3f5a9c2'
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


@contextmanager
def rebuilt_assessments():
    """Batch operations on `assessments`, which SQLite carries out by rebuilding the table (env.py turns its foreign
    keys off meanwhile). Ids stay never reused: the rebuilt table keeps AUTOINCREMENT (ignored elsewhere), and its
    counter, which the copy would restart from the highest id left, is set back to where it was, so the id of an
    erased newest assessment is not handed out again."""
    bind = op.get_bind()
    sqlite = bind.dialect.name == 'sqlite'
    counter = None
    if sqlite:
        counter = bind.exec_driver_sql("SELECT seq FROM sqlite_sequence WHERE name = 'assessments'").scalar()
    with op.batch_alter_table('assessments', schema=None, table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        yield batch_op
    if counter is not None:
        bind.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name = 'assessments'")
        bind.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) SELECT 'assessments', MAX(?, COALESCE(MAX(id), 0))"
                             " FROM assessments", (counter,))


def upgrade():
    # The foreign key makes SQLite rebuild the table.
    with rebuilt_assessments() as batch_op:
        batch_op.add_column(sa.Column('previous_assessment_id', BigId, nullable=True))
        batch_op.add_column(sa.Column('change', sa.JSON(), nullable=True))
        batch_op.create_index('ix_assessments_client', ['partner_id', 'livemode', 'external_company_id', 'id'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_assessments_previous_assessment_id'), ['previous_assessment_id'],
                              unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_assessments_previous_assessment_id_assessments'), 'assessments',
                                    ['previous_assessment_id'], ['id'], ondelete='SET NULL')


def downgrade():
    with rebuilt_assessments() as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_assessments_previous_assessment_id_assessments'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_assessments_previous_assessment_id'))
        batch_op.drop_index('ix_assessments_client')
        batch_op.drop_column('change')
        batch_op.drop_column('previous_assessment_id')
