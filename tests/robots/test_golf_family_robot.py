"""The golf-family robot: legal, deterministic, remembers what it was shown, and plays sensibly."""

from __future__ import annotations

from typing import Any

import pytest

from shared.games.base import Event, Setup
from shared.games.golf_family import CABO, CAMBIO, FOUR_DOWN, GOLF, GolfFamilyEngine
from shared.games.golf_family.scoring import card_total
from shared.games.registry import robot as registry_robot
from shared.robots.golf_family import GolfFamilyRobot

MATCHES_FOR_FIGURES = 12  # enough to see the shape of self-play, small enough to stay fast
MAX_ACTIONS = 20_000  # a bound so that a robot that never finishes fails, not hangs


def deliver(robots: list[GolfFamilyRobot], events: list[Event]) -> None:
    for event in events:
        for robot in robots:
            if event.audience.includes(robot.seat):
                robot.observe(event.to_json())


def self_play(game: GolfFamilyEngine, options: dict[str, Any], seats: int, seed: int) -> tuple[Any, list[bool]]:
    """Robots in every seat, to the match end; returns the end state and, per call, whether the caller was lowest."""
    chosen = game.check_options(options, seats)
    state, events = game.start(Setup(seats=seats, options=chosen, seed=seed))
    robots = [GolfFamilyRobot(game_id=game.id, seat=seat, seats=seats, options=chosen, seed=seed) for seat in range(seats)]
    deliver(robots, events)
    callers_lowest: list[bool] = []
    for _ in range(MAX_ACTIONS):
        if game.result(state) is not None:
            return state, callers_lowest
        seat = game.to_move(state)
        assert seat is not None
        legal = game.legal_actions(state, seat)
        action = robots[seat].choose(game.view(state, seat), legal, 0.0)
        assert action in legal
        state, events = game.apply(state, seat, action, 0.0)
        deliver(robots, events)
        for event in events:
            if event.kind == "round_ended" and event.data["caller"] is not None:
                cards = [card_total(game.rules, tuple(row)) for row in event.data["hands"]]
                callers_lowest.append(cards[event.data["caller"]] == min(cards))
    raise AssertionError("the match did not end")


@pytest.mark.parametrize(
    ("game", "options"),
    [(FOUR_DOWN, {}), (GOLF, {"mode": "extreme", "holes": 9}), (GOLF, {"holes": 3}), (CAMBIO, {}), (CABO, {"jack_looks": True})],
)
def test_robots_play_a_whole_two_seat_match_with_legal_actions(game: GolfFamilyEngine, options: dict[str, Any]) -> None:
    state, _ = self_play(game, options, 2, seed=17)
    assert game.inspect(state)["phase"] == "match_over"


def test_robots_play_four_seats() -> None:
    state, _ = self_play(FOUR_DOWN, {}, 4, seed=5)
    assert FOUR_DOWN.result(state) is not None


@pytest.mark.parametrize("mode", ["classic", "extreme"])
@pytest.mark.parametrize("seats", [5, 6])
def test_robots_end_every_golf_hole_at_five_and_six_seats(mode: str, seats: int) -> None:
    """GO-4, GO-6: only a knock ends a hole whose stock is rebuilt; robots must knock at last."""
    for seed in range(3):
        state, _ = self_play(GOLF, {"mode": mode, "holes": 9}, seats, seed)
        assert GOLF.inspect(state)["phase"] == "match_over"


def test_four_down_self_play_figures_near_the_seed() -> None:
    """Seed 000: a match runs about ten rounds; the caller is lowest about seven times in ten."""
    rounds, lowest = [], []
    for seed in range(MATCHES_FOR_FIGURES):
        state, callers_lowest = self_play(FOUR_DOWN, {}, 2, seed)
        rounds.append(FOUR_DOWN.result(state).rounds)
        lowest += callers_lowest
    assert 6 <= sum(rounds) / len(rounds) <= 14
    assert 0.55 <= sum(lowest) / len(lowest) <= 0.9


def test_robot_is_deterministic_for_its_seed() -> None:
    first, _ = self_play(CAMBIO, {}, 3, seed=8)
    second, _ = self_play(CAMBIO, {}, 3, seed=8)
    assert CAMBIO.inspect(first) == CAMBIO.inspect(second)


def test_registry_builds_the_robot() -> None:
    made = registry_robot("cabo", 1, 2, CABO.check_options({}, 2), 3)
    assert isinstance(made, GolfFamilyRobot) and made.seat == 1


def _table(rows: list[list[str]], stock: list[str], discard: str = "4C") -> tuple[Any, GolfFamilyRobot]:
    options = FOUR_DOWN.check_options({}, 2)
    deal = {"hands": rows, "discard": [discard], "stock": stock}
    state, events = FOUR_DOWN.start(Setup(seats=2, options=options, deals=[deal]))
    robot = GolfFamilyRobot(game_id="four_down", seat=0, seats=2, options=options, seed=1)
    deliver([robot], events)
    return state, robot


def test_robot_remembers_its_first_look_and_follows_public_swaps() -> None:
    state, robot = _table([["5H", "KD", "9C", "2S"], ["QS", "3H", "7D", "KS"]], ["8H", "JH", "2C"])
    assert robot.memory == {(0, 1): "KD", (0, 2): "9C"}
    state, events = FOUR_DOWN.apply(state, 0, {"type": "draw", "from": "stock"}, 0.0)
    deliver([robot], events)
    state, events = FOUR_DOWN.apply(state, 0, {"type": "discard"}, 0.0)
    deliver([robot], events)
    state, events = FOUR_DOWN.apply(state, 1, {"type": "draw", "from": "stock"}, 0.0)
    deliver([robot], events)
    state, events = FOUR_DOWN.apply(state, 1, {"type": "power", "targets": [[0, 1], [1, 0]]}, 0.0)
    deliver([robot], events)
    assert robot.memory == {(1, 0): "KD", (0, 2): "9C"}


def test_robot_matches_only_a_card_it_is_sure_of() -> None:
    state, robot = _table([["5H", "KD", "9C", "2S"], ["QS", "3H", "7D", "KS"]], ["9H", "2C"])
    state, events = FOUR_DOWN.apply(state, 0, {"type": "draw", "from": "stock"}, 0.0)
    deliver([robot], events)
    action = robot.choose(FOUR_DOWN.view(state, 0), FOUR_DOWN.legal_actions(state, 0), 0.0)
    assert action == {"type": "match", "target": [0, 2]}


def test_robot_takes_a_discard_that_beats_a_known_card() -> None:
    state, robot = _table([["5H", "KS", "9C", "2S"], ["QS", "3H", "7D", "KC"]], ["8H"], discard="AH")
    action = robot.choose(FOUR_DOWN.view(state, 0), FOUR_DOWN.legal_actions(state, 0), 0.0)
    assert action == {"type": "draw", "from": "discard"}
    state, events = FOUR_DOWN.apply(state, 0, action, 0.0)
    deliver([robot], events)
    assert robot.choose(FOUR_DOWN.view(state, 0), FOUR_DOWN.legal_actions(state, 0), 0.0) == {"type": "replace", "slot": 1}
