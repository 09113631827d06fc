"""The client plays every game to its end against robots, through the real services.

Rating, table, profile and matchmaking run in-process on real sockets (``tests.client.harness``).
The client signs in as a guest and queues; robots fill the other seats after 0.5 s and act after
0.02 s (the ``robot_delay`` table option, passed through the client's options). A scripted player
answers each menu from the legal actions the client shows (Quatro's: typed real-time commands, with
the table's clock running fast). Each test checks that the match ends, that the result and the
profile's stats for the game (played 1) are printed, and that the client never printed a card its
seat had not been sent by then: every suited card in the output must already be in the seat's own
Snapshots or stream events, and in the four-card family every face-up slot must be a card that an
event sent to the seat turned up at that very place (this is how Cabo's numbered cards are checked).
Nothing here asserts timing.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from services.client import cli
from services.client.cli import PlayRequest, play
from services.client.play import Menu
from services.client.quatro import QuatroScreen
from shared.games.cards import rank
from tests.client.harness import ScriptedLines, Sight, backend, cards_in, watched

MATCH_TIMEOUT = 180.0  # seconds of real time for a whole match: they take a fraction of that on an idle
# machine, but Quatro was seen near 55 s with four copies running on two busy cores
FAST_ROBOTS = {"robot_delay": 0.02}  # robots act almost at once; the turn clock stays as it is
# Quatro: table time 30 times real time, so the 30 s signal phase takes 1 s, a blank 3 min round
# 6 s, a 2 s exchange cooldown 0.07 s; robots act at Quatro's own pace and there is no turn clock.
# A whole match (first team to 5, usually 7 to 9 rounds) then takes about 10 s on an idle machine;
# slower clocks made it 30 s, faster ones leave a loaded machine too little real time per round.
QUATRO_CLOCK_SPEED = 30.0
QUATRO_ROBOTS = {"robot_delay": 0, "turn_seconds": 0}
CALL_AFTER_DRAWS = 3  # the scripted four-card player calls (knocks) on its turn after this many draws in a round
AVOIDED = frozenset({"move_finish_line", "match", "burn", "snap"})  # no gambles, no moving the goal
ROW = re.compile(r"^[> ] (?:You|.*?\(seat (\d+)\))\s+((?:\d+:\[[^\]]*\]\s?)+)\s+total")
CELL = re.compile(r"(\d+):\[([^\]]*)\]")


@dataclass
class Played:
    status: int
    output: list[str]
    leaks: list[str]
    player: ScriptedLines

    @property
    def text(self) -> str:
        return "\n".join(self.output)


# -- what a seat was shown -------------------------------------------------------------------------


def turned_up(events: list[dict[str, Any]], seat: int) -> set[tuple[int, int, str]]:
    """(seat, slot, card) for every card an event the seat received turned up at that place."""
    places: set[tuple[int, int, str]] = set()
    for event in events:
        kind = event["kind"]
        if kind == "first_look":
            places |= {(seat, int(item["slot"]), str(item["card"])) for item in event.get("cards") or []}
        elif kind == "card_seen":
            places.add((int(event["target"][0]), int(event["target"][1]), str(event["card"])))
        elif kind == "match_failed" and event.get("revealed"):
            places.add((int(event["target"][0]), int(event["target"][1]), str(event["revealed"])))
        elif kind == "snap_failed" and event.get("card"):
            places.add((int(event["target"][0]), int(event["target"][1]), str(event["card"])))
    return places


def face_up_slots(screen: str, me: int) -> set[tuple[int, int, str]]:
    """(seat, slot, card) for every face-up slot drawn in the four-card family's rows."""
    shown = set()
    for line in screen.splitlines():
        row = ROW.match(line)
        if row is None:
            continue
        seat = int(row.group(1)) - 1 if row.group(1) else me
        for slot, content in CELL.findall(row.group(2)):
            if content.strip() and content != "?":
                shown.add((seat, int(slot) - 1, content))
    return shown


def leaks_of(screen: str, sight: Sight, four_card_family: bool) -> list[str]:
    """What ``screen`` names that the seat was not sent before it was printed."""
    leaks = [f"card {card}" for card in sorted(cards_in(screen) - sight.cards)]
    if four_card_family and sight.seat is not None:
        places = face_up_slots(screen, sight.seat) - turned_up(sight.events, sight.seat)
        leaks += [f"seat {seat + 1} slot {slot + 1} face up as {card}" for seat, slot, card in sorted(places)]
    return leaks


async def play_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: PlayRequest, player: ScriptedLines, clock_speed: float = 1.0
) -> Played:
    sight = Sight()
    monkeypatch.setattr(cli, "TableConnection", watched(sight))
    output: list[str] = []
    leaks: list[str] = []
    four_card_family = request.game in ("four_down", "golf", "cambio", "cabo")

    def write(text: str) -> None:
        output.append(text)
        leaks.extend(leaks_of(text, sight, four_card_family))

    async with backend(tmp_path, clock_speed=clock_speed) as endpoints:
        status = await asyncio.wait_for(play(request, endpoints, player, write), MATCH_TIMEOUT)
    return Played(status, output, leaks, player)


def assert_played_to_the_end(played: Played, game: str) -> None:
    text = played.text
    assert played.status == 0, text[-3000:]
    assert "Seated at seat" in text
    assert not played.leaks, played.leaks
    assert "The match is over." in text
    assert any(line.startswith(("You won!", "You lost.", "Draw")) for line in played.output), text[-2000:]
    assert f"{game}: played 1," in text, text[-1500:]


# -- scripted players ------------------------------------------------------------------------------


def number_of(menu: Menu, action: dict[str, Any]) -> str:
    return str(next(index for index, (_, offered) in enumerate(menu.entries, start=1) if offered is action))


@dataclass
class FourCardPlayer:
    """Draws from the stock, looks with a power when it may, keeps the drawn card in the first slot
    offered, gives when it owes, declines optional swaps, and calls after a few draws of a round.
    Never matches, burns or snaps, and never moves the finish line."""

    draws: int = 0
    round: Any = None

    def __call__(self, menu: Menu) -> str | None:
        if menu.view.get("round") != self.round:
            self.round, self.draws = menu.view.get("round"), 0
        offered = [action for _, action in menu.entries if action["type"] not in AVOIDED]
        by_type = {action["type"]: action for action in reversed(offered)}  # the first of each type
        if "call" in by_type and self.draws >= CALL_AFTER_DRAWS:
            return number_of(menu, by_type["call"])
        looks = [action for action in offered if action["type"] == "power" and len(action.get("targets") or []) == 1]
        for choice in ("give", "pass", "look", "replace", "discard", "draw"):
            action = looks[0] if choice == "look" and looks else by_type.get(choice)
            if choice == "draw":
                action = next((a for a in offered if a["type"] == "draw" and a["from"] == "stock"), action)
            if action is not None:
                self.draws += choice == "draw"
                return number_of(menu, action)
        return number_of(menu, offered[0]) if offered else None


@dataclass
class TowerPlayer:
    """Chooses the first setup offered, then sheds as many cards as it can (ties broken by a seeded
    coin, so that play cannot cycle), flips when nothing else is offered, picks up only when it must."""

    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def __call__(self, menu: Menu) -> str | None:
        actions = [action for _, action in menu.entries]
        if not actions:
            return None
        setups = [a for a in actions if a["type"] == "setup"]
        plays = [a for a in actions if a["type"] == "play"]
        flips = [a for a in actions if a["type"] == "flip"]
        if setups:
            return number_of(menu, setups[0])
        if plays:
            most = max(shed(a) for a in plays)
            return number_of(menu, self.rng.choice([a for a in plays if shed(a) == most]))
        return number_of(menu, (flips or actions)[0])


def shed(action: dict[str, Any]) -> int:
    return len(action.get("hand") or []) + len(action.get("up") or []) + len(action.get("down") or [])


@dataclass
class QuatroPlayer:
    """Types what a quick person would: fixes a signal and gets ready, exchanges toward the value it
    holds most, takes the floor and shows the team signal once it holds a quartet, calls ¡Quatro!
    when its partner shows the team signal, and (as host) starts the next round at once."""

    def __call__(self, menu: Menu) -> str | None:
        view = menu.view
        entries = {action["type"]: action for _, action in reversed(menu.entries)}
        phase = view.get("phase")
        if phase == "signals":
            if not view.get("signal"):
                emojis = view.get("emojis") or []
                return f"signal {emojis[int(view.get('round') or 0) % len(emojis)]}" if emojis else None
            return number_of(menu, entries["ready"]) if "ready" in entries else None
        if phase == "round_over":
            return number_of(menu, entries["start_next_round"]) if "start_next_round" in entries else None
        if phase != "playing":
            return None
        return self._play(menu, view, entries)

    def _play(self, menu: Menu, view: dict[str, Any], entries: dict[str, dict[str, Any]]) -> str | None:
        signal = (view.get("signal") or {}).get("signal")
        floor = {int(hold["seat"]): hold.get("emoji") for hold in view.get("floor") or []}
        me, partner, hand = int(view["seat"]), int(view["partner"]), list(view.get("hand") or [])
        quatro = next((a for _, a in menu.entries if a["type"] == "quatro" and not a.get("confirm")), None)
        if signal and floor.get(partner) == signal and quatro is not None:  # QU-8: the partner's cue
            return number_of(menu, quatro)
        if len(hand) == 4 and len({rank(card) for card in hand}) == 1:  # QU-7: tell the partner
            if me not in floor:
                return number_of(menu, entries["take_floor"]) if "take_floor" in entries else None
            return f"show {signal}" if signal and floor[me] != signal else None
        if me in floor:
            return number_of(menu, entries["release_floor"]) if "release_floor" in entries else None
        return exchange_command(hand, view)


def exchange_command(hand: list[str], view: dict[str, Any]) -> str | None:
    """``x H C``: give a card of a value held least for a centre card of the value held most."""
    if (view.get("exchange_free_at") or 0) > (view.get("clock") or 0):
        return None  # QU-6: cooling down; the "exchange_ready" event brings a new menu
    center = list(view.get("center") or [])
    held = Counter(rank(card) for card in hand)
    offered = Counter(rank(card) for card in center if isinstance(card, str))
    if not hand:
        return None
    target = max(held, key=lambda value: (held[value], offered[value]))
    if not offered[target]:
        return None
    center_slot = next(slot for slot, card in enumerate(center) if isinstance(card, str) and rank(card) == target)
    giveaway = min((slot for slot, card in enumerate(hand) if rank(card) != target), key=lambda slot: held[rank(hand[slot])], default=None)
    return None if giveaway is None else f"x {giveaway + 1} {center_slot + 1}"


class LatestLines(ScriptedLines):
    """A real-time player: a new menu replaces any answer not yet read (it was about an older screen)."""

    def offer(self, menu: Menu) -> None:
        while not self.queue.empty():
            self.queue.get_nowait()
        super().offer(menu)


# -- the games -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("cambio", 2, {}),
        ("cabo", 2, {}),
    ],
)
async def test_a_four_card_game_is_played_to_the_end_against_robots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, seats: int, options: dict[str, Any]
) -> None:
    request = PlayRequest(game, seats, options={**options, **FAST_ROBOTS})
    played = await play_to_the_end(tmp_path, monkeypatch, request, ScriptedLines(FourCardPlayer()))
    assert_played_to_the_end(played, game)
    assert any("match over" in line for line in played.output)


async def test_golf_extreme_plays_three_holes_at_three_seats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    request = PlayRequest("golf", 3, options={"mode": "extreme", "holes": 3, **FAST_ROBOTS})
    played = await play_to_the_end(tmp_path, monkeypatch, request, ScriptedLines(FourCardPlayer()))
    assert_played_to_the_end(played, "golf")
    assert "round 3 of 3" in played.text and "(seat 3)" in played.text
    assert sum(1 for line in played.output if "Round 3 over" in line) >= 1


async def test_tower_one_round_against_a_robot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    request = PlayRequest("tower", 2, options={"rounds": 1, **FAST_ROBOTS})
    played = await play_to_the_end(tmp_path, monkeypatch, request, ScriptedLines(TowerPlayer()))
    assert_played_to_the_end(played, "tower")
    assert "Tower — round 1 of 1" in played.text and "Your hand:" in played.text
    assert "TOWER MASTER" in played.text


async def test_quatro_with_a_robot_partner_against_two_robots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    request = PlayRequest("quatro", 4, options=QUATRO_ROBOTS)
    played = await play_to_the_end(tmp_path, monkeypatch, request, LatestLines(QuatroPlayer()), clock_speed=QUATRO_CLOCK_SPEED)
    assert_played_to_the_end(played, "quatro")
    assert "Round 1 over" in played.text
    assert "Partner: " in played.text and "Team signal" in played.text
    assert "¡Blank!" not in played.text  # a round nobody called reads "no call, nobody scores"


# -- the checks themselves -------------------------------------------------------------------------


def test_the_leak_check_catches_a_card_never_sent_and_a_card_drawn_at_the_wrong_place() -> None:
    sight = Sight()
    sight.seat = 0
    sight.cards = {"QS", "4H"}
    sight.events = [{"kind": "first_look", "cards": [{"slot": 1, "card": "QS"}, {"slot": 2, "card": "4H"}]}]
    fine = "  You                      1:[?] 2:[QS] 3:[4H] 4:[?]   total 0"
    assert leaks_of(fine, sight, four_card_family=True) == []
    misplaced = "  You                      1:[QS] 2:[?] 3:[4H] 4:[?]   total 0"
    assert leaks_of(misplaced, sight, four_card_family=True) == ["seat 1 slot 1 face up as QS"]
    unsent = "> Robot 1 (seat 2)         1:[9C] 2:[?] 3:[?] 4:[?]   total 0"
    assert leaks_of(unsent, sight, four_card_family=True) == ["card 9C", "seat 2 slot 1 face up as 9C"]
    numbered = "> Robot 1 (seat 2)         1:[7] 2:[?] 3:[ ] 4:[?]   total 0"  # Cabo: caught by place alone
    assert leaks_of(numbered, sight, four_card_family=True) == ["seat 2 slot 1 face up as 7"]


def test_a_blank_quatro_round_reads_as_no_call() -> None:
    """QU-10: the engine reports a round nobody called as a "blank" call by no seat."""
    event = {"kind": "round_ended", "round": 2, "call": {"kind": "blank", "seat": None, "team": None, "correct": False}}
    line = QuatroScreen().narrate(event, 0, ["Ann", "Bob", "Cy", "Di"])
    assert line == "Round 2 over: no call, nobody scores"
