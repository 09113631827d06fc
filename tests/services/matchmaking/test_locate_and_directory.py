"""LocateTable and the shard directory (leases, placement, adoption, release), on SQLite and PostgreSQL."""

from __future__ import annotations

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2
from cardroom.table.v1 import table_pb2

from services.matchmaking.directory import LEASE_SECONDS
from tests.services.matchmaking.matchmaking_harness import Room, matchmaking, refusal, seated
from tests.support.servers import issuer, player_metadata, service_metadata


async def locate(room: Room, player: str, table_id: str = "") -> matchmaking_pb2.Seated:
    request = matchmaking_pb2.LocateTableRequest(table_id=table_id)
    return (await room.stub.LocateTable(request, metadata=player_metadata(player))).seated


async def release(room: Room, shard: str, *table_ids: str) -> None:
    await room.directory.ReleaseShard(
        matchmaking_pb2.ReleaseShardRequest(shard_id=shard, table_ids=list(table_ids)), metadata=service_metadata("table")
    )


async def seat_pair(room: Room) -> tuple[matchmaking_pb2.Seated, matchmaking_pb2.Seated]:
    ann, bob = room.join("ann"), room.join("bob")
    return await seated(ann), await seated(bob)


async def test_locate_gives_the_callers_seat_with_a_fresh_token(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        ann, _ = await seat_pair(room)
        by_id, latest = await locate(room, "ann", ann.table_id), await locate(room, "ann")
    for found in (by_id, latest):
        assert (found.table_id, found.seat, found.match_id, found.game, found.table_address) == (
            ann.table_id,
            ann.seat,
            ann.match_id,
            "four_down",
            room.table_address,
        )
        claims = issuer().verify(found.seat_token, "seat")
        assert (claims.subject, claims.table_id, claims.seat) == ("ann", ann.table_id, ann.seat)


async def test_locate_refuses_tables_where_the_caller_has_no_seat(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        ann, _ = await seat_pair(room)
        assert await refusal(locate(room, "eve", ann.table_id)) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        assert await refusal(locate(room, "eve")) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        assert await refusal(locate(room, "ann", "no-such-table")) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")


async def test_locate_without_a_table_skips_finished_ones(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        first, _ = await seat_pair(room)
        room.tables.status[first.table_id] = table_pb2.TABLE_STATUS_FINISHED
        assert await refusal(locate(room, "ann")) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        second, _ = await seat_pair(room)
        assert (await locate(room, "ann")).table_id == second.table_id
        assert (await locate(room, "ann", first.table_id)).table_id == first.table_id, "a finished table is still located by id"


async def test_a_new_table_is_placed_on_the_least_loaded_live_shard(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        lease = await room.renew("shard-0", room.table_address, live_tables=5)
        assert lease.lease.ToTimedelta().total_seconds() == LEASE_SECONDS and list(lease.adopt_table_ids) == []
        await room.renew("shard-1", room.table_address.replace("127.0.0.1", "localhost"), live_tables=1)
        await room.renew("shard-2", "127.0.0.1:1", live_tables=0, draining=True)
        ann, _ = await seat_pair(room)
        assert ann.table_address.startswith("localhost:"), "shard-1: live, not draining, fewest tables"
        assert (await locate(room, "ann", ann.table_id)).table_address == ann.table_address


async def test_an_expired_shards_tables_are_adopted_by_a_live_shard(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        alive = room.table_address.replace("127.0.0.1", "localhost")
        await room.renew("shard-0", room.table_address)
        ann, _ = await seat_pair(room)
        assert ann.table_address == room.table_address
        room.clock.advance(LEASE_SECONDS / 2)
        assert list((await room.renew("shard-1", alive)).adopt_table_ids) == [], "shard-0's lease still runs"
        room.clock.advance(LEASE_SECONDS)
        adopted = await room.renew("shard-1", alive)
        assert list(adopted.adopt_table_ids) == [ann.table_id]
        assert list((await room.renew("shard-1", alive)).adopt_table_ids) == [], "adopted once"
        assert (await locate(room, "ann", ann.table_id)).table_address == alive
        back = await room.renew("shard-0", room.table_address)
        assert list(back.adopt_table_ids) == [], "a returning shard does not take its old tables back"


async def test_locate_moves_a_table_off_a_dead_shard_at_once(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        alive = room.table_address.replace("127.0.0.1", "localhost")
        await room.renew("shard-0", room.table_address)
        ann, _ = await seat_pair(room)
        room.clock.advance(LEASE_SECONDS - 1)
        await room.renew("shard-1", alive)
        room.clock.advance(2)
        assert (await locate(room, "ann", ann.table_id)).table_address == alive
        assert list((await room.renew("shard-1", alive)).adopt_table_ids) == [], "already this shard's"


async def test_a_released_shards_unfinished_tables_go_to_others_and_it_gets_no_new_ones(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        alive = room.table_address.replace("127.0.0.1", "localhost")
        await room.renew("shard-0", room.table_address)
        unfinished, _ = await seat_pair(room)
        finished, _ = await seat_pair(room)
        await room.renew("shard-1", alive, live_tables=50)
        await release(room, "shard-0", unfinished.table_id)
        adopted = await room.renew("shard-1", alive, live_tables=50)
        assert list(adopted.adopt_table_ids) == [unfinished.table_id], "the finished table is nobody's to adopt"
        newer, _ = await seat_pair(room)
        assert newer.table_address == alive, "the draining shard takes no new tables"


async def test_the_directory_takes_service_credentials_and_valid_leases_only(database_url: str) -> None:
    async with matchmaking(database_url) as room:
        request = matchmaking_pb2.RenewShardLeaseRequest(shard_id="shard-0", address="127.0.0.1:7000")
        assert await refusal(room.directory.RenewShardLease(request, metadata=player_metadata("ann"))) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "FORBIDDEN",
        )
        for bad in (
            matchmaking_pb2.RenewShardLeaseRequest(address="127.0.0.1:7000"),
            matchmaking_pb2.RenewShardLeaseRequest(shard_id="shard-0"),
            matchmaking_pb2.RenewShardLeaseRequest(shard_id="shard-0", address="127.0.0.1:7000", live_tables=-1),
        ):
            assert await refusal(room.directory.RenewShardLease(bad, metadata=service_metadata())) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_ARGUMENT",
            )
        assert await refusal(release(room, "never-renewed")) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        ann, _ = await seat_pair(room)
        assert ann.table_address == room.table_address, "no shard was recorded by the refused calls"
