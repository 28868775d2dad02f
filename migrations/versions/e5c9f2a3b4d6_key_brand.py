"""key brand

A brand per API key for the pages and PDFs the partner's clients see: `brand_name` ("Prepared by"),
`brand_color` (accent, `#rrggbb`), the logo (`brand_logo` bytes, `brand_logo_type`, and
`brand_logo_digest`, the SHA-256 it is served under) and `white_label`.

Revision ID: e5c9f2a3b4d6
Revises: d4b8e1f2a3c5
Create Date: 2026-11-25 10:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e5c9f2a3b4d6'
down_revision = 'd4b8e1f2a3c5'
branch_labels = None
depends_on = None


def upgrade():
    # Only added columns: SQLite adds them in place, without rebuilding the table (which would drop
    # its AUTOINCREMENT). That needs a literal server default; '0' is false on SQLite and Postgres
    # alike, and gives the keys that already exist white_label = false.
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('brand_name', sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column('brand_color', sa.String(length=7), nullable=True))
        batch_op.add_column(sa.Column('brand_logo', sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column('brand_logo_type', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('brand_logo_digest', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('white_label', sa.Boolean(), server_default='0', nullable=False))
        batch_op.create_index(batch_op.f('ix_api_keys_brand_logo_digest'), ['brand_logo_digest'], unique=False)


def downgrade():
    # Dropping columns rebuilds the table on SQLite: keep AUTOINCREMENT (ignored elsewhere), so key
    # ids are still never reused after a downgrade.
    with op.batch_alter_table('api_keys', schema=None,
                              table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_index(batch_op.f('ix_api_keys_brand_logo_digest'))
        batch_op.drop_column('white_label')
        batch_op.drop_column('brand_logo_digest')
        batch_op.drop_column('brand_logo_type')
        batch_op.drop_column('brand_logo')
        batch_op.drop_column('brand_color')
        batch_op.drop_column('brand_name')
