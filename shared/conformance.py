"""``cardroom-conformance``: plays JSON rule scenarios through the engines.

The scenario format is the project's contract with the rules (see the conformance FORMAT.md the
rules team publishes): an exact deal, a list of actions, and checks on the truth of the table and
on everything each seat was sent. A scenario that uses anything this runner does not know fails
with the reason; nothing passes silently.

Usage: ``cardroom-conformance PATH...`` (files, or folders searched for ``*.json``). Prints
``PASS name`` / ``FAIL name: why`` per scenario and ``N passed, M failed`` last; exits 1 if any
scenario failed or could not be read.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from shared.games import registry
from shared.games.base import Event, Game, Json, Rejection, Setup
from shared.robots.base import Robot

SCALAR_CHECKS = (
    "center",
    "discard_top",
    "discard_size",
    "stock_size",
    "arena",
    "arena_count",
    "turn",
    "phase",
    "round",
    "round_scores",
    "totals",
    "caller",
)
SET_CHECKS = ("winners",)
STEP_KEYS = {"seat", "do", "reject", "at", "expect", "robot"}
SCENARIO_KEYS = {"name", "game", "options", "seats", "seed", "deals", "steps", "first", "description"}
SPECTATOR = "spectator"
ROBOT_MOVES_PER_STEP = 5000  # a bound so that a robot that never ends its turn fails, not hangs


class ScenarioFailure(Exception):
    """The scenario does not hold; the message says where and why."""


@dataclass
class Table:
    """One scenario's table as the runner plays it: the truth plus what each seat was sent."""

    game: Game[Any]
    seats: int
    options: Mapping[str, Json]
    seed: int
    state: Any
    now: float = 0.0
    sent: dict[str, list[Json]] = field(default_factory=dict)
    robots: dict[int, Robot] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    def audiences(self) -> list[tuple[str, int | None]]:
        return [(str(seat), seat) for seat in range(self.seats)] + [(SPECTATOR, None)]

    def deliver(self, events: Iterable[Event]) -> None:
        for event in events:
            self.events.append(event)
            for key, seat in self.audiences():
                if event.audience.includes(seat):
                    self.sent[key].append(event.to_json())
                    if seat is not None and seat in self.robots:
                        self.robots[seat].observe(event.to_json())
        self.record_views()

    def hand_to_robot(self, seat: int) -> None:
        """From now on the project's robot plays ``seat``, knowing what the seat was sent so far
        (as the table service's robots do)."""
        robot = registry.robot(self.game.id, seat, self.seats, self.options, self.seed)
        for event in self.events:
            if event.audience.includes(seat):
                robot.observe(event.to_json())
        self.robots[seat] = robot

    def record_views(self) -> None:
        for key, seat in self.audiences():
            self.sent[key].append(self.game.view(self.state, seat))

    def act(self, seat: int, action: Mapping[str, Json]) -> None:
        self.state, events = self.game.apply(self.state, seat, action, self.now)
        self.deliver(events)

    def advance(self, now: float) -> None:
        if now < self.now:
            raise ScenarioFailure(f"time moves forward only: at {now} after {self.now}")
        self.now = now
        self.state, events = self.game.advance(self.state, now)
        self.deliver(events)

    def play_robots(self) -> None:
        """Let robot seats act while one of them may: the seat to move, or any (real time)."""
        for _ in range(ROBOT_MOVES_PER_STEP):
            if not self.robots or self.game.result(self.state) is not None:
                return
            mover = self.game.to_move(self.state)
            candidates = [mover] if mover is not None else sorted(self.robots)
            acted = False
            for seat in candidates:
                if seat not in self.robots:
                    continue
                legal = self.game.legal_actions(self.state, seat)
                if not legal:
                    continue
                choice = self.robots[seat].choose(self.game.view(self.state, seat), legal, self.now)
                if choice is None:
                    continue
                self.act(seat, choice)
                acted = True
                break
            if not acted:
                return
        raise ScenarioFailure(f"robots made {ROBOT_MOVES_PER_STEP} moves in one step without stopping")


def strings_in(value: Json) -> Iterator[str]:
    """Every string inside a JSON value (keys excluded): where a card could be carried."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


def signals_told(sent: list[Json], team: int) -> set[str]:
    """Emojis this stream was told as ``team``'s signal (an object with "team" and "signal")."""
    found: set[str] = set()

    def walk(value: Json) -> None:
        if isinstance(value, Mapping):
            if value.get("team") == team and isinstance(value.get("signal"), str):
                found.add(value["signal"])
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    for message in sent:
        walk(message)
    return found


def _normalise_hands(expected: Json, actual: Json) -> tuple[Json, Json]:
    """Tower hands compare as multisets; everything else exactly."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        actual = {key: actual.get(key) for key in expected}
        if "hand" in expected and isinstance(actual.get("hand"), list):
            actual["hand"] = sorted(Counter(actual["hand"]).elements())
            expected = {**expected, "hand": sorted(Counter(expected["hand"]).elements())}
    return expected, actual


def check(table: Table, expect: Mapping[str, Json]) -> None:
    truth = table.game.inspect(table.state)
    for key, wanted in expect.items():
        if key in SCALAR_CHECKS:
            if key not in truth:
                raise ScenarioFailure(f"{table.game.id} has no {key!r} to check")
            if truth[key] != wanted:
                raise ScenarioFailure(f"{key}: expected {wanted!r}, table has {truth[key]!r}")
        elif key in SET_CHECKS:
            if sorted(truth.get(key) or []) != sorted(wanted or []):
                raise ScenarioFailure(f"{key}: expected {wanted!r}, table has {truth.get(key)!r}")
        elif key == "hands":
            for seat, wanted_hand in wanted.items():
                actual_hand = truth["hands"].get(str(seat))
                wanted_hand, actual_hand = _normalise_hands(wanted_hand, actual_hand)
                if actual_hand != wanted_hand:
                    raise ScenarioFailure(f"hands[{seat}]: expected {wanted_hand!r}, table has {actual_hand!r}")
        elif key == "seen":
            check_seen(table, wanted)
        elif key == "signal":
            check_signal(table, truth, wanted)
        else:
            raise ScenarioFailure(f"unknown check {key!r}")


def check_seen(table: Table, wanted: Mapping[str, Mapping[str, list[str]]]) -> None:
    for who, cards in wanted.items():
        if who not in table.sent:
            raise ScenarioFailure(f"seen: no seat or spectator {who!r}")
        unknown = set(cards) - {"has", "lacks"}
        if unknown:
            raise ScenarioFailure(f"seen[{who}]: unknown keys {sorted(unknown)}")
        sent = set().union(*(set(strings_in(message)) for message in table.sent[who]))
        missing = [card for card in cards.get("has", []) if card not in sent]
        leaked = [card for card in cards.get("lacks", []) if card in sent]
        if missing:
            raise ScenarioFailure(f"seen[{who}]: was never shown {missing}")
        if leaked:
            raise ScenarioFailure(f"seen[{who}]: was shown {leaked}, which it must not know")


def check_signal(table: Table, truth: Mapping[str, Json], wanted: Mapping[str, Json]) -> None:
    team = wanted["team"]
    signals = truth.get("signals")
    if not isinstance(signals, Mapping) or str(team) not in signals:
        raise ScenarioFailure(f"signal: team {team} has no signal on the table")
    emoji = signals[str(team)]
    told = sorted(seat for seat in range(table.seats) if emoji in signals_told(table.sent[str(seat)], team))
    if told != sorted(wanted["known_to"]):
        raise ScenarioFailure(f"signal: team {team}'s signal was told to seats {told}, expected {wanted['known_to']}")
    if emoji in signals_told(table.sent[SPECTATOR], team):
        raise ScenarioFailure(f"signal: team {team}'s signal reached a spectator")


def snapshot(table: Table) -> Json:
    return copy.deepcopy(
        (table.game.inspect(table.state), [table.game.view(table.state, seat) for _, seat in table.audiences()])
    )


def run_step(table: Table, index: int, step: Mapping[str, Json]) -> None:
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise ScenarioFailure(f"step {index}: unknown keys {sorted(unknown)}")
    if "at" in step:
        table.advance(float(step["at"]))
    if "robot" in step:
        table.hand_to_robot(int(step["robot"]))
    if "do" in step:
        run_action(table, index, step)
    if "expect" in step:
        check(table, step["expect"])
    if not {"at", "robot", "do", "expect"} & set(step):
        raise ScenarioFailure(f"step {index}: nothing to do")
    table.play_robots()


def run_action(table: Table, index: int, step: Mapping[str, Json]) -> None:
    if "seat" not in step:
        raise ScenarioFailure(f"step {index}: an action needs a seat")
    seat, action, reject = int(step["seat"]), step["do"], step.get("reject")
    before = snapshot(table)
    try:
        table.act(seat, action)
    except Rejection as rejection:
        if reject is None:
            raise ScenarioFailure(f"step {index}: {action} was refused: {rejection}") from rejection
        if rejection.reason != reject:
            raise ScenarioFailure(f"step {index}: expected {reject!r}, refused as {rejection.reason!r}") from rejection
        if snapshot(table) != before:
            raise ScenarioFailure(f"step {index}: the refusal changed the table")
        return
    if reject is not None:
        raise ScenarioFailure(f"step {index}: {action} was accepted, expected {reject!r}")


def run_scenario(scenario: Mapping[str, Json]) -> None:
    """Play one scenario; raises ``ScenarioFailure`` (or ``Rejection`` from set-up) if it does not hold."""
    unknown = set(scenario) - SCENARIO_KEYS
    if unknown:
        raise ScenarioFailure(f"unknown scenario keys {sorted(unknown)}")
    try:
        game = registry.game(scenario["game"])
    except registry.UnknownGame as error:
        raise ScenarioFailure(f"unknown game {scenario.get('game')!r}") from error
    seats = int(scenario["seats"])
    options = game.check_options(scenario.get("options", {}), seats)
    seed = int(scenario.get("seed", 0))
    steps = scenario.get("steps", [])
    setup = Setup(
        seats=seats,
        options=options,
        seed=seed,
        deals=scenario.get("deals", []),
        first=scenario.get("first"),
        robots=robots_from_the_start(steps),
    )
    state, events = game.start(setup)
    table = Table(game, seats, options, seed, state)
    table.sent = {key: [] for key, _ in table.audiences()}
    table.deliver(events)
    for index, step in enumerate(steps):
        run_step(table, index, step)


def robots_from_the_start(steps: Iterable[Mapping[str, Json]]) -> frozenset[int]:
    """Seats handed to robots before anything happens are robot seats of the table, as the engine
    must know them from the start (QU-4: robots are always ready; QU-12: robots do not vote)."""
    seats: set[int] = set()
    for step in steps:
        if "do" in step or "at" in step:
            break
        if "robot" in step:
            seats.add(int(step["robot"]))
    return frozenset(seats)


def scenario_files(paths: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        files.extend(sorted(path.rglob("*.json")) if path.is_dir() else [path])
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom-conformance", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="scenario files, or folders searched for *.json")
    args = parser.parse_args(argv)
    passed = failed = 0
    for path in scenario_files(args.paths):
        name = path.name
        try:
            scenario = json.loads(path.read_text(encoding="utf-8"))
            name = scenario.get("name", name)
            run_scenario(scenario)
        except (ScenarioFailure, Rejection, OSError, ValueError, KeyError, TypeError) as error:
            failed += 1
            print(f"FAIL {name}: {error}")
        else:
            passed += 1
            print(f"PASS {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
