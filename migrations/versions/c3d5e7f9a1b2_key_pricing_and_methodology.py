"""key pricing and methodology

Three settings per API key: `day_rate` (whole units of the currency per person-day, null for the
documented default range) and `currency` (ISO 4217; null is USD), which the CFO's, CEO's, board's and
owner's reports price effort at, and `show_methodology`, whether the client-facing pages and PDFs name
the sales methodology (false for every key that exists).

Revision ID: c3d5e7f9a1b2
Revises: b9e3d5f7a2c4
Create Date: 2026-11-25 13:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c3d5e7f9a1b2'
down_revision = 'b9e3d5f7a2c4'
branch_labels = None
depends_on = None


def upgrade():
    # Only added columns, so SQLite adds them in place (no table rebuild, AUTOINCREMENT kept). '0' is
    # false on SQLite and Postgres alike: the keys that exist keep the methodology off their clients' pages.
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('day_rate', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('currency', sa.String(length=3), nullable=True))
        batch_op.add_column(sa.Column('show_methodology', sa.Boolean(), server_default='0', nullable=False))


def downgrade():
    # Dropping columns rebuilds the table on SQLite: keep AUTOINCREMENT (ignored elsewhere), so key ids
    # are still never reused after a downgrade.
    with op.batch_alter_table('api_keys', schema=None,
                              table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_column('show_methodology')
        batch_op.drop_column('currency')
        batch_op.drop_column('day_rate')
