"""The hand-written migration builds exactly the schema the SQLModel models describe."""

from __future__ import annotations

from sqlalchemy import inspect
from sqlmodel import SQLModel

from services.matchmaking.store import LobbyRecord, PartyRecord, PlacementRecord, SeatingRecord, ShardRecord
from shared.db import make_engine, upgrade

MODELS = (LobbyRecord, PartyRecord, SeatingRecord, ShardRecord, PlacementRecord)


def test_the_migration_matches_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    upgrade(engine, "matchmaking")
    upgrade(engine, "matchmaking")  # applying it again is a no-op
    inspector = inspect(engine)
    for model in MODELS:
        table = SQLModel.metadata.tables[model.__tablename__]  # type: ignore[attr-defined]
        columns = {column["name"]: column for column in inspector.get_columns(table.name)}
        assert set(columns) == {column.name for column in table.columns}, table.name
        for column in table.columns:
            assert columns[column.name]["nullable"] == column.nullable or column.primary_key, (table.name, column.name)
        primary = inspector.get_pk_constraint(table.name)["constrained_columns"]
        assert sorted(primary) == sorted(c.name for c in table.primary_key.columns), table.name
        indexes = {index["name"] for index in inspector.get_indexes(table.name)}
        assert indexes >= {index.name for index in table.indexes}, table.name
    engine.dispose()
