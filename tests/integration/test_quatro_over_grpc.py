"""Quatro over real gRPC: a 4-player and an 8-player match of humans and robots played to the end,
each with a reshuffle vote, a disconnection and a reconnection; and two real clients exchanging
on the same centre slot at the same instant.

The matches run with table time 10 times faster than real time (``clock_speed``), so Quatro's
clocks (30 s to get ready, 3 min rounds, a 30 s pause) last seconds. The humans are
``QuatroHuman``s acting in real time from their own Snapshots; the other seats are the server's
robots. Nothing here asserts timing: the tests wait for conditions with generous timeouts.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from tests.integration.players import (
    QuatroHuman,
    Table,
    assert_match_seen_to_the_end,
    data_of,
    events_of,
    partners,
    reason_of,
    refusal,
    seated,
    table_service,
    view_of,
    wait_for_event,
)

CLOCK_SPEED = 10.0  # a 3 min blank round takes 18 s, a 20 s vote 2 s, a 2 s cooldown 0.2 s: slow enough for a busy machine
MATCH_TIMEOUT = 55.0  # seconds of real time for a whole match; they take a fraction of that
REAL_TIME_ROBOTS = {"turn_seconds": 0, "robot_delay": 0}  # robots act at Quatro's own pace (0.5 s of table time)
IDLE_ROBOTS = {"turn_seconds": 0, "robot_delay": 60}  # robots stay out of the way of a race


async def play_quatro_match(
    database_url: str, players: list[str | None], proposer: int, leaver: int, seed: int
) -> tuple[Table, dict[int, QuatroHuman]]:
    """Play a match to the end: ``proposer`` proposes a reshuffle until one passes (the other
    humans vote yes); then ``leaver`` closes its stream, the table plays on without it, and it
    comes back by resuming its stream."""
    async with table_service(database_url, clock_speed=CLOCK_SPEED) as channel:
        async with seated(channel, "quatro", players, REAL_TIME_ROBOTS, seed) as table:
            humans = {
                seat: QuatroHuman(client, seed=seed + seat, proposes=seat == proposer) for seat, client in table.humans.items()
            }
            tasks = [asyncio.create_task(human.play()) for human in humans.values()]
            try:
                await wait_for_event(table.spectator, "reshuffled", timeout=MATCH_TIMEOUT)
                await leave_and_come_back(table, humans[leaver], leaver)
                await asyncio.wait_for(asyncio.gather(*tasks), MATCH_TIMEOUT)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            await assert_match_seen_to_the_end(table, partners(len(players)))
    return table, humans


async def leave_and_come_back(table: Table, human: QuatroHuman, seat: int) -> None:
    """QU-13: the seat's last stream closes (the table service sends ``disconnect``), play goes on
    without it, then it watches again from its last sequence (``reconnect``)."""
    await human.disconnect()
    gone = await wait_for_event(table.spectator, "disconnected", lambda data: data["seat"] == seat)
    await wait_until_after(table, gone.sequence)
    human.reconnect()
    await wait_for_event(table.spectator, "reconnected", lambda data: data["seat"] == seat)


async def wait_until_after(table: Table, sequence: int) -> None:
    """Until the spectator has seen some exchange made after ``sequence`` (the table went on)."""
    await wait_for_event(table.spectator, "exchanged", timeout=MATCH_TIMEOUT)

    def later() -> bool:
        return any(event.sequence > sequence for event in events_of(table.spectator, "exchanged"))

    while not later():
        table.spectator.updated.clear()
        await asyncio.wait_for(table.spectator.updated.wait(), MATCH_TIMEOUT)


def assert_reshuffle_vote(table: Table, proposer: int) -> None:
    """QU-12: the proposer's vote passed on the other connected humans' yes; robots never voted."""
    events = table.spectator.events()
    proposals = [data_of(e)["seat"] for e in events if e.kind == "reshuffle_proposed"]
    assert proposals and set(proposals) == {proposer}
    passed = next(e for e in events if e.kind == "reshuffled")
    proposed = max(e.sequence for e in events if e.kind == "reshuffle_proposed" and e.sequence < passed.sequence)
    voters = {data_of(e)["seat"] for e in events if e.kind == "voted" and proposed < e.sequence < passed.sequence}
    assert voters == set(table.humans) - {proposer}, "every other connected human voted"
    assert all(data_of(e)["accept"] for e in events if e.kind == "voted")
    robots = set(range(table.seats)) - set(table.humans)
    assert not robots & {data_of(e)["seat"] for e in events if e.kind == "voted"}, "robots do not vote"
    for client in table.humans.values():  # QU-12, QU-2: hands redealt, each told privately
        assert any(e.private and e.sequence > passed.sequence for e in events_of(client, "hand_dealt"))


def assert_humans_played(table: Table, humans: dict[int, QuatroHuman]) -> None:
    for seat, human in humans.items():
        assert human.accepted["exchange"] > 0, f"seat {seat} exchanged"
        assert human.accepted["choose_signal"] + human.accepted["ready"] > 0
        client = table.humans[seat]
        # QU-3, QU-15: every round a seat saw dealt, its team's signal reached it (a robot partner's too).
        assert len(events_of(client, "team_signal")) >= len(events_of(client, "round_dealt"))
    signalled = sum(human.accepted["show"] + human.accepted["quatro"] for human in humans.values())
    assert signalled > 0, "the humans showed a quartet's signal or called ¡Quatro! on their partner's"
    final = data_of(events_of(table.spectator, "match_over")[0])
    assert max(final["totals"]) >= 5 and final["winners"]  # QU-14
    assert events_of(table.spectator, "round_ended")


async def test_a_four_player_match_of_two_humans_and_two_robots_is_played_to_the_end(sqlite_url: str) -> None:
    players: list[str | None] = ["ana", "ben", None, None]  # each human is partnered with a robot
    table, humans = await play_quatro_match(sqlite_url, players, proposer=0, leaver=1, seed=41)
    assert_reshuffle_vote(table, proposer=0)
    assert_humans_played(table, humans)
    kinds = [(e.kind, data_of(e).get("seat")) for e in table.humans[0].events()]
    assert kinds.index(("disconnected", 1)) < kinds.index(("reconnected", 1))


async def test_an_eight_player_match_of_three_humans_and_five_robots_is_played_to_the_end(sqlite_url: str) -> None:
    players: list[str | None] = ["ana", "ben", None, None, "cid", None, None, None]  # ana and cid are partners
    table, humans = await play_quatro_match(sqlite_url, players, proposer=1, leaver=4, seed=83)
    assert_reshuffle_vote(table, proposer=1)
    assert_humans_played(table, humans)
    assert events_of(table.humans[0], "team_signal")[0].private


def exchange(hand_slot: int, center_slot: int, expect: str) -> dict[str, Any]:
    return {"type": "exchange", "hand_slot": hand_slot, "center_slot": center_slot, "expect": expect}


async def test_two_players_exchanging_on_one_centre_slot_at_once_one_wins_the_other_is_stale_without_cooldown(
    sqlite_url: str,
) -> None:
    players: list[str | None] = ["ana", "ben", None, None]
    async with table_service(sqlite_url) as channel, seated(channel, "quatro", players, IDLE_ROBOTS, seed=5) as table:
        ana, ben = table.humans[0], table.humans[1]
        await ana.act({"type": "ready"})
        await ben.act({"type": "ready"})  # QU-4: every connected human is ready, robots always are
        await wait_for_event(ana, "round_started")
        before = {seat: view_of(await client.snapshot()) for seat, client in table.humans.items()}
        wanted = before[0]["center"][0]
        outcomes = await asyncio.gather(ana.act(exchange(0, 0, wanted)), ben.act(exchange(0, 0, wanted)), return_exceptions=True)
        won = [seat for seat, outcome in zip((0, 1), outcomes) if not isinstance(outcome, BaseException)]
        lost = [(seat, outcome) for seat, outcome in zip((0, 1), outcomes) if isinstance(outcome, BaseException)]
        assert len(won) == 1 and len(lost) == 1, outcomes
        loser, error = lost[0]
        assert isinstance(error, grpc.aio.AioRpcError)
        assert (error.code(), reason_of(error)) == (grpc.StatusCode.ABORTED, "STALE")  # QU-5
        winner_client, loser_client = table.humans[won[0]], table.humans[loser]
        exchanged = data_of(await wait_for_event(loser_client, "exchanged"))
        assert exchanged["seat"] == won[0] and exchanged["taken"] == wanted
        after = view_of(await loser_client.snapshot())
        assert after["hand"] == before[loser]["hand"], "the stale exchange changed nothing"
        assert after["exchange_free_at"] is None, "and started no cooldown (QU-5)"
        # The loser's next exchange is accepted at once; the winner's is in its cooldown (QU-6).
        await loser_client.act(exchange(1, 0, after["center"][0]))
        center = view_of(await winner_client.snapshot())["center"]
        assert await refusal(winner_client.act(exchange(1, 1, center[1]))) == (grpc.StatusCode.FAILED_PRECONDITION, "COOLDOWN")
        assert [data_of(e)["seat"] for e in events_of(table.spectator, "exchanged")] in ([won[0]], [won[0], loser])
        await wait_for_event(table.spectator, "exchanged", lambda data: data["seat"] == loser)


async def test_robots_play_a_round_that_starts_by_the_clock(sqlite_url: str) -> None:
    robots: list[str | None] = [None] * 4
    async with table_service(sqlite_url, clock_speed=CLOCK_SPEED) as channel:
        async with seated(channel, "quatro", robots, REAL_TIME_ROBOTS, seed=3) as table:
            await wait_for_event(table.spectator, "round_started")  # QU-4: nobody to wait for but the clock
            await wait_for_event(table.spectator, "exchanged", timeout=5.0)  # 50 s of table time
