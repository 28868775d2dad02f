"""ids never reused, usage per partner

On SQLite every table is rebuilt with AUTOINCREMENT, so the id of a deleted row (the newest
assessment, say) is never handed out again; the rows and their ids are copied as they are, and
SQLite's sequence starts after the highest id present. Postgres sequences never go back, so there
only the usage key changes: usage is unique per partner and assessment, not per assessment id.

Revision ID: a3f1c2d4e5b6
Revises: 085988a8ad94
Create Date: 2026-11-23 22:40:00

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = 'a3f1c2d4e5b6'
down_revision = '085988a8ad94'
branch_labels = None
depends_on = None

# Parents before children; every table whose id a partner sees or other rows point to.
TABLES = ('partners', 'api_keys', 'users', 'assessments', 'requirements', 'reports', 'usage_records',
          'webhook_deliveries')


def _usage_key(batch_op, old: tuple[str, list[str]], new: tuple[str, list[str]]) -> None:
    batch_op.drop_constraint(old[0], type_='unique')
    batch_op.create_unique_constraint(new[0], new[1])


def _migrate(autoincrement: bool, old_usage_key, new_usage_key) -> None:
    # On SQLite each table is rebuilt once, with or without AUTOINCREMENT; the usage key changes
    # inside that same rebuild (a second rebuild would drop AUTOINCREMENT again).
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table in TABLES if sqlite else ('usage_records',):
        options = {'recreate': 'always', 'table_kwargs': {'sqlite_autoincrement': autoincrement}} if sqlite else {}
        with op.batch_alter_table(table, **options) as batch_op:
            if table == 'usage_records':
                _usage_key(batch_op, old_usage_key, new_usage_key)


BY_ASSESSMENT = ('uq_usage_records_assessment_id', ['assessment_id'])
BY_PARTNER_AND_ASSESSMENT = ('uq_usage_records_partner_assessment', ['partner_id', 'assessment_id'])


def upgrade():
    _migrate(True, BY_ASSESSMENT, BY_PARTNER_AND_ASSESSMENT)


def downgrade():
    _migrate(False, BY_PARTNER_AND_ASSESSMENT, BY_ASSESSMENT)
