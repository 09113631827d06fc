"""Golf, Cambio and Cabo played to the end over real gRPC by two scripted humans and the server's
robots, and Cambio's snaps over the wire: out of turn, two at once on one card (CA-11), and a snap
racing the next player's draw (CA-7).

Every match runs on a real table server (SQLite) on a real socket; the humans see only what their
seats are sent. The snap tests pick a seed whose deal makes the snap right (the deal is the
engine's, seeded: what the server deals for that seed), so that the race is about order alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any, AsyncIterator, Callable

import grpc
import pytest

from shared.games import registry
from shared.games.base import Setup
from shared.games.golf_family.rules import rank_of
from tests.integration.players import (
    GolfFamilyHuman,
    Table,
    assert_match_seen_to_the_end,
    data_of,
    events_of,
    play_turns,
    reason_of,
    refusal,
    seated,
    table_service,
    view_of,
    wait_for_event,
)

# Robots answer within 10 ms and no turn clock races the humans. (Not 0: a robot that declines an
# open snap window is asked again every robot_delay, and 0 would make that a busy loop.)
FAST_ROBOTS = {"turn_seconds": 0, "robot_delay": 0.01}
IDLE_ROBOTS = {"turn_seconds": 0, "robot_delay": 60}  # the robot seat stays out of the snap tests
MATCH_TIMEOUT = 55.0  # seconds; each match here takes a few
BLIND_SNAP_RATE = 0.3  # often enough that a human snaps wrongly in every wrong-snap-options match

GOLF_FAMILY_TABLES: list[tuple[str, dict[str, Any], list[str | None]]] = [
    ("golf", {"mode": "classic", "holes": 1}, ["ana", None, "ben"]),
    ("golf", {"mode": "classic", "holes": 3}, ["ana", None, "ben", None]),
    ("golf", {"mode": "classic", "holes": 9}, ["ana", "ben", None]),
    ("golf", {"mode": "extreme", "holes": 1}, ["ana", None, "ben", None]),
    ("golf", {"mode": "extreme", "holes": 3}, ["ana", None, "ben"]),
    ("golf", {"mode": "extreme", "holes": 9}, ["ana", "ben", None, None]),
    ("cambio", {}, ["ana", None, "ben", None]),
    (
        "cambio",
        {"looks_reversed": True, "jack_looks": True, "wrong_snap_cards": 2, "wrong_snap_reveal": True, "finish_line": 40},
        ["ana", None, "ben"],
    ),
    ("cambio", {"rounds": 2}, ["ana", "ben", None]),
    ("cabo", {}, ["ana", None, "ben", None]),
]


def case_name(game: str, options: dict[str, Any], players: list[str | None]) -> str:
    named = "-".join(f"{key}={value}" for key, value in sorted(options.items()))
    return f"{game}[{named or 'defaults'}]x{len(players)}"


@pytest.mark.parametrize(
    ("game", "options", "players"), GOLF_FAMILY_TABLES, ids=[case_name(*entry) for entry in GOLF_FAMILY_TABLES]
)
async def test_a_match_is_played_to_the_end_over_grpc_by_two_humans_and_robots(
    sqlite_url: str, game: str, options: dict[str, Any], players: list[str | None]
) -> None:
    snap_rate = BLIND_SNAP_RATE if options.get("wrong_snap_reveal") else 0.0
    seed = len(players) * 7 + len(options)
    async with table_service(sqlite_url) as channel, seated(channel, game, players, {**options, **FAST_ROBOTS}, seed) as table:
        humans = GolfFamilyHuman(seed=3, snap_rate=snap_rate)
        played = await asyncio.wait_for(play_turns(table, humans), MATCH_TIMEOUT)
        await assert_match_seen_to_the_end(table)
    assert played["draw"] > 0, "the humans played their turns"
    drawers = {event.actor for event in events_of(table.spectator, "drew")}
    assert {seat for seat, player in enumerate(players) if player is None} <= drawers, "the robots played theirs"
    final = data_of(events_of(table.spectator, "match_ended")[0])
    assert len(final["totals"]) == len(players) and final["winners"]
    rounds = events_of(table.spectator, "round_ended")
    if game == "golf":
        assert len(rounds) == options["holes"]  # GO-7: the match is its holes
    if "rounds" in options:
        assert len(rounds) == options["rounds"]  # CA-16
    if "finish_line" in options or game != "golf" and "rounds" not in options:
        assert max(final["totals"]) >= options.get("finish_line", 100)  # CA-16
    for client in table.humans.values():  # GO-1, CA-1: every round's first look reaches its seat once
        assert len(events_of(client, "first_look")) == len(rounds)
    if snap_rate:
        assert_wrong_snaps_follow_the_table_options(table)


def assert_wrong_snaps_follow_the_table_options(table: Table) -> None:
    """CA-6, CA-10: with wrong_snap_reveal and wrong_snap_cards 2 a wrong snap shows the card to
    everyone and costs two unseen cards."""
    events = table.spectator.events()
    failed = [index for index, event in enumerate(events) if event.kind == "snap_failed"]
    assert failed, "the humans' blind snaps were wrong at least once"
    for index in failed:
        wrong = data_of(events[index])
        assert "revealed" in wrong
        after = list(itertools.takewhile(lambda e: e.kind in ("penalty_card", "stock_reshuffled"), events[index + 1 :]))
        penalties = [data_of(event)["seat"] for event in after if event.kind == "penalty_card"]
        stock_ran_out = events[index + 1 + len(after)].kind == "round_ended"  # CA-15: nothing left to shuffle
        assert penalties == [wrong["seat"]] * 2 or stock_ran_out


# --- Cambio's snaps over the wire ------------------------------------------------------------------------

ANA, BEN = 0, 1
NEAR_SLOTS = (2, 3)  # CA-1: the near row, shown to each seat once


def cambio_seed_where(matches: Callable[[dict[str, Any]], bool], seats: int = 3) -> int:
    """A seed whose deal (the engine's, as the server deals it) satisfies ``matches``."""
    cambio = registry.game("cambio")
    options = cambio.check_options({}, seats)
    for seed in range(5000):
        state, _ = cambio.start(Setup(seats=seats, options=options, seed=seed))
        if matches(cambio.inspect(state)):
            return seed
    raise AssertionError("no seed deals that")


def ana_draws_a_card_of_bens_near_row(truth: dict[str, Any]) -> bool:
    """Ana's first stock card has the rank of one of Ben's near cards (and of no other of his)."""
    drawn, bens = rank_of(truth["stock"][0]), [rank_of(card) for card in truth["hands"]["1"]]
    return [bens[slot] for slot in NEAR_SLOTS].count(drawn) == 1 and bens.count(drawn) == 1


@contextlib.asynccontextmanager
async def snap_table(channel: grpc.aio.Channel) -> AsyncIterator[tuple[Table, int]]:
    """Ana, Ben and an idle robot; Ana has drawn and thrown a card that matches one of Ben's near
    cards, so a snap window is open (CA-7) and it is Ben's turn. Yields the table and Ben's slot,
    which Ben reads from his own first look."""
    seed = cambio_seed_where(ana_draws_a_card_of_bens_near_row)
    async with seated(channel, "cambio", ["ana", "ben", None], IDLE_ROBOTS, seed, humans_after=1) as table:
        yield table, await throw_bens_rank(table)


async def throw_bens_rank(table: Table) -> int:
    ana, ben = table.humans[ANA], table.humans[BEN]
    await ana.act({"type": "draw", "from": "stock"})
    drawn = data_of(await wait_for_event(ana, "drawn_card"))["card"]
    await ana.act({"type": "discard"})
    look = data_of(await wait_for_event(ben, "first_look"))
    slot = next(shown["slot"] for shown in look["cards"] if rank_of(shown["card"]) == rank_of(drawn))
    view = view_of(await ben.snapshot())
    assert view["turn"] == BEN and view["snap_window"]["open"]
    return int(slot)


async def test_a_human_snaps_out_of_turn_while_another_seat_is_to_move(sqlite_url: str) -> None:
    async with table_service(sqlite_url) as channel, snap_table(channel) as (table, slot):
        ana, ben = table.humans[ANA], table.humans[BEN]
        answer = await ana.act({"type": "snap", "target": [BEN, slot]})  # Ben is to move (CA-7)
        snapped = await wait_for_event(table.spectator, "snapped")
        assert data_of(snapped) | {"card": None} == {"seat": ANA, "target": [BEN, slot], "card": None}
        assert answer.sequence >= snapped.sequence
        owed = view_of(await ana.snapshot())
        assert owed["turn"] == BEN, "a snap does not take the turn"
        assert owed["gives_owed"] == [{"seat": ANA, "hole": [BEN, slot]}]  # CA-9
        assert await refusal(ana.act({"type": "snap", "target": [2, 0]})) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL")
        await ana.act({"type": "give", "slot": 0})
        gave = data_of(await wait_for_event(ben, "gave"))
        assert gave == {"seat": ANA, "slot": 0, "to": [BEN, slot], "automatic": False}
        await ben.act({"type": "draw", "from": "stock"})  # Ben's turn goes on; the draw closes the window
        assert not view_of(await ben.snapshot())["snap_window"]["open"]
        await wait_for_event(table.spectator, "drew")
    assert not [e for e in table.spectator.events() if e.private]


async def test_two_snaps_on_the_same_card_at_once_apply_one_and_refuse_the_other_as_stale_at_no_cost(sqlite_url: str) -> None:
    async with table_service(sqlite_url) as channel, snap_table(channel) as (table, slot):
        ana, ben = table.humans[ANA], table.humans[BEN]
        before = view_of(await ana.snapshot())
        snap = {"type": "snap", "target": [BEN, slot]}
        outcomes = await asyncio.gather(ana.act(snap), ben.act(snap), return_exceptions=True)
        refused = [(seat, o) for seat, o in zip((ANA, BEN), outcomes) if isinstance(o, BaseException)]
        applied = [seat for seat, o in zip((ANA, BEN), outcomes) if not isinstance(o, BaseException)]
        assert len(applied) == 1 and len(refused) == 1, outcomes
        loser, error = refused[0]
        assert isinstance(error, grpc.aio.AioRpcError)
        assert (error.code(), reason_of(error)) == (grpc.StatusCode.ABORTED, "STALE")  # CA-11
        after = view_of(await ana.snapshot())
        await wait_for_event(table.spectator, "snapped")
        snaps = events_of(table.spectator, "snapped")
        assert [data_of(e)["seat"] for e in snaps] == applied, "exactly one snap was applied"
        # The stale snap cost nothing: no penalty card, no give owed, the loser's row unchanged but for the hole.
        assert not events_of(table.spectator, "penalty_card") and not events_of(table.spectator, "snap_failed")
        assert all(give["seat"] != loser for give in after["gives_owed"])
        assert len(after["slots"][loser]) == len(before["slots"][loser])
        assert after["turn"] == BEN


async def test_a_snap_racing_the_next_draw_is_applied_before_it_or_refused_never_both(sqlite_url: str) -> None:
    orders: list[str] = []
    async with table_service(sqlite_url) as channel:
        for _ in range(3):
            async with snap_table(channel) as (table, slot):
                await race_a_snap_against_the_draw(table, slot, orders)
    assert len(orders) == 3


async def race_a_snap_against_the_draw(table: Table, slot: int, orders: list[str]) -> None:
    ana, ben = table.humans[ANA], table.humans[BEN]
    snap_outcome, draw_outcome = await asyncio.gather(
        ana.act({"type": "snap", "target": [BEN, slot]}), ben.act({"type": "draw", "from": "stock"}), return_exceptions=True
    )
    assert not isinstance(draw_outcome, BaseException), "the player to move may always draw"
    drew = await wait_for_event(table.spectator, "drew", lambda data: data["seat"] == BEN)
    if isinstance(snap_outcome, BaseException):
        assert isinstance(snap_outcome, grpc.aio.AioRpcError)
        assert (snap_outcome.code(), reason_of(snap_outcome)) == (grpc.StatusCode.ABORTED, "STALE")  # CA-7, CA-11
        assert not events_of(table.spectator, "snapped") and not events_of(table.spectator, "penalty_card")
        orders.append("draw first")
    else:
        snapped = await wait_for_event(table.spectator, "snapped")
        assert snapped.sequence < drew.sequence, "a snap applied after the draw would be outside its window"
        orders.append("snap first")


async def test_a_seat_that_starts_watching_after_the_deal_is_shown_its_first_look(sqlite_url: str) -> None:
    async with table_service(sqlite_url) as channel, seated(channel, "cambio", ["ana", "ben"], IDLE_ROBOTS, seed=1) as table:
        # The deal was made by CreateTable a moment ago, well inside the reveal window (5 s): the
        # phone that opens the seat's stream now must still learn its near row (CA-1).
        await wait_for_event(table.humans[ANA], "first_look", timeout=2.0)
