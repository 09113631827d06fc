"""A whole Four Down match through profile, table and rating, as phones would play it.

Two guests sign in with profile, sit at a ranked table, play it to the end over gRPC while a third
player watches as a spectator; then the result reaches the ladder through the table's outbox. Every
stream is checked against the table's own log: each seat received exactly the events whose audience
includes it, and the spectator exactly the public ones.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any, AsyncIterator

import grpc
import pytest
from cardroom.common.v1 import common_pb2
from cardroom.profile.v1 import profile_pb2, profile_pb2_grpc
from cardroom.table.v1 import table_pb2, table_pb2_grpc
from google.protobuf.json_format import MessageToDict

from services.profile.app import create_server as create_profile
from services.rating.app import create_server as create_rating
from services.table.app import create_server as create_table_server
from services.table.live import LiveTable
from services.table.servicer import ProtobufEncoder
from services.table.store import TableStore
from shared.db import make_engine
from tests.services.table.test_table_service import play_to_the_end
from tests.support.servers import bearer, service_metadata, settings_for
from tests.support.table_client import SeatClient

pytestmark = pytest.mark.slow
WAIT = 30.0


@pytest.fixture
async def platform(tmp_path: Path) -> AsyncIterator[dict[str, Any]]:
    urls = {name: f"sqlite:///{tmp_path / name}.sqlite3" for name in ("rating", "profile", "table")}
    rating = await create_rating(settings_for("rating", urls["rating"]))
    rating_address = f"127.0.0.1:{await rating.start('127.0.0.1:0')}"
    profile = await create_profile(settings_for("profile", urls["profile"]), rating_address)
    profile_address = f"127.0.0.1:{await profile.start('127.0.0.1:0')}"
    table, _host = await create_table_server(settings_for("table", urls["table"]), rating_address, shard="e2e")
    table_address = f"127.0.0.1:{await table.start('127.0.0.1:0')}"
    channels = {name: grpc.aio.insecure_channel(address) for name, address in
                (("profile", profile_address), ("table", table_address), ("rating", rating_address))}
    yield {"channels": channels, "table_url": urls["table"]}
    for channel in channels.values():
        await channel.close()
    for app in (table, profile, rating):
        await app.stop(0)


async def sign_in(channel: grpc.aio.Channel, device: str) -> tuple[str, str]:
    answer = await profile_pb2_grpc.ProfileServiceStub(channel).SignInGuest(profile_pb2.SignInGuestRequest(device_id=device))
    return answer.profile.player_id, answer.tokens.access_token


def as_json(event: table_pb2.TableEvent) -> tuple[int, str, dict[str, Any]]:
    return event.sequence, event.kind, MessageToDict(event.data)


def expected_stream(table: LiveTable, seat: int | None, after: int) -> list[tuple[int, str, dict[str, Any]]]:
    """What the log says this seat may receive after sequence ``after``, in the wire's JSON form."""
    expected = []
    for item in table.events[after:]:
        if item.event.audience.includes(seat):
            message = table_pb2.WatchResponse.FromString(table.encode(item, seat))
            expected.append(as_json(message.event))
    return expected


def _state_at(table: LiveTable, sequence: int) -> Any:
    """The table's state when its log had produced ``sequence`` events (the opening deal here)."""
    assert sequence <= len([e for e in table.events if e.actor == -1 and e.at == 0.0]), "watched from the start"
    record = table.record
    fresh = LiveTable(record, table.store, table.encoder)
    return fresh.state


async def test_two_guests_play_a_ranked_match_a_spectator_sees_only_public_events_and_the_ladder_moves(platform: dict[str, Any]) -> None:
    channels = platform["channels"]
    alice_id, alice_token = await sign_in(channels["profile"], "alice-phone")
    bob_id, bob_token = await sign_in(channels["profile"], "bob-phone")
    carol_id, carol_token = await sign_in(channels["profile"], "carol-phone")
    request = table_pb2.CreateTableRequest(
        game="four_down",
        seats=[table_pb2.SeatAssignment(player_id=alice_id, display_name="Alice"), table_pb2.SeatAssignment(player_id=bob_id, display_name="Bob")],
        kind=common_pb2.MATCH_KIND_RANKED,
        seed=2026,
    )
    request.options.update({"turn_seconds": 0})
    created = await table_pb2_grpc.TableServiceStub(channels["table"]).CreateTable(request, metadata=service_metadata("matchmaking"))
    table_id = created.table.table_id
    alice = SeatClient(channels["table"], table_id, alice_id, created.seat_tokens[0].token)
    bob = SeatClient(channels["table"], table_id, bob_id, created.seat_tokens[1].token)
    spectator = SeatClient(channels["table"], table_id, carol_id)
    for client, token in ((alice, alice_token), (bob, bob_token), (spectator, carol_token)):
        client.metadata = bearer(token)  # the tokens profile issued, not test-minted ones
        client.watch()

    await play_to_the_end([alice, bob], random.Random(11))
    finals = [await client.snapshot() for client in (alice, bob, spectator)]
    for client, final in zip((alice, bob, spectator), finals):
        await client.wait_for(final.sequence)
        await client.stop()
    assert finals[0].table.status == table_pb2.TABLE_STATUS_FINISHED

    store = TableStore(make_engine(platform["table_url"]))
    record = store.table(table_id)
    assert record is not None and record.finished
    replayed = LiveTable.restore(record, store, ProtobufEncoder())
    for seat, client in ((0, alice), (1, bob), (None, spectator)):
        at = next(i for i, m in enumerate(client.messages) if m.HasField("snapshot"))
        opening = client.messages[at].snapshot
        reveals_first = [as_json(m.event) for m in client.messages[:at]]
        live = [as_json(m.event) for m in client.messages[at + 1 :]]
        assert MessageToDict(opening.view) == json.loads(json.dumps(replayed.game.view(_state_at(replayed, opening.sequence), seat)))
        assert live == expected_stream(replayed, seat, opening.sequence), f"stream of seat {seat}"
        own_reveals = [e for e in expected_stream(replayed, seat, 0)[: len(reveals_first) + 8] if e[1] == "first_look"]
        assert reveals_first == own_reveals, f"seat {seat} is shown its own opening look, and only that, before its view"
    assert all(not event.private for event in spectator.events())
    store.close()

    profile_stub = profile_pb2_grpc.ProfileServiceStub(channels["profile"])

    async def recorded() -> profile_pb2.Profile:
        while True:
            profile = (await profile_stub.GetProfile(profile_pb2.GetProfileRequest(), metadata=bearer(alice_token))).profile
            # Progress and rating come from two calls to rating: wait until both show the match.
            played = any(stats.game == "four_down" and stats.played == 1 for stats in profile.progress.stats)
            if played and profile.rating.rated_matches == 1:
                return profile
            await asyncio.sleep(0.1)

    profile = await asyncio.wait_for(recorded(), WAIT)
    result = json.loads(json.dumps(MessageToDict(profile)))
    assert profile.progress.level_points in (22, 8, 3), "FD-16: win 22, draw 8, loss 3"
    assert profile.rating.rated_matches == 1, f"a two-player ranked match moves the ladder: {result}"
    assert profile.rating.rating != 1500.0
