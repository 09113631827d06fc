"""Fixtures shared by the whole suite: databases (SQLite and a real PostgreSQL) and signing keys.

PostgreSQL comes from testcontainers where a Docker engine runs, otherwise from ``DATABASE_URL``
(CI points it at the machine's server). Each test run gets fresh databases of its own and drops
them afterwards. Without either, PostgreSQL tests are skipped locally and fail under CI.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from grpc.experimental.aio import init_grpc_aio
from hypothesis import settings as hypothesis_settings
from sqlalchemy import create_engine, text

from shared.db import normalise_url

# Each test runs on an event loop of its own. Left alone, grpc.aio shuts its poller thread down
# whenever the last channel or server of a test is collected and starts a new one for the next;
# that shutdown joins the poller thread from the event loop's thread and can hang for ever
# (grpc/grpc#22365, #40989; it hung one CI run). Holding one reference for the whole session keeps
# a single poller thread, which grpc binds to each test's loop in turn.
init_grpc_aio()

TEST_SECRET = "cardroom-test-secret-0123456789abcdef"

# CI explores the same examples on every run, so that a red build is the change's doing, not the
# draw's; locally hypothesis keeps exploring new ones (and keeps failures in its database).
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


def _docker_available() -> bool:
    try:
        import docker

        docker.from_env().ping()
        return True
    except Exception:  # noqa: BLE001 - any failure means no engine to use
        return False


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A URL of a PostgreSQL server we may create databases on."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        yield normalise_url(url)
        return
    if _docker_available():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver="psycopg") as container:
            yield normalise_url(container.get_connection_url())
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the PostgreSQL tests: set DATABASE_URL or provide a Docker engine")
    pytest.skip("no PostgreSQL: set DATABASE_URL or run a Docker engine")


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    name = f"cardroom_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    base, _, _ = postgres_server_url.rpartition("/")
    yield f"{base}/{name}"
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path) -> str:  # type: ignore[no-untyped-def]
    return f"sqlite:///{tmp_path / 'test.sqlite3'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each test using this runs twice: on SQLite and on a real PostgreSQL."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("postgres_url")
