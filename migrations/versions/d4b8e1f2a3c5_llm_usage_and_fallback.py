"""llm usage per run and fallback reason per report

`assessments.llm_usage`: the tokens the LLM provider reported for the last run (null for the
template engine). `reports.fallback_reason`: why a persona's report came from the template engine
when the configured engine's answer could not be stored (null otherwise).

Revision ID: d4b8e1f2a3c5
Revises: c7e2a9b4d1f3
Create Date: 2026-11-24 02:15:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd4b8e1f2a3c5'
down_revision = 'c7e2a9b4d1f3'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('assessments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('llm_usage', sa.JSON(), nullable=True))
    with op.batch_alter_table('reports', schema=None) as batch_op:
        batch_op.add_column(sa.Column('fallback_reason', sa.Text(), nullable=True))


def downgrade():
    with op.batch_alter_table('reports', schema=None) as batch_op:
        batch_op.drop_column('fallback_reason')
    with op.batch_alter_table('assessments', schema=None) as batch_op:
        batch_op.drop_column('llm_usage')
