"""The profile database (services/profile/store.py) on SQLite and PostgreSQL: its migration matches its
models, and the database (not a read first) settles races on device ids, usernames and sessions."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData

from shared.db import make_engine, upgrade

from services.profile.players import Preferences
from services.profile.store import NoSuchPlayer, NotAGuest, PlayerRecord, ProfileStore, RefreshSession, UsernameTaken

NOW = 1_700_000_000.0
DAY = 24 * 3600.0


@pytest.fixture
def store(database_url: str) -> Iterator[ProfileStore]:
    engine = make_engine(database_url)
    upgrade(engine, "profile")
    profile_store = ProfileStore(engine)
    yield profile_store
    profile_store.close()


def new_id() -> str:
    return uuid.uuid4().hex


def test_the_migration_makes_exactly_the_models_tables(store: ProfileStore) -> None:
    models = MetaData()
    for table in (PlayerRecord.__table__, RefreshSession.__table__):
        table.to_metadata(models)  # type: ignore[attr-defined]
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), models)
    assert [d for d in differences if not (d[0] == "remove_table" and d[1].name.startswith("alembic_version"))] == []


def test_a_device_gets_one_guest(store: ProfileStore) -> None:
    first, created = store.guest(new_id(), "device-1", "Guest-1", NOW)
    again, created_again = store.guest(new_id(), "device-1", "ignored", NOW + 1)
    assert created and not created_again
    assert again == first
    assert first.guest and first.preferences == Preferences()


def test_first_sign_ins_of_one_device_at_once_make_one_guest(store: ProfileStore) -> None:
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: store.guest(new_id(), "same-device", "Guest", NOW), range(8)))
    assert len({player.player_id for player, _ in results}) == 1
    assert sum(created for _, created in results) == 1


def test_usernames_are_unique(store: ProfileStore) -> None:
    store.create_account(new_id(), "alice", "hash", "Alice", NOW)
    with pytest.raises(UsernameTaken):
        store.create_account(new_id(), "alice", "hash", "Alice again", NOW)
    found = store.credentials("alice")
    assert found is not None and found[0].display_name == "Alice" and found[1] == "hash"


def test_upgrading_a_guest_keeps_its_id_and_frees_its_device(store: ProfileStore) -> None:
    guest, _ = store.guest(new_id(), "device-2", "Guest-2", NOW)
    upgraded = store.upgrade_guest(guest.player_id, "bob", "hash", "Bob")
    assert (upgraded.player_id, upgraded.created_at) == (guest.player_id, NOW)
    assert (upgraded.username, upgraded.guest) == ("bob", False)
    replacement, created = store.guest(new_id(), "device-2", "Guest-3", NOW)
    assert created and replacement.player_id != guest.player_id


def test_only_a_guest_can_be_upgraded(store: ProfileStore) -> None:
    named = store.create_account(new_id(), "carol", "hash", "Carol", NOW)
    with pytest.raises(NotAGuest):
        store.upgrade_guest(named.player_id, "carol2", "hash", "Carol")
    with pytest.raises(NoSuchPlayer):
        store.upgrade_guest(new_id(), "nobody", "hash", "Nobody")
    guest, _ = store.guest(new_id(), "device-4", "Guest-4", NOW)
    with pytest.raises(UsernameTaken):
        store.upgrade_guest(guest.player_id, "carol", "hash", "Carol")
    assert store.player(guest.player_id) == guest


def test_a_session_rotates_once(store: ProfileStore) -> None:
    player, _ = store.guest(new_id(), "device-5", "Guest-5", NOW)
    store.open_session("jti-1", player.player_id, NOW + DAY, NOW)
    assert store.rotate_session("jti-1", player.player_id, "jti-2", NOW + 2 * DAY, NOW + 1)
    assert not store.rotate_session("jti-1", player.player_id, "jti-3", NOW + 2 * DAY, NOW + 2)
    assert store.session("jti-3") is None
    assert store.rotate_session("jti-2", player.player_id, "jti-4", NOW + 3 * DAY, NOW + 3)


def test_rotating_one_session_at_once_lets_exactly_one_win(store: ProfileStore) -> None:
    player, _ = store.guest(new_id(), "device-6", "Guest-6", NOW)
    store.open_session("jti-race", player.player_id, NOW + DAY, NOW)
    with ThreadPoolExecutor(8) as pool:
        wins = list(
            pool.map(
                lambda i: store.rotate_session("jti-race", player.player_id, f"jti-next-{i}", NOW + DAY, NOW + 1),
                range(8),
            )
        )
    assert wins.count(True) == 1


def test_an_ended_expired_or_foreign_session_does_not_rotate(store: ProfileStore) -> None:
    player, _ = store.guest(new_id(), "device-7", "Guest-7", NOW)
    other, _ = store.guest(new_id(), "device-8", "Guest-8", NOW)
    store.open_session("jti-a", player.player_id, NOW + DAY, NOW)
    store.open_session("jti-b", player.player_id, NOW + DAY, NOW)
    assert not store.rotate_session("jti-a", other.player_id, "x", NOW + DAY, NOW)
    assert not store.rotate_session("jti-a", player.player_id, "y", NOW + 2 * DAY, NOW + DAY)
    assert store.revoke_session("jti-b", player.player_id, NOW)
    assert not store.revoke_session("jti-b", player.player_id, NOW)
    assert not store.rotate_session("jti-b", player.player_id, "z", NOW + DAY, NOW)


def test_opening_a_session_prunes_the_players_expired_ones(store: ProfileStore) -> None:
    player, _ = store.guest(new_id(), "device-9", "Guest-9", NOW)
    store.open_session("old", player.player_id, NOW + DAY, NOW)
    store.open_session("live", player.player_id, NOW + 3 * DAY, NOW)
    store.open_session("new", player.player_id, NOW + 5 * DAY, NOW + 2 * DAY)
    assert store.session("old") is None
    assert store.session("live") is not None and store.session("new") is not None


def test_a_profile_change_is_stored(store: ProfileStore) -> None:
    player, _ = store.guest(new_id(), "device-10", "Guest-10", NOW)
    changed = store.update_profile(
        player.player_id, lambda p: type(p)(p.player_id, "Dee", p.username, p.created_at, Preferences(sound=False))
    )
    assert changed.display_name == "Dee" and not changed.preferences.sound
    assert store.player(player.player_id) == changed
    with pytest.raises(NoSuchPlayer):
        store.update_profile(new_id(), lambda p: p)


def test_a_new_password_hash_is_stored(store: ProfileStore) -> None:
    store.create_account(new_id(), "erin", "old-hash", "Erin", NOW)
    player, _ = store.credentials("erin")  # type: ignore[misc]
    store.set_password_hash(player.player_id, "new-hash")
    assert store.credentials("erin") == (player, "new-hash")


def test_timestamps_survive_as_seconds(store: ProfileStore) -> None:
    moment = time.time()
    player, _ = store.guest(new_id(), "device-11", "Guest", moment)
    assert store.player(player.player_id).created_at == pytest.approx(moment, abs=1e-3)  # type: ignore[union-attr]
