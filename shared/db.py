"""Databases: one per service, SQLite by default, PostgreSQL through ``DATABASE_URL``.

Schemas change only through each service's Alembic migrations (``services/<name>/migrations``),
applied on start-up with ``upgrade``. Each service keeps its own Alembic version table, so several
services may share one PostgreSQL database in small installations without stepping on each other.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from alembic import command
from alembic.config import Config
from sqlalchemy import event, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

SQLITE_BUSY_MS = 10_000  # writers wait for each other rather than fail under load


def normalise_url(url: str) -> str:
    """Use psycopg 3 for PostgreSQL whatever the URL's scheme says."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_MS / 1000})
        event.listen(engine, "connect", _tune_sqlite)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


@contextmanager
def consistent_reads(engine: Engine) -> Iterator[Session]:
    """A session whose reads all see one moment of the database (several SELECTs that must agree,
    such as a player's points and the stats they were earned with)."""
    with Session(engine) as session:
        if engine.dialect.name == "postgresql":
            session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        elif engine.dialect.name == "sqlite":
            # pysqlite opens transactions only before writes; without this each SELECT is its own snapshot.
            session.connection().exec_driver_sql("BEGIN")
        yield session


def _tune_sqlite(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    # WAL lets readers run beside the writer; NORMAL still survives a process crash (SIGKILL),
    # which is what "nothing is lost" asks of a table server (a power cut may lose the last ms).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def upgrade(engine: Engine, service: str) -> None:
    """Apply ``services/<service>/migrations`` up to head."""
    root = Path(__file__).resolve().parent.parent / "services" / service / "migrations"
    config = Config()
    config.set_main_option("script_location", str(root))
    config.attributes["version_table"] = f"alembic_version_{service}"
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Pods of one service starting together must not run the same migration twice at once.
            connection.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"cardroom-migrations-{service}"})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def run_migrations(context: Any) -> None:
    """The body of every service's ``migrations/env.py``."""
    connection = context.config.attributes["connection"]
    context.configure(
        connection=connection,
        version_table=context.config.attributes["version_table"],
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
