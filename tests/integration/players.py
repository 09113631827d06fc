"""Players for the integration tests: a table server on a real socket, seats and a spectator
watching it, scripted humans for every game, and the checks every finished match must pass.

A scripted human reads only what its seat is sent (its Snapshot from GetView with the legal
actions, and the events of its own Watch stream) and picks among the legal actions with a seeded
random generator, biased so that matches finish: golf-family humans call early, Tower humans shed
as many cards as they can, Quatro humans collect quartets and call on their partner's signal.
Limits: they play simply on purpose; they exist to drive the table service over gRPC, not to win.
Robots are the server's own (``None`` seats); the tests never play for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterable

import grpc
from cardroom.table.v1 import table_pb2
from google.protobuf.json_format import MessageToDict

from shared.structs import whole_numbers as plain
from services.table.actions import to_engine
from services.table.app import create_server
from shared.errors import error_info
from tests.support.servers import settings_for
from tests.support.table_client import SeatClient, create_table

Action = dict[str, Any]
View = dict[str, Any]

FINISHED = table_pb2.TABLE_STATUS_FINISHED
EVENT_TIMEOUT = 20.0  # generous: an event that is coming arrives in milliseconds on one machine
IDLE_WAIT = 0.5  # a human with nothing to do looks again after its stream moved, or after this
REAL_TIME_POLL = 0.02  # a Quatro human's reaction time when its stream is quiet (cooldowns end silently)
# Refusals a human may meet in a real-time race (someone was faster, a clock fired first): they
# change nothing and the human simply looks again. Anything else fails the test.
RACE_REASONS = frozenset({"STALE", "COOLDOWN", "ROUND_OVER", "ILLEGAL", "NOT_YOUR_TURN"})
MATCH_FINALS = {  # the event that tells every seat the match is over
    "golf": "match_ended",
    "cambio": "match_ended",
    "cabo": "match_ended",
    "quatro": "match_over",
    "tower": "match_over",
}


# --- the server and the table ---------------------------------------------------------------------


@contextlib.asynccontextmanager
async def table_service(database_url: str, clock_speed: float = 1.0) -> AsyncIterator[grpc.aio.Channel]:
    """The real table server on a free port of 127.0.0.1, and a channel to it."""
    app, _host = await create_server(settings_for("table", database_url), shard="integration", clock_speed=clock_speed)
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield channel
    finally:
        await channel.close()
        await app.stop(0)


@dataclass
class Table:
    """An open table: its human seats' clients (by seat) and one spectator, all watching."""

    table_id: str
    game: str
    seats: int
    humans: dict[int, SeatClient]
    spectator: SeatClient

    @property
    def watchers(self) -> list[SeatClient]:
        return [*self.humans.values(), self.spectator]

    async def close(self) -> None:
        for client in self.watchers:
            await client.stop()


@contextlib.asynccontextmanager
async def seated(
    channel: grpc.aio.Channel, game: str, players: list[str | None], options: dict[str, Any], seed: int, humans_after: int = 0
) -> AsyncIterator[Table]:
    """Create a table (``None`` seats are robots), then watch it from every human seat and a
    spectator until the block ends. ``humans_after`` 1 makes the humans' streams resume after the
    table's first event instead of starting fresh."""
    created = await create_table(channel, game, players, options, seed)
    table_id = created.table.table_id
    humans = {token.seat: SeatClient(channel, table_id, token.player_id, token.token) for token in created.seat_tokens}
    table = Table(table_id, game, len(players), humans, SeatClient(channel, table_id, "spectator"))
    try:
        for client in humans.values():
            client.watch(after_sequence=humans_after)
        table.spectator.watch()
        for client in table.watchers:
            await wait_until(client, lambda: bool(client.messages))
        yield table
    finally:
        await table.close()


# --- reading what a seat was sent -------------------------------------------------------------------


def view_of(snapshot: table_pb2.Snapshot) -> View:
    return plain(MessageToDict(snapshot.view))


def legal_of(snapshot: table_pb2.Snapshot) -> list[Action]:
    return [to_engine(action) for action in snapshot.legal_actions]


def data_of(event: table_pb2.TableEvent) -> dict[str, Any]:
    return plain(MessageToDict(event.data))


def events_of(client: SeatClient, kind: str) -> list[table_pb2.TableEvent]:
    return [event for event in client.events() if event.kind == kind]


async def wait_until(client: SeatClient, condition: Callable[[], bool], timeout: float = EVENT_TIMEOUT) -> None:
    """Wait until ``condition`` holds, looking again each time the client's stream delivers."""

    async def reached() -> None:
        while not condition():
            client.updated.clear()
            if condition():
                return
            await client.updated.wait()

    await asyncio.wait_for(reached(), timeout)


async def wait_for_event(
    client: SeatClient, kind: str, where: Callable[[dict[str, Any]], bool] = lambda data: True, timeout: float = EVENT_TIMEOUT
) -> table_pb2.TableEvent:
    """The first event of ``kind`` (whose data satisfies ``where``) on the client's stream."""

    def found() -> table_pb2.TableEvent | None:
        return next((event for event in events_of(client, kind) if where(data_of(event))), None)

    await wait_until(client, lambda: found() is not None, timeout)
    event = found()
    assert event is not None
    return event


async def refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    """The status code and ErrorInfo reason of a refused call."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        info = error_info(error)
        assert info is not None, "every refusal carries an ErrorInfo"
        return error.code(), info.reason
    raise AssertionError("the call was accepted")


def reason_of(error: grpc.aio.AioRpcError) -> str:
    info = error_info(error)
    return info.reason if info is not None else ""


async def act_or_lose_race(client: SeatClient, action: Action, refusals: Counter[str]) -> bool:
    """Act; True if accepted. A race refusal (RACE_REASONS) is counted; any other refusal fails."""
    try:
        await client.act(action)
        return True
    except grpc.aio.AioRpcError as error:
        reason = reason_of(error)
        if reason not in RACE_REASONS:
            raise AssertionError(f"{action} refused with {error.code().name}/{reason}: {error.details()}") from error
        refusals[reason] += 1
        return False


# --- the checks every finished match passes -----------------------------------------------------------


def assert_sequences_increase(client: SeatClient) -> None:
    sequences = [event.sequence for event in client.events()]
    assert all(a < b for a, b in zip(sequences, sequences[1:])), f"{client.player_id}: sequences out of order"


async def assert_match_seen_to_the_end(table: Table, shares_private: Callable[[int, int], bool] = lambda a, b: False) -> None:
    """Every watcher saw the match's final event, in strictly increasing sequences; the spectator
    was sent no private event and every public one; no seat was sent another seat's private event
    (``shares_private``: seats that may share one, such as Quatro's partners)."""
    final = MATCH_FINALS[table.game]
    for client in table.watchers:
        await wait_for_event(client, final)
        assert_sequences_increase(client)
    spectator = table.spectator.events()
    assert not [event.kind for event in spectator if event.private], "a private event reached the spectator"
    watched_from = max(_first_sequence(client) for client in table.watchers)
    public = {event.sequence for event in spectator if event.sequence > watched_from}
    private_by_seat: dict[int, set[int]] = {}
    for seat, client in table.humans.items():
        events = client.events()
        seen = {e.sequence for e in events if not e.private and e.sequence > watched_from}
        assert seen == public, f"seat {seat} was not sent exactly the public events"
        private_by_seat[seat] = {e.sequence for e in events if e.private}
        assert not private_by_seat[seat] & {e.sequence for e in spectator}
    for seat, mine in private_by_seat.items():
        for other, client in table.humans.items():
            if other != seat and not shares_private(seat, other):
                assert not mine & {e.sequence for e in client.events()}, f"seat {other} was sent seat {seat}'s private event"


def _first_sequence(client: SeatClient) -> int:
    """Where the stream's picture of the table starts: its Snapshot (reveals may come before it), or
    for a resumed stream the event before its first."""
    snapshot = next((m.snapshot for m in client.messages if m.HasField("snapshot")), None)
    return snapshot.sequence if snapshot is not None else client.messages[0].event.sequence - 1


# --- turn-based games: golf family and Tower ---------------------------------------------------------------

Chooser = Callable[[int, View, list[Action]], "Action | None"]


async def play_turns(table: Table, choose: Chooser, action_limit: int = 5000) -> Counter[str]:
    """The humans act whenever one of them may (robots act on the server) until the match is over.
    Returns the accepted human actions by type."""
    accepted: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    while sum(accepted.values()) < action_limit:
        for client in table.humans.values():
            client.updated.clear()
        snapshots = {seat: await client.snapshot() for seat, client in table.humans.items()}
        if any(snapshot.table.status == FINISHED for snapshot in snapshots.values()):
            return accepted
        chosen = _first_choice(snapshots, choose)
        if chosen is None:
            await _any_update(table.humans.values(), IDLE_WAIT)
            continue
        seat, action = chosen
        if await act_or_lose_race(table.humans[seat], action, refusals):
            accepted[action["type"]] += 1
    raise AssertionError(f"the match did not end after {action_limit} human actions")


def _first_choice(snapshots: dict[int, table_pb2.Snapshot], choose: Chooser) -> tuple[int, Action] | None:
    for seat, snapshot in snapshots.items():
        legal = legal_of(snapshot)
        if legal:
            action = choose(seat, view_of(snapshot), legal)
            if action is not None:
                return seat, action
    return None


async def _any_update(clients: Iterable[SeatClient], timeout: float) -> None:
    waits = [asyncio.create_task(client.updated.wait()) for client in clients]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()


def by_type(legal: list[Action]) -> dict[str, list[Action]]:
    grouped: dict[str, list[Action]] = {}
    for action in legal:
        grouped.setdefault(str(action["type"]), []).append(action)
    return grouped


@dataclass
class GolfFamilyHuman:
    """A golf-family player: draws, keeps or throws at random, uses powers, calls (knocks) after a
    few turns of each round, and snaps a random slot now and then when ``snap_rate`` says so."""

    seed: int
    call_after_turns: int = 2  # calling early ends rounds quickly: the match finishes in seconds
    snap_rate: float = 0.0  # chance of a (probably wrong) snap at the start of an own turn
    rng: random.Random = field(init=False)
    turns: Counter[tuple[int, int]] = field(default_factory=Counter)  # own turns per (seat, round)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def __call__(self, seat: int, view: View, legal: list[Action]) -> Action | None:
        actions = by_type(legal)
        if "give" in actions:  # CA-9: the give comes first
            return self.rng.choice(actions["give"])
        if "pass" in actions:  # a queen's (or jack_looks') second step
            return self.rng.choice(actions["pass"] + actions.get("swap", []))
        if "draw" in actions:
            return self._open_turn(seat, view, actions)
        kept = actions.get("replace", []) + actions.get("discard", []) + actions.get("power", [])
        return self.rng.choice(kept) if kept else None  # out of turn: only snaps, which it leaves alone

    def _open_turn(self, seat: int, view: View, actions: dict[str, list[Action]]) -> Action:
        key = (seat, int(view["round"]))
        if "call" in actions and self.turns[key] >= self.call_after_turns:
            return actions["call"][0]
        if "snap" in actions and self.rng.random() < self.snap_rate:
            return self.rng.choice(actions["snap"])
        if "burn" in actions and self.rng.random() < 0.1:
            return self.rng.choice(actions["burn"])
        self.turns[key] += 1
        return self.rng.choice(actions["draw"])


@dataclass
class TowerHuman:
    """A Tower player: as holder it picks a direction and, from round 2, all four variations; then
    it sheds the most cards it can (sometimes any play), flips when it cannot, picks up last."""

    seed: int
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def __call__(self, seat: int, view: View, legal: list[Action]) -> Action | None:
        actions = by_type(legal)
        if "setup" in actions:
            everything = 4 if view.get("variations_allowed") else 0
            return self.rng.choice([a for a in actions["setup"] if len(a.get("variations", [])) == everything])
        plays = actions.get("play", [])
        if plays:
            if self.rng.random() < 0.2:
                return self.rng.choice(plays)
            most = max(_play_size(play) for play in plays)
            return self.rng.choice([play for play in plays if _play_size(play) == most])
        for kind in ("flip", "pick_up"):
            if kind in actions:
                return self.rng.choice(actions[kind])
        return None


def _play_size(play: Action) -> int:
    return sum(len(play.get(key) or []) for key in ("hand", "up", "down"))


# --- Quatro: real time ---------------------------------------------------------------------------------------


def card_value(card: str) -> str:
    """Quatro compares values only (QU-1): the card without its suit."""
    return card[:-1]


@dataclass
class QuatroHuman:
    """A Quatro player acting in real time from its own Snapshot: chooses a signal and gets ready,
    exchanges toward a quartet, takes the floor and shows the team signal once it holds one, calls
    ¡Quatro! when its partner shows the team signal, votes yes on a reshuffle, starts the next round
    as host, and (``proposes``) proposes a reshuffle each round until one has passed."""

    client: SeatClient
    seed: int
    proposes: bool = False
    rng: random.Random = field(init=False)
    accepted: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    reshuffle_passed: bool = False
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    busy: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.connected.set()

    async def play(self) -> None:
        """Act until the match is over (pausing while disconnected)."""
        while True:
            await self.connected.wait()
            async with self.busy:
                if not self.connected.is_set():
                    continue
                self.client.updated.clear()
                snapshot = await self.client.snapshot()
                if snapshot.table.status == FINISHED:
                    return
                action = self.choose(view_of(snapshot), legal_of(snapshot))
                if action is not None and await act_or_lose_race(self.client, action, self.refusals):
                    self.accepted[str(action["type"])] += 1
                    continue
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.client.updated.wait(), REAL_TIME_POLL)

    async def disconnect(self) -> None:
        """Stop acting, then close the seat's only Watch stream (the table marks it disconnected)."""
        self.connected.clear()
        async with self.busy:
            await self.client.stop()

    def reconnect(self) -> None:
        """Watch again from the last sequence held (the table marks it reconnected), then play on."""
        self.client.watch(after_sequence=self.client.last_sequence)
        self.connected.set()

    def choose(self, view: View, legal: list[Action]) -> Action | None:
        actions = by_type(legal)
        phase = view.get("phase")
        if phase == "signals":  # QU-3, QU-4
            if "choose_signal" in actions:
                return self.rng.choice(actions["choose_signal"])
            return actions.get("ready", [None])[0]
        if phase == "round_over":  # QU-11: the host cuts the pause short
            return actions.get("start_next_round", [None])[0]
        if phase != "playing":
            return None
        return self._play(view, actions)

    def _play(self, view: View, actions: dict[str, list[Action]]) -> Action | None:
        signal = (view.get("signal") or {}).get("signal")
        floor = {int(entry["seat"]): entry.get("emoji") for entry in view.get("floor", [])}
        me, partner, hand = int(view["seat"]), int(view["partner"]), list(view.get("hand", []))
        self.reshuffle_passed = self.reshuffle_passed or bool(view.get("reshuffled"))
        if signal is not None and floor.get(partner) == signal and "quatro" in actions:  # QU-8
            return actions["quatro"][0]
        if "vote" in actions:  # QU-12
            return next(action for action in actions["vote"] if action["accept"])
        if self.proposes and not self.reshuffle_passed and "propose_reshuffle" in actions:
            return actions["propose_reshuffle"][0]
        if len({card_value(card) for card in hand}) == 1:  # QU-7: tell the partner
            if me not in floor:
                return actions.get("take_floor", [None])[0]
            if signal is not None and floor[me] != signal:
                return next((a for a in actions.get("show", []) if a["emoji"] == signal), None)
            return None
        if me in floor and "release_floor" in actions:
            return actions["release_floor"][0]
        return self._exchange(hand, actions.get("exchange", []))

    def _exchange(self, hand: list[str], exchanges: list[Action]) -> Action | None:
        """QU-5: take a centre card of a value held most, giving one of a value held least."""
        held = Counter(card_value(card) for card in hand)

        def gain(action: Action) -> int:
            taken, given = card_value(action["expect"]), card_value(hand[action["hand_slot"]])
            return -99 if taken == given else held[taken] - held[given]

        useful = [action for action in exchanges if gain(action) >= 0]
        if not useful:
            return None
        best = max(gain(action) for action in useful)
        return self.rng.choice([action for action in useful if gain(action) == best])


def partners(seats: int) -> Callable[[int, int], bool]:
    """Quatro partners sit opposite (seat s and s + n/2) and share their team's signal event."""
    return lambda a, b: (a - b) % seats == seats // 2
