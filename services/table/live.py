"""A live table: one game's state in memory, its log, its clocks, its robots and its watchers.

Everything that changes a table is an *input* (a seat's action, a clock tick, a seat handed to or
taken back from a robot). An input is run through the pure engine first (an illegal one is refused
and changes nothing), then committed to the log, and only then are its events numbered and sent.
A table rebuilt from its log (``LiveTable.restore``) is the same table, event for event.

Hidden stays hidden here too: an event goes to a watcher only if its audience includes the
watcher's seat, and views come from the engine's allow-list ``view``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from shared.cancellation import to_completion, within
from shared.games import registry
from shared.games.base import Event, Game, Json, MatchResult, Rejection, Setup, public
from shared.robots.base import Robot
from shared.table_options import split_table_options

from services.table.store import OutboxRecord, TableInput, TableRecord, TableStore

log = logging.getLogger(__name__)

AUTO_MOVES_BEFORE_ROBOT = 3  # issue: "after three automatic moves in a row a robot plays the seat"
WATCH_QUEUE_LIMIT = 4096  # events buffered for one slow phone before its stream is closed to resume
REAL_TIME_ROBOT_PERIOD = 0.5  # seconds between robot decisions in real-time games (Quatro)
CLOCK_SLACK = 0.002  # wake a little after a deadline so that "due at or before now" holds


@dataclass(frozen=True)
class TableOptions:
    """Options of the table service itself, beside the game's own."""

    turn_seconds: float = 45.0  # defaults and reasons: shared/table_options.py
    reveal_window: float = 5.0
    robot_delay: float = 1.0

    @classmethod
    def split(cls, options: Mapping[str, Json]) -> tuple[TableOptions, dict[str, Json]]:
        """Separate table options from game options, checking the table's."""
        table_options, game_options = split_table_options(options)
        return cls(**table_options), game_options

    def to_json(self) -> dict[str, float]:
        return {"turn_seconds": self.turn_seconds, "reveal_window": self.reveal_window, "robot_delay": self.robot_delay}


@dataclass(frozen=True)
class TableClock:
    """Wall-clock seconds as tables see them. ``speed`` above 1 makes table time run faster than
    real time, so that tests can play Quatro's 30 s and 3 min clocks in seconds; production is 1."""

    speed: float = 1.0
    origin: float = field(default_factory=time.time)

    def __call__(self) -> float:
        return self.origin + (time.time() - self.origin) * self.speed


@dataclass
class SeatState:
    player_id: str
    display_name: str
    robot: bool  # a robot from the start
    standing_in: bool = False  # a robot plays for an absent player
    abandoned: bool = False
    auto_moves: int = 0  # consecutive moves played by the turn clock
    streams: int = 0

    @property
    def played_by_robot(self) -> bool:
        return self.robot or self.standing_in or self.abandoned


@dataclass(frozen=True)
class LoggedEvent:
    sequence: int
    event: Event
    at: float  # table time
    actor: int  # the seat whose input caused it; -1 for the table


@dataclass(eq=False)
class Watcher:
    """One open Watch stream."""

    seat: int | None
    queue: asyncio.Queue[Any] = field(default_factory=lambda: asyncio.Queue(WATCH_QUEUE_LIMIT))
    overflowed: bool = False


class Encoder:
    """Turns logged events into wire messages; the table service supplies the protobuf side."""

    def event(self, table: LiveTable, logged: LoggedEvent, private: bool) -> bytes:  # pragma: no cover
        raise NotImplementedError


class LiveTable:
    """One table being played on this shard. All changes go through ``lock``."""

    def __init__(self, record: TableRecord, store: TableStore, encoder: Encoder, clock: TableClock | None = None) -> None:
        self.record = record
        self.table_id = record.table_id
        self.game: Game[Any] = registry.game(record.game)
        self.game_options: dict[str, Json] = json.loads(record.game_options)
        self.options = TableOptions(**json.loads(record.table_options))
        self.seats = [SeatState(s["player_id"], s["display_name"], bool(s["robot"])) for s in json.loads(record.seats)]
        self.store = store
        self.encoder = encoder
        self.clock = clock or TableClock()
        self.lock = asyncio.Lock()
        self.events: list[LoggedEvent] = []
        self.next_position = 0
        self.client_actions: dict[str, tuple[str, int]] = {}
        self.watchers: set[Watcher] = set()
        self.robots: dict[int, Robot] = {}
        self.last_progress = 0.0
        self.robot_due: float | None = None
        self.first_watched: dict[int, float] = {}  # table time of each seat's first Watch (this process)
        self.changed = asyncio.Event()
        self.finished = record.finished
        self.on_finished: Callable[[LiveTable], None] | None = None
        setup = Setup(
            seats=len(self.seats),
            options=self.game_options,
            seed=record.seed,
            robots=frozenset(i for i, s in enumerate(self.seats) if s.robot),
        )
        self.state, opening = self.game.start(setup)
        self._number(opening, actor=-1, at=0.0)
        for seat in range(len(self.seats)):
            if self.seats[seat].played_by_robot:
                self._ensure_robot(seat)

    # -- rebuilding ----------------------------------------------------------------------------

    @classmethod
    def restore(cls, record: TableRecord, store: TableStore, encoder: Encoder, clock: TableClock | None = None) -> LiveTable:
        """The table exactly as its log left it (after a crash, a restart or a takeover)."""
        table = cls(record, store, encoder, clock)
        for entry in store.inputs(record.table_id):
            state, events = table._run(entry)
            table._adopt(entry, state, events)
        table.finished = record.finished or table.game.result(table.state) is not None
        return table

    # -- time -------------------------------------------------------------------------------------

    def now(self) -> float:
        """Table time: seconds since the table was made (what engines are given)."""
        return max(0.0, self.clock() - self.record.created_at)

    def wall(self, at: float) -> float:
        return self.record.created_at + at

    # -- inputs -----------------------------------------------------------------------------------

    def _run(self, entry: TableInput) -> tuple[Any, list[Event]]:
        """The engine's answer to an input; pure (raises ``Rejection`` for an illegal action)."""
        if entry.kind == "action":
            assert entry.seat is not None
            return self.game.apply(self.state, entry.seat, entry.payload, entry.at)
        if entry.kind == "tick":
            return self.game.advance(self.state, entry.at)
        if entry.kind == "seat":
            return self.state, [public("seat_changed", seat=entry.seat, **entry.payload)]
        raise ValueError(f"unknown input kind {entry.kind!r}")

    def _adopt(self, entry: TableInput, state: Any, events: list[Event]) -> list[LoggedEvent]:
        """Make an input's outcome the table's (after it is durable, or while replaying)."""
        self.state = state
        self.next_position = entry.position + 1
        self.last_progress = entry.at
        actor = entry.seat if entry.seat is not None and entry.kind != "tick" else -1
        if entry.kind == "seat" and entry.seat is not None:
            seat = self.seats[entry.seat]
            seat.standing_in = bool(entry.payload.get("robot", seat.standing_in)) and not seat.robot
            seat.abandoned = seat.abandoned or bool(entry.payload.get("abandoned", False))
            if seat.played_by_robot:
                self._ensure_robot(entry.seat)
            else:
                self.robots.pop(entry.seat, None)
        elif entry.kind == "action" and entry.seat is not None:
            seat = self.seats[entry.seat]
            if entry.origin == "clock":
                seat.auto_moves += 1
            elif entry.origin == "player":
                seat.auto_moves = 0
        if entry.client_action_id:
            self.client_actions[entry.client_action_id] = (_canonical(entry.payload), 0)
        logged = self._number(events, actor=actor, at=entry.at)
        if entry.client_action_id:
            last = self.last_visible(entry.seat, logged)
            self.client_actions[entry.client_action_id] = (_canonical(entry.payload), last)
        for item in logged:
            self._feed_robots(item)
        return logged

    def _number(self, events: list[Event], actor: int, at: float) -> list[LoggedEvent]:
        logged = []
        for event in events:
            item = LoggedEvent(len(self.events) + 1, event, at, actor)
            self.events.append(item)
            logged.append(item)
        return logged

    @property
    def sequence(self) -> int:
        return len(self.events)

    def last_visible(self, seat: int | None, logged: list[LoggedEvent] | None = None) -> int:
        """The sequence of the last event ``seat`` may receive (of ``logged``, else of the table); 0 if none."""
        for item in reversed(self.events if logged is None else logged):
            if item.event.audience.includes(seat):
                return item.sequence
        return 0 if logged is None else self.last_visible(seat)

    async def _commit(self, entry: TableInput) -> list[LoggedEvent]:
        """Run, store, then adopt and announce one input. Call with ``lock`` held."""
        state, events = self._run(entry)
        rows: list[Any] = [entry.record(self.table_id)]
        result = None if self.finished else self.game.result(state)
        if result is not None:
            rows += self._finish_rows(result, entry.at)
        await self.store.write(rows)
        logged = self._adopt(entry, state, events)
        if result is not None:
            self.finished = True
            if self.on_finished:
                self.on_finished(self)
        self._publish(logged)
        self.changed.set()
        return logged

    def _entry(self, kind: str, seat: int | None, payload: Mapping[str, Json], origin: str, client_action_id: str | None = None) -> TableInput:
        return TableInput(self.next_position, kind, seat, dict(payload), self.now(), origin, client_action_id)

    # -- what seats do ---------------------------------------------------------------------------

    async def act(self, seat: int, action: Mapping[str, Json], client_action_id: str) -> tuple[int, bool]:
        """Play a seat's action. Returns (last sequence, whether it was a retry). Raises ``Rejection``
        or ``ActionIdReused``."""
        return await to_completion(self._act(seat, action, client_action_id))

    async def _act(self, seat: int, action: Mapping[str, Json], client_action_id: str) -> tuple[int, bool]:
        canonical = _canonical(action)
        async with self.lock:
            known = self.client_actions.get(client_action_id)
            if known is not None:
                if known[0] != canonical:
                    raise ActionIdReused()
                return known[1], True
            if self.finished:
                raise Rejection("round_over", "the match is over")
            await self._fire_due()
            if self.seats[seat].standing_in:
                # The player is back: the robot gives the seat back before the player's action.
                await self._commit(self._entry("seat", seat, {"robot": False}, "table"))
            logged = await self._commit(self._entry("action", seat, action, "player", client_action_id))
            self._schedule_robot()
            return self.client_actions[client_action_id][1], False

    async def leave(self, seat: int) -> None:
        await to_completion(self._leave(seat))

    async def _leave(self, seat: int) -> None:
        async with self.lock:
            if self.seats[seat].abandoned or self.finished:
                return
            await self._commit(self._entry("seat", seat, {"robot": True, "abandoned": True}, "table"))
            self._schedule_robot()

    async def connection_changed(self, seat: int, connected: bool) -> None:
        """A seat's first stream opened or its last one closed (Quatro's QU-13 cares)."""
        await to_completion(self._connection_changed(seat, connected))

    async def _connection_changed(self, seat: int, connected: bool) -> None:
        async with self.lock:
            if self.finished:
                return
            action = {"type": "reconnect" if connected else "disconnect"}
            try:
                self._run(self._entry("action", seat, action, "table"))
            except Rejection:
                return  # this game does not model connections
            await self._commit(self._entry("action", seat, action, "table"))

    # -- clocks and robots ----------------------------------------------------------------------

    def next_wakeup(self) -> float | None:
        """Table time at which something falls due: an engine timer, a turn clock, a robot."""
        if self.finished:
            return None
        candidates = [t for t in (self.game.next_deadline(self.state), self._turn_deadline(), self.robot_due) if t is not None]
        return min(candidates) if candidates else None

    def _turn_deadline(self) -> float | None:
        mover = self.game.to_move(self.state)
        if mover is None or self.options.turn_seconds <= 0 or self.seats[mover].played_by_robot:
            return None
        return self.last_progress + self.options.turn_seconds

    def turn_deadline_wall(self) -> float | None:
        deadline = self._turn_deadline()
        return None if deadline is None else self.wall(deadline)

    async def run_clock(self) -> None:
        """Fire timers, turn clocks and robots as they fall due, until the match is over."""
        self._schedule_robot()
        while not self.finished:
            wakeup = self.next_wakeup()
            self.changed.clear()
            timeout = None if wakeup is None else max(0.0, wakeup - self.now()) / self.clock.speed + CLOCK_SLACK
            try:
                await within(timeout, self.changed.wait())
                continue
            except TimeoutError:
                pass
            async with self.lock:
                try:
                    await self._fire_due()
                except Exception:  # noqa: BLE001 - a clock must keep running; the log is intact
                    log.exception("table clock failed", extra={"table_id": self.table_id})
                    await asyncio.sleep(1.0)

    async def _fire_due(self) -> None:
        """Everything due by now, in order. Call with ``lock`` held."""
        for _ in range(1000):  # bounded: a misbehaving engine must not spin the shard
            if self.finished:
                return
            now = self.now()
            deadline = self.game.next_deadline(self.state)
            if deadline is not None and deadline <= now:
                await self._commit(TableInput(self.next_position, "tick", None, {}, max(deadline, self.last_progress), "clock"))
                if self.robot_due is None:
                    # A timer may have opened play (Quatro's round start); frequent ticks such as
                    # cooldowns must not keep pushing an already scheduled robot back.
                    self._schedule_robot()
                continue
            turn = self._turn_deadline()
            if turn is not None and turn <= now:
                await self._play_clock(self.game.to_move(self.state))
                continue
            if self.robot_due is not None and self.robot_due <= now:
                self.robot_due = None
                if await self._play_robots():
                    continue
            return

    async def _play_clock(self, seat: int | None) -> None:
        """The turn clock ran out: play the game's automatic move; a third in a row hands the seat to a robot."""
        if seat is None:
            return
        actions = self.game.clock_actions(self.state, seat)
        for index, action in enumerate(actions):
            # Only the first action of a timeout counts as one automatic move (see ``_adopt``).
            origin = "clock" if index == 0 else "clock_continued"
            try:
                await self._commit(self._entry("action", seat, action, origin))
            except Rejection as rejection:
                log.warning("clock action refused", extra={"table_id": self.table_id, "seat": seat, "reason": rejection.reason})
                break
        state = self.seats[seat]
        if (not actions or state.auto_moves >= AUTO_MOVES_BEFORE_ROBOT) and not state.played_by_robot:
            await self._commit(self._entry("seat", seat, {"robot": True}, "table"))
        self._schedule_robot()

    def _robots_that_may_act(self) -> list[int]:
        """Robot seats with something to do now, the seat to move first (others may snap, or play
        in real time)."""
        mover = self.game.to_move(self.state)
        seats = [i for i, seat in enumerate(self.seats) if seat.played_by_robot]
        seats.sort(key=lambda seat: seat != mover)
        return [seat for seat in seats if self.game.legal_actions(self.state, seat)]

    def _schedule_robot(self, declined: bool = False) -> None:
        """Arm the robots. A robot that just declined (nothing it wants now, e.g. no sure snap) is
        asked again only after ``REAL_TIME_ROBOT_PERIOD``, so that waiting robots never spin."""
        if self.finished or not self._robots_that_may_act():
            self.robot_due = None
            return
        real_time = self.game.to_move(self.state) is None
        delay = self.options.robot_delay
        if real_time or declined:
            delay = max(delay, REAL_TIME_ROBOT_PERIOD)
        self.robot_due = self.now() + delay
        self.changed.set()

    async def _play_robots(self) -> bool:
        """Let the first robot seat that wants to act do so; True if one did."""
        acted = False
        for seat in self._robots_that_may_act():
            robot = self._ensure_robot(seat)
            legal = self.game.legal_actions(self.state, seat)
            choice = robot.choose(self.game.view(self.state, seat), legal, self.now())
            if choice is None:
                continue
            try:
                await self._commit(self._entry("action", seat, choice, "robot"))
                acted = True
                break
            except Rejection as rejection:
                log.warning("robot action refused", extra={"table_id": self.table_id, "seat": seat, "reason": rejection.reason})
        self._schedule_robot(declined=not acted)
        return acted

    def _ensure_robot(self, seat: int) -> Robot:
        robot = self.robots.get(seat)
        if robot is None:
            robot = registry.robot(self.record.game, seat, len(self.seats), self.game_options, self.record.seed + seat)
            for item in self.events:
                if item.event.audience.includes(seat):
                    robot.observe(item.event.to_json())
            self.robots[seat] = robot
        return robot

    def _feed_robots(self, item: LoggedEvent) -> None:
        for seat, robot in self.robots.items():
            if item.event.audience.includes(seat):
                robot.observe(item.event.to_json())

    # -- results ---------------------------------------------------------------------------------

    def _finish_rows(self, result: MatchResult, at: float) -> list[Any]:
        record = self.record.model_copy(update={"finished": True})
        payload = self.result_payload(result, at)
        outbox = OutboxRecord(match_id=self.record.match_id, table_id=self.table_id, payload=json.dumps(payload), created_at=time.time())
        return [outbox, record]

    def result_payload(self, result: MatchResult, at: float) -> dict[str, Json]:
        teams = len(self.seats) // 2 if self.record.game == "quatro" else 0
        participants = []
        for seat, (state, standing) in enumerate(zip(self.seats, result.standings)):
            participants.append(
                {
                    "player_id": "" if state.robot else state.player_id,
                    "seat": seat,
                    "team": seat % teams if teams else seat,
                    "outcome": "loss" if state.abandoned else standing.outcome,
                    "total": standing.total,
                    "round_scores": [scores[seat] for scores in result.round_scores if seat < len(scores)],
                    "robot": state.robot,
                    "abandoned": state.abandoned,
                }
            )
        return {
            "match_id": self.record.match_id,
            "game": self.record.game,
            "kind": self.record.kind,
            "options": {key: json.dumps(value) for key, value in self.game_options.items()},
            "participants": participants,
            "finished_at": self.wall(at),
            "rounds": result.rounds,
            "teams": bool(teams),
        }

    # -- watching ----------------------------------------------------------------------------------

    def watch(self, seat: int | None, after_sequence: int) -> tuple[Watcher, list[LoggedEvent], bool]:
        """Register a watcher. Returns it, the events to send first, and whether a fresh view must
        follow them (a new watch, or nothing to resume from).

        A resume gets every event it missed. A new watch gets the seat's private reveals still inside
        the reveal window, before its view (a view never holds a reveal). The window of a reveal made
        before the seat ever watched starts when it first watches: phones connect after the deal,
        and a first look nobody could see was not shown (rules/README.md "Visibility")."""
        now = self.now()
        if seat is not None:
            self.first_watched.setdefault(seat, now)
        watcher = Watcher(seat)
        self.watchers.add(watcher)
        fresh = after_sequence <= 0 or after_sequence > self.last_visible(seat)
        start = 0 if fresh else after_sequence
        resend = [
            item
            for item in self.events[start:]
            if item.event.audience.includes(seat)
            and (not fresh or item.event.reveal)
            and not (item.event.reveal and self._reveal_expired(item, seat, now))
        ]
        return watcher, resend, fresh

    def _reveal_expired(self, item: LoggedEvent, seat: int | None, now: float) -> bool:
        if item.event.audience.public or seat is None:
            return False
        shown_from = max(item.at, self.first_watched.get(seat, item.at))
        return now - shown_from > self.options.reveal_window

    def unwatch(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)

    def encode(self, item: LoggedEvent, seat: int | None) -> bytes:
        return self.encoder.event(self, item, private=not item.event.audience.public and seat is not None)

    def _publish(self, logged: list[LoggedEvent]) -> None:
        if not self.watchers or not logged:
            return
        sent_at = time.perf_counter()
        for item in logged:
            audience = item.event.audience
            if not audience.public and not audience.seats:
                continue
            wire = self.encoder.event(self, item, private=not audience.public)
            for watcher in self.watchers:
                if watcher.overflowed or not audience.includes(watcher.seat):
                    continue
                try:
                    watcher.queue.put_nowait((wire, sent_at))
                except asyncio.QueueFull:
                    watcher.overflowed = True
                    log.warning("watcher overflowed; it will resume", extra={"table_id": self.table_id})

    def seat_view(self, seat: int | None) -> dict[str, Json]:
        return self.game.view(self.state, seat)

    def legal_actions(self, seat: int | None) -> list[dict[str, Json]]:
        if seat is None or self.finished:
            return []
        return self.game.legal_actions(self.state, seat)

    def result(self) -> MatchResult | None:
        return self.game.result(self.state)


class ActionIdReused(Exception):
    """A client action id already used for a different action."""


def _canonical(action: Mapping[str, Json]) -> str:
    return json.dumps(action, sort_keys=True, separators=(",", ":"))

