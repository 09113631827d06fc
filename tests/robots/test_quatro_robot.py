"""The Quatro robot (rules/quatro.md QU-15): it plays through its view, agrees a signal with a
robot partner, shows it on a quartet, calls for its partner, accuses suspicious opponents, never
votes, and lets a human partner win."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pytest

from shared.games.base import Event, Json, Setup
from shared.games.quatro import QUATRO, SIGNALS
from shared.robots.quatro import QuatroRobot

STEP_SECONDS = 0.25  # the clock moves in small steps, every robot may act at each
MATCH_TIME_LIMIT = 5000.0  # a match of robots ends long before (a round lasts at most 3.5 min)

FOUR_DEAL: dict[str, Any] = {
    "hands": [["AH", "KH", "JH", "10H"], ["AS", "KS", "JS", "10S"], ["QH", "QS", "QD", "QC"], ["AD", "KD", "JD", "10D"]],
    "center": ["AC", "KC", "JC", "10C"],
}
QUIET_DEAL: dict[str, Any] = {
    "hands": [["AH", "KH", "JH", "10H"], ["AS", "KS", "JS", "10S"], ["QH", "QS", "AD", "KD"], ["QD", "QC", "JD", "10D"]],
    "center": ["AC", "KC", "JC", "10C"],
}

Human = Callable[[Mapping[str, Json], list[dict[str, Json]], float], "dict[str, Json] | None"]


class RobotTable:
    """A table where some seats are ``QuatroRobot``s and others are scripted humans."""

    def __init__(self, seats: int, seed: int, robots: set[int], deals: tuple[Mapping[str, Json], ...] = ()) -> None:
        setup = Setup(seats=seats, options=QUATRO.check_options({}, seats), seed=seed, deals=deals, robots=frozenset(robots))
        self.seats = seats
        self.state, events = QUATRO.start(setup)
        self.robots = {seat: QuatroRobot(game_id="quatro", seat=seat, seats=seats, options={}, seed=seed) for seat in robots}
        self.humans: dict[int, Human] = {}
        self.now = 0.0
        self.log: list[tuple[int, dict[str, Json]]] = []
        self.events: list[Event] = []
        self.deliver(events)

    def deliver(self, events: list[Event]) -> None:
        self.events += events
        for event in events:
            for seat, robot in self.robots.items():
                if event.audience.includes(seat):
                    robot.observe(event.to_json())

    def act(self, seat: int, action: Mapping[str, Json]) -> None:
        self.state, events = QUATRO.apply(self.state, seat, action, self.now)
        self.log.append((seat, dict(action)))
        self.deliver(events)

    def let_everyone_act(self) -> None:
        """Each seat in turn may act (robots from their view and legal actions only)."""
        for _ in range(50):
            acted = False
            for seat in range(self.seats):
                legal = QUATRO.legal_actions(self.state, seat)
                view = QUATRO.view(self.state, seat)
                player = self.robots[seat].choose if seat in self.robots else self.humans.get(seat)
                choice = player(view, legal, self.now) if player is not None else None
                if choice is not None:
                    assert choice in legal
                    self.act(seat, choice)
                    acted = True
            if not acted:
                return

    def tick(self) -> None:
        self.now += STEP_SECONDS
        self.state, events = QUATRO.advance(self.state, self.now)
        self.deliver(events)

    def play_until(self, done: Callable[[], bool]) -> None:
        while not done() and self.now < MATCH_TIME_LIMIT:
            self.let_everyone_act()
            if done():
                return
            self.tick()


@pytest.mark.parametrize(("seats", "seed"), [(4, 1), (4, 2), (6, 3), (8, 4)])
def test_qu15_robots_play_a_whole_match_to_the_end(seats: int, seed: int) -> None:
    table = RobotTable(seats, seed, set(range(seats)))
    table.play_until(lambda: QUATRO.result(table.state) is not None)
    result = QUATRO.result(table.state)
    assert result is not None and max(standing.total for standing in result.standings) >= 5
    calls = [event.data["call"] for event in table.events if event.kind == "round_ended"]
    assert sum(1 for call in calls if call["correct"]) > len(calls) / 2  # they play competently


def test_qu15_robots_agree_their_team_signal_and_never_vote() -> None:
    table = RobotTable(4, 5, {0, 1, 2, 3})
    table.play_until(lambda: QUATRO.result(table.state) is not None)
    chosen = [event for event in table.events if event.kind == "team_signal" and event.data.get("chosen_by") is not None]
    assert {event.data["team"] for event in chosen if event.data.get("chosen_by") is not None} == {0, 1}
    assert not any(action["type"] in ("vote", "propose_reshuffle") for _, action in table.log)


def test_qu15_a_robot_with_a_quartet_shows_the_signal_and_does_not_call_it_itself() -> None:
    table = RobotTable(4, 7, {2}, deals=(FOUR_DEAL,))
    table.let_everyone_act()
    signal = QUATRO.inspect(table.state)["signals"]["0"]
    assert QUATRO.view(table.state, 0)["signal"] == {"team": 0, "signal": signal}  # told like any signal
    table.now = 30
    table.tick()
    table.let_everyone_act()
    assert QUATRO.view(table.state, 0)["floor"] == [{"seat": 2, "emoji": signal}]
    assert not any(action["type"] == "quatro" for _, action in table.log)
    table.act(0, {"type": "quatro"})  # the human partner reads the signal and wins the round
    assert QUATRO.inspect(table.state)["round_scores"] == [1, 0]


def test_qu15_a_robot_calls_quatro_when_its_human_partner_shows_the_signal() -> None:
    table = RobotTable(4, 7, {0}, deals=(FOUR_DEAL,))
    table.act(2, {"type": "choose_signal", "emoji": SIGNALS[5]})
    table.now = 30
    table.tick()
    table.act(2, {"type": "take_floor"})
    table.let_everyone_act()
    assert QUATRO.inspect(table.state)["phase"] == "playing"  # nothing shown yet: nothing to call
    table.act(2, {"type": "show", "emoji": SIGNALS[5]})
    table.let_everyone_act()
    assert QUATRO.inspect(table.state)["round_scores"] == [1, 0]
    assert table.log[-1] == (0, {"type": "quatro", "confirm": False})


def test_qu15_a_robot_accuses_an_opponent_who_shows_right_after_an_exchange_burst() -> None:
    table = RobotTable(4, 7, {0}, deals=(QUIET_DEAL,))
    table.now = 30
    table.tick()
    table.act(3, {"type": "exchange", "hand_slot": 2, "center_slot": 2, "expect": "JC"})
    table.act(3, {"type": "take_floor"})
    table.act(3, {"type": "show", "emoji": SIGNALS[9]})
    table.let_everyone_act()
    assert QUATRO.inspect(table.state)["phase"] == "playing"  # it leaves the partner the first word
    for _ in range(4):
        table.tick()
        table.let_everyone_act()
    assert (0, {"type": "contra", "team": 1}) in table.log
    assert QUATRO.inspect(table.state)["round_scores"] == [0, 1]  # a decoy: the accused team scores


def test_qu15_a_robot_ignores_a_single_calm_show_and_its_own_partner() -> None:
    table = RobotTable(4, 7, {0}, deals=(QUIET_DEAL,))
    table.now = 30
    table.tick()
    table.act(1, {"type": "take_floor"})
    table.act(2, {"type": "take_floor"})
    table.act(1, {"type": "show", "emoji": SIGNALS[9]})
    table.act(2, {"type": "show", "emoji": SIGNALS[10]})
    for _ in range(20):
        table.tick()
        table.let_everyone_act()
    assert not any(action["type"] == "contra" for _, action in table.log)


def test_qu15_a_robot_builds_toward_the_value_it_holds_most() -> None:
    deal = {
        "hands": [["AH", "AS", "KH", "JH"], ["KS", "JS", "10S", "10H"], ["QH", "QS", "KD", "JD"], ["QD", "QC", "10D", "10C"]],
        "center": ["AD", "KC", "JC", "AC"],
    }
    table = RobotTable(4, 7, {0}, deals=(deal,))
    table.now = 30
    table.tick()
    table.let_everyone_act()
    assert table.log[-1][0] == 0 and table.log[-1][1]["expect"] in ("AD", "AC")
    table.let_everyone_act()
    assert len(table.log) == 1  # the cooldown holds it (QU-6)
    for _ in range(8):
        table.tick()
        table.let_everyone_act()
    assert sorted(QUATRO.inspect(table.state)["hands"]["0"]) == ["AC", "AD", "AH", "AS"]


def _calling_human(seat: int) -> Human:
    """A human who watches the partner's floor and calls on the team signal, and never exchanges."""

    def play(view: Mapping[str, Json], legal: list[dict[str, Json]], now: float) -> dict[str, Json] | None:
        signal = view.get("signal")
        shown = {entry["seat"]: entry["emoji"] for entry in view.get("floor", [])}
        if isinstance(signal, Mapping) and shown.get(view.get("partner")) == signal["signal"]:
            return next(action for action in legal if action["type"] == "quatro")
        return None

    return play


def test_qu15_a_human_partnered_with_a_robot_can_win_the_match() -> None:
    wins = 0
    for seed in range(6):
        table = RobotTable(4, seed, {1, 2, 3})
        table.humans[0] = _calling_human(0)
        table.play_until(lambda: QUATRO.result(table.state) is not None)
        result = QUATRO.result(table.state)
        assert result is not None
        wins += result.standings[0].outcome == "win"
        if wins:
            break
    assert wins


def test_qu15_a_robot_is_deterministic_for_its_seed() -> None:
    logs = []
    for _ in range(2):
        table = RobotTable(4, 11, {0, 1, 2, 3})
        table.play_until(lambda: QUATRO.inspect(table.state)["round"] >= 3)
        logs.append(table.log)
    assert logs[0] == logs[1]
