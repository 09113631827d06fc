"""The client's stored session: one device id per install, tokens readable by the owner only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from services.client.session import SESSION_FILE, StoredSession, load, save


def test_a_new_install_gets_a_device_id_that_is_kept(tmp_path: Path) -> None:
    first = load(tmp_path)
    save(tmp_path, first)
    assert load(tmp_path).device_id == first.device_id
    assert stat.S_IMODE(os.stat(tmp_path / SESSION_FILE).st_mode) == 0o600


def test_an_unreadable_session_file_starts_afresh(tmp_path: Path) -> None:
    (tmp_path / SESSION_FILE).write_text("not json")
    assert load(tmp_path).device_id


def test_tokens_survive_a_restart(tmp_path: Path) -> None:
    save(tmp_path, StoredSession(device_id="d1", player_id="p1", access_token="a", access_expires_at=5.0, refresh_token="r", refresh_expires_at=9.0))
    again = load(tmp_path)
    assert (again.player_id, again.refresh_token, again.access_expires_at) == ("p1", "r", 5.0)


async def test_an_expiring_access_token_is_refreshed_for_the_same_player(tmp_path: Path) -> None:
    import grpc
    from argon2 import PasswordHasher
    from argon2.profiles import CHEAPEST

    from services.client.session import Session
    from services.profile.app import create_server
    from tests.support.servers import settings_for

    app = await create_server(settings_for("profile", f"sqlite:///{tmp_path / 'p.sqlite3'}"), password_hasher=PasswordHasher.from_parameters(CHEAPEST))
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    now = [1_000.0]
    try:
        import time

        now[0] = time.time()
        session = Session(channel, tmp_path / "home", clock=lambda: now[0])
        first = await session.metadata()
        player = session.player_id
        assert await session.metadata() == first  # still fresh: no new call
        now[0] = session.stored.access_expires_at - 30  # inside the refresh margin
        refreshed = await session.metadata()
        assert refreshed != first and session.player_id == player
        session.stored.refresh_token = "revoked"  # a refresh token that no longer works
        now[0] = session.stored.access_expires_at + 1
        await session.metadata()
        assert session.player_id == player  # the same device signs in to the same guest
    finally:
        await channel.close()
        await app.stop(0)
