from alembic import context

from shared.db import run_migrations

run_migrations(context)
