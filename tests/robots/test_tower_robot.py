"""The `tower` robot: whole matches with legal actions only, from its view and events alone, and play
that follows the rules file's spirit (TO-5 setup, TO-6 fours, TO-7 Tower 4s kept, TO-10 flips).

Robot-only rounds must always end (TO-15): uncleared low cards can otherwise pass between seats for
ever. The long check is by hand: ``python -m tests.bench.selfplay --game tower --matches 1000``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from shared.games import registry
from shared.games.base import Event, Setup
from shared.games.tower import TOWER, TowerState
from shared.robots.tower import SETTLE_TURNS_PER_SEAT, TowerRobot
from tests.bench.selfplay import play_match as selfplay_match

VARIATIONS = ["hot_fives", "skip_sixes", "high_sevens", "reverse_eights"]
ALL_COMBINATIONS = [[v for i, v in enumerate(VARIATIONS) if mask >> i & 1] for mask in range(16)]
MOVE_LIMIT = 20000  # far above any match seen; a robot that never finishes fails instead of hanging
STRENGTH_GAMES = 30  # enough two-seat rounds for the robot's edge over random play to show
ENDING_MATCHES = 200  # one-round robot matches per seat count: seconds, and they once looped 1 in ~150
LOOPING_SEEDS = (137, 820)  # selfplay seeds whose 2-seat, 10-round matches once never ended


def play_match(
    seats: int, rounds: int, seed: int, forced_variations: list[str] | None = None, robot_seats: set[int] | None = None
) -> tuple[TowerState, int]:
    """Robots play every seat in ``robot_seats`` (default all); other seats play a random legal play."""
    options = TOWER.check_options({"rounds": rounds}, seats)
    state, events = TOWER.start(Setup(seats=seats, options=options, seed=seed))
    robot_seats = set(range(seats)) if robot_seats is None else robot_seats
    robots = {s: registry.robot("tower", s, seats, options, seed) for s in robot_seats}
    chance = random.Random(seed)

    def deliver(new_events: list[Event]) -> None:
        for event in new_events:
            for seat, robot in robots.items():
                if event.audience.includes(seat):
                    robot.observe(event.to_json())

    deliver(events)
    moves = 0
    while TOWER.result(state) is None:
        assert moves < MOVE_LIMIT, "the match did not end"
        mover = TOWER.to_move(state)
        assert mover is not None
        legal = TOWER.legal_actions(state, mover)
        if forced_variations is not None and legal[0]["type"] == "setup" and TOWER.inspect(state)["round"] > 1:
            action = {"type": "setup", "direction": "right", "variations": forced_variations}
        elif mover in robots:
            action = robots[mover].choose(TOWER.view(state, mover), legal, 0.0)
        else:
            plays = [a for a in legal if a["type"] != "pick_up"]
            action = chance.choice(plays or legal)
        assert action in legal, f"{action} is not legal"
        state, events = TOWER.apply(state, mover, action, 0.0)
        deliver(events)
        moves += 1
    return state, moves


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_robots_play_one_round_matches_to_the_end(seats: int) -> None:
    state, _ = play_match(seats, 1, seed=seats)
    result = TOWER.result(state)
    assert result is not None and result.rounds == 1 and len(result.standings) == seats


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_to15_robot_only_rounds_always_end(seats: int) -> None:
    """TO-15: some seat goes out in every round, whatever the deal (MOVE_LIMIT actions at most)."""
    for seed in range(ENDING_MATCHES):
        state, moves = play_match(seats, 1, seed=1000 * seats + seed)
        assert TOWER.result(state) is not None and moves < MOVE_LIMIT


@pytest.mark.parametrize("seed", LOOPING_SEEDS)
def test_to16_selfplay_matches_that_once_looped_now_end(seed: int) -> None:
    """TO-16: the bench's 2-seat, 10-round matches for these seeds reach the match end."""
    played = selfplay_match("tower", 2, {}, seed)
    assert played["stats"]["rounds"] == 10


@pytest.mark.parametrize("variations", ALL_COMBINATIONS, ids=lambda v: "+".join(v) or "none")
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_robots_play_three_round_matches_under_every_variation_combination(seats: int, variations: list[str]) -> None:
    state, _ = play_match(seats, 3, seed=seats * 31 + len(variations), forced_variations=variations)
    result = TOWER.result(state)
    assert result is not None and result.rounds == 3


def test_robot_holders_choose_their_own_setups_legally() -> None:
    for seed in range(4):
        state, _ = play_match(3, 3, seed=seed)
        assert TOWER.result(state) is not None


def test_robot_is_deterministic_for_its_seed() -> None:
    assert play_match(4, 1, seed=9)[1] == play_match(4, 1, seed=9)[1]


def test_robot_beats_random_play_at_two_seats() -> None:
    wins = 0
    for seed in range(STRENGTH_GAMES):
        robot_seat = seed % 2
        state, _ = play_match(2, 1, seed=seed, robot_seats={robot_seat})
        result = TOWER.result(state)
        assert result is not None
        wins += robot_seat in result.winners
    assert wins >= STRENGTH_GAMES * 2 // 3


# ---------------------------------------------------------------- single decisions


def position(seats: list[dict[str, Any]], first: int = 0) -> TowerState:
    options = TOWER.check_options({"rounds": 1}, len(seats))
    state, _ = TOWER.start(Setup(seats=len(seats), options=options, deals=[{"seats": seats}], first=first))
    return TOWER.apply(state, first, {"type": "setup", "direction": "left", "variations": []}, 0.0)[0]


def robot_choice(state: TowerState, seat: int) -> dict[str, Any]:
    robot = TowerRobot(game_id="tower", seat=seat, seats=state.seats, options={"rounds": 1}, seed=1)
    choice = robot.choose(TOWER.view(state, seat), TOWER.legal_actions(state, seat), 0.0)
    assert choice is not None
    return choice


def test_robot_keeps_its_tower_four_on_an_empty_arena() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": ["KS", "2H", "3H", "6H"], "hand": ["4H", "9S", "JS"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "3D", "6D"], "hand": ["AD"]}])
    assert "4H" not in robot_choice(state, 0)["hand"]


def test_robot_spends_a_tower_four_rather_than_pick_up_a_big_arena() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": ["KS", "2H", "3H", "6H"], "hand": ["QH", "JH", "AS"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "3D", "6D"], "hand": ["4D", "KD", "KC"]}])
    state = TOWER.apply(state, 0, {"type": "play", "hand": ["AS"]}, 0.0)[0]
    assert robot_choice(state, 1) == {"type": "play", "hand": ["4D"], "up": []}


def test_robot_completes_four_to_go_again() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": ["KS", "2H", "3H", "6H"], "hand": ["9S", "9H"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "3D", "6D"],
                       "hand": ["9D", "9C", "KD", "8D"]}])
    state = TOWER.apply(state, 0, {"type": "play", "hand": ["9S", "9H"]}, 0.0)[0]
    choice = robot_choice(state, 1)
    assert sorted(choice["hand"]) == ["9C", "9D"]


def test_robot_plays_its_flipped_card_with_its_matches() -> None:
    state = position([{"down": ["5C", "7S", "JD", "6C"], "up": [None] * 4, "hand": ["5S", "5H", "QH"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["7C", "2D", "3D", "6D"], "hand": ["AD"]}], first=1)
    state = TOWER.apply(state, 1, {"type": "play", "hand": [], "up": [0]}, 0.0)[0]
    state = TOWER.apply(state, 0, {"type": "flip", "slot": 0}, 0.0)[0]
    choice = robot_choice(state, 0)
    assert choice["down"] == [0] and sorted(choice["hand"]) == ["5H", "5S"]


def test_robot_starts_an_arena_with_a_high_card() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": ["KS", "2H", "3H", "6H"], "hand": ["QH", "2S", "3S"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "3D", "6D"], "hand": ["AD"]}])
    assert robot_choice(state, 0) == {"type": "play", "hand": [], "up": [0]}


def test_to6_robot_follows_with_the_highest_rank_and_keeps_low_blockers() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": ["KS", "2H", "3H", "6H"], "hand": ["9S", "JH"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "JD", "6D"],
                       "hand": ["8D", "3C", "3D", "3S"]}])
    state = TOWER.apply(state, 0, {"type": "play", "hand": ["9S"]}, 0.0)[0]
    assert robot_choice(state, 1) == {"type": "play", "hand": ["8D"], "up": []}


def test_robot_tries_another_play_when_a_position_comes_back() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": ["KS", "2H", "3H", "6H"], "hand": ["9S", "JH"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "JD", "6D"], "hand": ["AD"]}])
    robot = TowerRobot(game_id="tower", seat=0, seats=2, options={"rounds": 1}, seed=1)
    view, legal = TOWER.view(state, 0), TOWER.legal_actions(state, 0)
    first, again = robot.choose(view, legal, 0.0), robot.choose(view, legal, 0.0)
    assert first in legal and again in legal and first != again


def settling_robot(seat: int) -> TowerRobot:
    """A robot that has seen a round run past the settling point (public turn events)."""
    robot = TowerRobot(game_id="tower", seat=seat, seats=2, options={"rounds": 1}, seed=1)
    for turn in range(SETTLE_TURNS_PER_SEAT * 2):
        robot.observe({"kind": "turn", "seat": turn % 2})
    return robot


def long_round_position() -> TowerState:
    """Seat 0 (6 cards left) led a King; seat 1 (11 cards) could play on it."""
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": [None] * 4, "hand": ["KH", "QH"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "3D", "6D"],
                       "hand": ["AD", "9S", "JS"]}])
    return TOWER.apply(state, 0, {"type": "play", "hand": ["KH"]}, 0.0)[0]


def test_to8_in_a_long_round_the_robot_picks_up_so_the_seat_nearest_out_leads_again() -> None:
    state = long_round_position()
    assert robot_choice(state, 1)["type"] == "play"  # a normal round: it never picks up needlessly
    robot = settling_robot(1)
    assert robot.choose(TOWER.view(state, 1), TOWER.legal_actions(state, 1), 0.0) == {"type": "pick_up"}


def test_to15_the_seat_nearest_out_keeps_playing_in_a_long_round() -> None:
    state = position([{"down": ["2C", "3C", "5C", "6C"], "up": [None] * 4, "hand": ["KH", "8H"]},
                      {"down": ["8C", "9C", "10C", "JC"], "up": ["QS", "2D", "3D", "6D"],
                       "hand": ["AD", "9S", "JS"]}], first=1)
    state = TOWER.apply(state, 1, {"type": "play", "hand": ["9S"]}, 0.0)[0]
    robot = settling_robot(0)
    assert robot.choose(TOWER.view(state, 0), TOWER.legal_actions(state, 0), 0.0) == {
        "type": "play", "hand": ["8H"], "up": []}
