"""JoinQueue, CancelQueue, parties and ListGames over real sockets, against fake table and rating services.

The queues are in memory; these tests run on SQLite only (the stored parts run on both databases in
the other test modules).
"""

from __future__ import annotations

import asyncio
import json
import math

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2
from prometheus_client import REGISTRY

from services.matchmaking.queues import RatingWindow
from shared.auth import TokenIssuer
from tests.services.matchmaking.matchmaking_harness import (
    CASUAL,
    PRIVATE,
    RANKED,
    matchmaking,
    next_message,
    refusal,
    rest,
    seated,
    ticket_of,
)
from tests.support.servers import bearer, player_metadata, service_metadata, issuer

# Windows widen every 0.3 s here instead of 5 s: the same steps, fifteen times faster.
FAST_WINDOW = RatingWindow(start=100, step=50, every_seconds=0.3, open_after_seconds=60)


# --- ListGames ---


async def test_list_games_shows_every_game_with_seats_ranked_seats_teams_and_options(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url) as room:
        response = await room.stub.ListGames(matchmaking_pb2.ListGamesRequest(), metadata=player_metadata("ann"))
    games = {game.game: game for game in response.games}
    assert set(games) == {"four_down", "golf", "cambio", "cabo", "quatro", "tower"}
    assert (games["four_down"].min_seats, games["four_down"].max_seats, list(games["four_down"].rated_seats)) == (2, 4, [2])
    assert list(games["quatro"].rated_seats) == [] and games["quatro"].teams and not games["golf"].teams
    golf = {option.name: option for option in games["golf"].options}
    assert list(golf["mode"].allowed_json) == ['"classic"', '"extreme"'] and golf["mode"].default_json == '"classic"'
    assert [json.loads(v) for v in golf["holes"].allowed_json] == [1, 3, 9] and golf["holes"].default_json == "9"
    assert {o.name for o in games["cabo"].options} >= {"looks_reversed", "jack_looks", "wrong_snap_cards", "finish_line", "rounds"}
    assert [json.loads(v) for v in {o.name: o for o in games["tower"].options}["rounds"].allowed_json] == [1, 3, 10]
    table_options = {o.name: o.default_json for o in games["four_down"].options}
    assert table_options == {"turn_seconds": "45", "reveal_window": "5", "robot_delay": "1"}


# --- ranked ---


async def test_two_ranked_players_with_close_ratings_are_matched_at_one_table(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url) as room:
        room.rating.ratings.update({"ann": 1500, "bob": 1580})
        ann, bob = room.join("ann", kind=RANKED), room.join("bob", kind=RANKED)
        ann_seat, bob_seat = await seated(ann), await seated(bob)
        [created] = room.tables.created

    assert ann_seat.table_id == bob_seat.table_id == created.table_id
    assert {ann_seat.seat, bob_seat.seat} == {0, 1} and ann_seat.match_id == created.match_id
    assert ann_seat.table_address == room.table_address and ann_seat.game == "four_down"
    assert created.kind == RANKED and not any(seat.robot for seat in created.seats)
    claims = issuer().verify(ann_seat.seat_token, "seat")
    assert (claims.subject, claims.table_id, claims.seat) == ("ann", ann_seat.table_id, ann_seat.seat)
    assert sorted(p for batch in room.rating.asked for p in batch) == ["ann", "bob"]


async def test_far_ratings_are_matched_only_after_the_window_widens(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, rating_window=FAST_WINDOW) as room:
        room.rating.ratings.update({"ann": 1500, "bob": 1720})  # 220 apart: needs a window of 250
        ann, bob = room.join("ann", kind=RANKED), room.join("bob", kind=RANKED)
        first = await next_message(ann)
        assert first.progress.rating_window == 100
        windows = [first.progress.rating_window]
        while True:
            message = await next_message(ann)
            if message.HasField("seated"):
                break
            windows.append(message.progress.rating_window)
        await seated(bob)
    assert windows[-1] >= 200 and windows == sorted(windows), "the window only widens"
    assert len(room.tables.created) == 1


async def test_an_unreachable_rating_service_rates_everyone_1500(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, rating_reachable=False) as room:
        ann, bob = room.join("ann", kind=RANKED), room.join("bob", kind=RANKED)
        assert (await seated(ann)).table_id == (await seated(bob)).table_id


async def test_ranked_is_refused_where_the_ladder_does_not_apply_and_nothing_is_queued(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=0.2) as room:
        assert await refusal(room.join("ann", kind=RANKED, seats=3)) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
        assert await refusal(room.join("ann", game="quatro", seats=4, kind=RANKED)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
        )
        assert await refusal(room.join("ann", kind=PRIVATE)) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
        await asyncio.sleep(0.4)
        assert room.tables.created == []
        # ann was never queued: she may join now
        assert (await seated(room.join("ann"))).table_id


# --- casual ---


async def test_casual_players_get_robots_after_the_wait(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=0.5) as room:
        call = room.join("ann", game="golf", seats=3, options={"holes": 3})
        first = await next_message(call)
        assert first.progress.position == 1 and first.progress.waiting == 1
        assert 0 < first.progress.robots_in.ToTimedelta().total_seconds() <= 0.5
        seat = await seated(call)
        [created] = room.tables.created
    assert [s.robot for s in created.seats].count(True) == 2
    assert created.seats[seat.seat].player_id == "ann" and created.kind == CASUAL
    assert {s.display_name for s in created.seats if s.robot} == {"Robot 1", "Robot 2"}
    options = dict(created.options)
    assert (options["holes"], options["mode"], options["turn_seconds"], options["reveal_window"]) == (3, "classic", 45, 5)


async def test_casual_humans_are_seated_together_when_enough_are_waiting(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        calls = [room.join(p, seats=3) for p in ("ann", "bob", "cid")]
        seats = [await seated(call) for call in calls]
    assert len({s.table_id for s in seats}) == 1 and sorted(s.seat for s in seats) == [0, 1, 2]
    assert not any(s.robot for s in room.tables.created[0].seats)


async def test_players_with_different_options_are_not_matched(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        ann = room.join("ann", game="golf", options={"holes": 1})
        bob = room.join("bob", game="golf", options={"holes": 9})
        cid = room.join("cid", game="golf", options={"holes": 1.0})  # Struct numbers are doubles
        ann_seat, cid_seat = await seated(ann), await seated(cid)
        assert ann_seat.table_id == cid_seat.table_id
        progress = await next_message(bob)
        assert progress.progress.waiting == 1
        bob.cancel()


async def test_the_table_service_failing_returns_players_to_the_queue(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url) as room:
        room.tables.failures = 2  # the first attempt and its retry
        ann, bob = room.join("ann"), room.join("bob")
        ann_seat, bob_seat = await seated(ann, timeout=8), await seated(bob, timeout=8)
    assert ann_seat.table_id == bob_seat.table_id and len(room.tables.created) == 1


# --- cancelling ---


async def test_cancel_queue_withdraws_the_ticket_and_ends_the_stream(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        ann = room.join("ann")
        ticket = await ticket_of(ann)
        await room.stub.CancelQueue(matchmaking_pb2.CancelQueueRequest(ticket_id=ticket), metadata=player_metadata("ann"))
        remaining = await rest(ann)
        assert not any(m.HasField("seated") for m in remaining)
        bob = room.join("bob")
        progress = await next_message(bob)
        assert progress.progress.waiting == 1, "ann is no longer waiting"
        assert await refusal(
            room.stub.CancelQueue(matchmaking_pb2.CancelQueueRequest(ticket_id=ticket), metadata=player_metadata("ann"))
        ) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        bob.cancel()


async def test_nobody_cancels_another_players_ticket(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        ann = room.join("ann")
        ticket = await ticket_of(ann)
        assert await refusal(
            room.stub.CancelQueue(matchmaking_pb2.CancelQueueRequest(ticket_id=ticket), metadata=player_metadata("eve"))
        ) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        assert (await next_message(ann)).progress.ticket_id == ticket, "ann still waits"
        ann.cancel()


async def test_a_dropped_stream_cancels_the_ticket(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        ann = room.join("ann")
        await ticket_of(ann)
        ann.cancel()
        await asyncio.sleep(0.3)
        bob = room.join("bob")
        assert (await next_message(bob)).progress.waiting == 1
        again = room.join("ann")  # ann is free to queue again
        assert (await seated(again)).table_id == (await seated(bob)).table_id


async def test_a_player_already_queued_is_refused(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        first = room.join("ann")
        ticket = await ticket_of(first)
        assert await refusal(room.join("ann", game="golf")) == (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_QUEUED")
        assert (await next_message(first)).progress.ticket_id == ticket
        first.cancel()


# --- bad input ---


async def test_bad_queue_requests_are_refused_with_their_reason_and_queue_nobody(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=0.2) as room:
        cases = [
            (room.join("ann", game="chess"), "UNKNOWN_GAME"),
            (room.join("ann", game=""), "UNKNOWN_GAME"),
            (room.join("ann", game="golf", options={"holes": 4}), "BAD_OPTION"),
            (room.join("ann", game="golf", options={"colour": "red"}), "BAD_OPTION"),
            (room.join("ann", options={"turn_seconds": -1}), "BAD_OPTION"),
            (room.join("ann", seats=7), "BAD_SEAT_COUNT"),
            (room.join("ann", seats=0), "BAD_SEAT_COUNT"),
            (room.join("ann", game="quatro", seats=5), "BAD_SEAT_COUNT"),
            (room.join("ann", game="golf", party_code="NOPE42"), "INVALID_ARGUMENT"),
        ]
        for call, reason in cases:
            assert await refusal(call) == (grpc.StatusCode.INVALID_ARGUMENT, reason), reason
        await asyncio.sleep(0.4)
        assert room.tables.created == [], "nobody was queued, so no robot table opened"


async def test_calls_need_a_player_token(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url) as room:
        request = matchmaking_pb2.JoinQueueRequest(game="four_down", seats=2)
        code, reason = await refusal(room.stub.JoinQueue(request))
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
        code, reason = await refusal(room.stub.JoinQueue(request, metadata=service_metadata()))
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
        forged = TokenIssuer("another-secret-of-at-least-thirty-two-bytes").access("ann").token
        assert (await refusal(room.stub.JoinQueue(request, metadata=bearer(forged))))[1] == "TOKEN_INVALID"


# --- parties ---


async def test_a_party_is_seated_as_partners_and_strangers_are_partnered(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        party = (await room.stub.CreateParty(matchmaking_pb2.CreatePartyRequest(), metadata=player_metadata("ann"))).party
        joined = await room.stub.JoinParty(matchmaking_pb2.JoinPartyRequest(code=party.code.lower()), metadata=player_metadata("bob"))
        assert list(joined.party.player_ids) == ["ann", "bob"]
        calls = {
            "ann": room.join("ann", game="quatro", seats=4, party_code=party.code),
            "solo1": room.join("solo1", game="quatro", seats=4),
            "solo2": room.join("solo2", game="quatro", seats=4),
        }
        await ticket_of(calls["ann"])
        assert not room.tables.created, "the party waits for bob"
        calls["bob"] = room.join("bob", game="quatro", seats=4, party_code=party.code)
        seats = {player: (await seated(call)).seat for player, call in calls.items()}
    assert abs(seats["ann"] - seats["bob"]) == 2 and abs(seats["solo1"] - seats["solo2"]) == 2
    assert len(room.tables.created) == 1


async def test_a_party_with_robots_fills_the_other_pair(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=0.3) as room:
        party = (await room.stub.CreateParty(matchmaking_pb2.CreatePartyRequest(), metadata=player_metadata("ann"))).party
        await room.stub.JoinParty(matchmaking_pb2.JoinPartyRequest(code=party.code), metadata=player_metadata("bob"))
        ann = room.join("ann", game="quatro", seats=4, party_code=party.code)
        bob = room.join("bob", game="quatro", seats=4, party_code=party.code)
        ann_seat, bob_seat = await seated(ann), await seated(bob)
    [created] = room.tables.created
    assert abs(ann_seat.seat - bob_seat.seat) == 2 and [s.robot for s in created.seats].count(True) == 2


async def test_party_refusals(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        party = (await room.stub.CreateParty(matchmaking_pb2.CreatePartyRequest(), metadata=player_metadata("ann"))).party
        assert len(party.code) == 6 and list(party.player_ids) == ["ann"]
        join = matchmaking_pb2.JoinPartyRequest(code=party.code)
        await room.stub.JoinParty(join, metadata=player_metadata("bob"))
        again = await room.stub.JoinParty(join, metadata=player_metadata("bob"))
        assert list(again.party.player_ids) == ["ann", "bob"], "joining twice changes nothing"
        assert await refusal(room.stub.JoinParty(join, metadata=player_metadata("cid"))) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "TABLE_FULL",
        )
        assert await refusal(room.stub.JoinParty(matchmaking_pb2.JoinPartyRequest(code="ZZZZZZ"), metadata=player_metadata("cid"))) == (
            grpc.StatusCode.NOT_FOUND,
            "NOT_FOUND",
        )
        assert await refusal(room.join("cid", game="quatro", seats=4, party_code=party.code)) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "FORBIDDEN",
        )
        ann = room.join("ann", game="quatro", seats=4, party_code=party.code)
        await ticket_of(ann)
        assert await refusal(room.join("bob", game="quatro", seats=6, party_code=party.code)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
        )
        ann.cancel()


async def test_progress_arrives_about_once_a_second(sqlite_url: str) -> None:
    async with matchmaking(sqlite_url, robot_wait_seconds=30) as room:
        ann = room.join("ann")
        first = await next_message(ann)
        second = await next_message(ann, timeout=2.0)
        assert second.progress.ticket_id == first.progress.ticket_id
        assert 0.5 <= (second.progress.elapsed.ToTimedelta() - first.progress.elapsed.ToTimedelta()).total_seconds() <= 1.5
        assert first.progress.rating_window == 0 and not math.isinf(first.progress.rating_window)
        ann.cancel()


# --- metrics ---


def sample(name: str, game: str, mode: str) -> float:
    return REGISTRY.get_sample_value(name, {"game": game, "mode": mode}) or 0.0


async def test_metrics_count_queue_lengths_waits_and_seated_players_by_game_and_mode(sqlite_url: str) -> None:
    seated_before = sample("cardroom_matchmaking_players_seated_total", "tower", "casual")
    waits_before = sample("cardroom_matchmaking_queue_wait_seconds_count", "tower", "casual")
    async with matchmaking(sqlite_url, robot_wait_seconds=0.6) as room:
        call = room.join("ann", game="tower")
        await ticket_of(call)
        await asyncio.sleep(0.3)
        assert sample("cardroom_matchmaking_queue_length", "tower", "casual") == 1
        await seated(call)
        await asyncio.sleep(0.3)
        assert sample("cardroom_matchmaking_queue_length", "tower", "casual") == 0
    assert sample("cardroom_matchmaking_players_seated_total", "tower", "casual") == seated_before + 1
    assert sample("cardroom_matchmaking_queue_wait_seconds_count", "tower", "casual") == waits_before + 1
