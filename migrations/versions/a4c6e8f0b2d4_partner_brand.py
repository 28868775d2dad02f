"""partner brand

The brand (`brand_name`, `brand_color`, the logo's `brand_logo`, `brand_logo_type` and `brand_logo_digest`,
`white_label`) and `embed_origins` move from each API key to its partner: every key of a partner, a new one
included, shows the same brand and may be framed by the same sites.

What the keys held is carried over. The brand is the one of the partner's key that most likely serves its clients
today: an active key before a revoked one, a live key before a test key, the newest first, among the keys that set
any of it. The embed origins are every origin any key of the partner listed (in that order, each once), so no page
that was allowed into a partner's site is refused after the upgrade; a partner whose keys all allowed any site
keeps allowing any site. Keys whose own brand or origins differed from the partner's result are named in the
migration's log, for the operator to check.

Revision ID: a4c6e8f0b2d4
Revises: e2b4d6f8a1c3
Create Date: 2026-11-27 14:30:00

"""
import logging
from contextlib import contextmanager

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a4c6e8f0b2d4'
down_revision = 'e2b4d6f8a1c3'
branch_labels = None
depends_on = None

log = logging.getLogger('alembic.runtime.migration')

BRAND = ('brand_name', 'brand_color', 'brand_logo', 'brand_logo_type', 'brand_logo_digest', 'white_label')
SETTINGS = ('embed_origins', *BRAND)


def _table(name, *more):
    return sa.table(name, sa.column('id', sa.Integer), sa.column('embed_origins', sa.JSON),
                    sa.column('brand_name', sa.String), sa.column('brand_color', sa.String),
                    sa.column('brand_logo', sa.LargeBinary), sa.column('brand_logo_type', sa.String),
                    sa.column('brand_logo_digest', sa.String), sa.column('white_label', sa.Boolean), *more)


partners = _table('partners')
api_keys = _table('api_keys', sa.column('partner_id', sa.Integer), sa.column('revoked_at', sa.DateTime),
                  sa.column('livemode', sa.Boolean))


def _columns(add):
    # Literal defaults ('[]', and '0', which is false on SQLite and Postgres alike) let SQLite add the columns in
    # place and give the rows that exist a value.
    add(sa.Column('embed_origins', sa.JSON(), server_default='[]', nullable=False))
    add(sa.Column('brand_name', sa.String(length=100), nullable=True))
    add(sa.Column('brand_color', sa.String(length=7), nullable=True))
    add(sa.Column('brand_logo', sa.LargeBinary(), nullable=True))
    add(sa.Column('brand_logo_type', sa.String(length=40), nullable=True))
    add(sa.Column('brand_logo_digest', sa.String(length=64), nullable=True))
    add(sa.Column('white_label', sa.Boolean(), server_default='0', nullable=False))


@contextmanager
def rebuilt(table):
    """Batch operations that drop columns, which SQLite carries out by rebuilding the table (env.py turns its
    foreign keys off meanwhile). Ids stay never reused: the rebuilt table keeps AUTOINCREMENT (ignored elsewhere),
    and its counter, which the copy would restart from the highest id left, is set back to where it was."""
    bind = op.get_bind()
    counter = None
    if bind.dialect.name == 'sqlite':
        counter = bind.exec_driver_sql("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).scalar()
    with op.batch_alter_table(table, schema=None, table_kwargs={'sqlite_autoincrement': True}) as batch_op:
        yield batch_op
    if counter is not None:
        bind.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name = ?", (table,))
        highest = bind.execute(sa.select(sa.func.max(sa.table(table, sa.column('id')).c.id))).scalar() or 0
        bind.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, max(counter, highest)))


def _has_brand(row) -> bool:
    return bool(row.brand_name or row.brand_color or row.brand_logo_digest or row.white_label)


def _brand(row) -> tuple:
    return tuple(getattr(row, column) for column in BRAND)


def _carry_over(bind) -> None:
    """Each partner's settings from its keys, as the module's docstring says."""
    query = (sa.select(api_keys.c.id, api_keys.c.partner_id, *(api_keys.c[c] for c in SETTINGS))
             .order_by(api_keys.c.partner_id, api_keys.c.revoked_at.is_not(None), api_keys.c.livemode.is_(False),
                       api_keys.c.id.desc()))
    by_partner = {}
    for row in bind.execute(query):
        by_partner.setdefault(row.partner_id, []).append(row)
    for partner_id, rows in by_partner.items():
        source = next((row for row in rows if _has_brand(row)), None)
        origins = []
        for row in rows:
            origins += [origin for origin in row.embed_origins or [] if origin not in origins]
        values = {'embed_origins': origins}
        if source is not None:
            values.update(zip(BRAND, _brand(source), strict=True))
        bind.execute(partners.update().where(partners.c.id == partner_id).values(**values))
        brand = _brand(source) if source is not None else (None, None, None, None, None, False)
        for row in rows:
            if _has_brand(row) and _brand(row) != brand:
                log.warning('partner %s: key %s had its own brand (%r); the partner now shows that of key %s',
                            partner_id, row.id, row.brand_name, source.id)
            if (row.embed_origins or []) != origins:
                log.warning('partner %s: key %s allowed %s to frame its pages; every key of the partner now allows'
                            ' %s', partner_id, row.id, row.embed_origins or 'any site', origins or 'any site')


def upgrade():
    with op.batch_alter_table('partners', schema=None) as batch_op:
        _columns(batch_op.add_column)
        batch_op.create_index(batch_op.f('ix_partners_brand_logo_digest'), ['brand_logo_digest'], unique=False)
    _carry_over(op.get_bind())
    with rebuilt('api_keys') as batch_op:
        batch_op.drop_index(batch_op.f('ix_api_keys_brand_logo_digest'))
        for column in reversed(SETTINGS):
            batch_op.drop_column(column)


def downgrade():
    # Every key gets its partner's settings back.
    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        _columns(batch_op.add_column)
        batch_op.create_index(batch_op.f('ix_api_keys_brand_logo_digest'), ['brand_logo_digest'], unique=False)
    bind = op.get_bind()
    for row in bind.execute(sa.select(partners.c.id, *(partners.c[c] for c in SETTINGS))):
        bind.execute(api_keys.update().where(api_keys.c.partner_id == row.id)
                     .values(**{column: getattr(row, column) for column in SETTINGS}))
    with rebuilt('partners') as batch_op:
        batch_op.drop_index(batch_op.f('ix_partners_brand_logo_digest'))
        for column in reversed(SETTINGS):
            batch_op.drop_column(column)
