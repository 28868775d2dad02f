"""signed embeds

Two settings per API key: `embed_secret_encrypted`, the secret a partner's server signs embed URLs with
(Fernet-encrypted like the webhook secret; null for the keys that exist, which get one when it is
rotated), and `require_signed_embeds`, whether the key's embed pages and PDFs answer only signed,
unexpired URLs (false for every key that exists: permanent tokens stay the default).

Revision ID: b7e1d3f5a9c2
Revises: a1c3e5f7b9d2
Create Date: 2026-11-28 10:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b7e1d3f5a9c2'
down_revision = 'a1c3e5f7b9d2'
branch_labels = None
depends_on = None


def upgrade():
    # Only added columns, so SQLite adds them in place (no table rebuild, AUTOINCREMENT kept). '0' is
    # false on SQLite and Postgres alike.
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('embed_secret_encrypted', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('require_signed_embeds', sa.Boolean(), server_default='0', nullable=False))


def downgrade():
    # Dropping columns rebuilds the table on SQLite: keep AUTOINCREMENT (ignored elsewhere), so key ids
    # are still never reused after a downgrade.
    with op.batch_alter_table('api_keys', schema=None,
                              table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        batch_op.drop_column('require_signed_embeds')
        batch_op.drop_column('embed_secret_encrypted')
