"""The live queues: tickets with their streams, the matching loop, and opening tables for matches.

``queues.QueueBook`` decides who sits with whom; this module runs it. A join is checked (game,
options, seats, ranked only where the ladder applies, party), rated (ranked: the ladder rating from
rating, the initial rating if rating cannot answer) and put in the book. A loop looks for matches
whenever something changes and every ``TICK_SECONDS`` (windows widen and robot waits run out with
time alone). Each match's table is opened in its own task; every member's stream then gets Seated.

Limits: the queues live in this process's memory, so exactly one matchmaking replica must run (the
Deployment has one replica; lobbies, parties, seatings and the directory are in the database and
survive a restart, tickets do not: phones simply join again). A ticket cancelled while its table is
already being opened still gets that seat (LocateTable finds it); its stream ends at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Mapping

import grpc
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2
from google.protobuf import duration_pb2

from shared.cancellation import within
from shared.errors import ServiceError, invalid, not_found
from shared.games.base import Json

from services.matchmaking import metrics
from services.matchmaking.catalog import RATED_GAMES, TableSpec, check_table
from services.matchmaking.clients import RatingClient
from services.matchmaking.lobbies import Parties
from services.matchmaking.queues import Match, QueueBook, QueueKey, RatingWindow, Standing, Ticket
from services.matchmaking.seating import Seater

log = logging.getLogger(__name__)

# How often the book is searched without a change: windows widen every 5 s and robot waits run
# out in seconds, so a quarter second is never noticed, and one pass over the book costs microseconds.
TICK_SECONDS = 0.25
# Progress is sent about once a second (elapsed time and countdowns on screen), and at every change.
PROGRESS_EVERY_SECONDS = 1.0
# After a table could not be opened (table service down), its players wait this long before being
# matched again, so that a broken table service is not hammered four times a second.
TABLE_RETRY_SECONDS = 2.0
DEFAULT_ROBOT_WAIT_SECONDS = 20.0  # long enough for a second human to show up at busy hours


@dataclass
class Waiter:
    """A ticket and the stream waiting on it."""

    ticket: Ticket
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    seated: asyncio.Future[matchmaking_pb2.Seated] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    ended: bool = False  # cancelled, or its stream is gone

    def wake(self) -> None:
        self.changed.set()


class Matchmaker:
    def __init__(
        self,
        seater: Seater,
        ratings: RatingClient,
        parties: Parties,
        robot_wait_seconds: float = DEFAULT_ROBOT_WAIT_SECONDS,
        rating_window: RatingWindow | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.seater = seater
        self.ratings = ratings
        self.parties = parties
        self.book = QueueBook(rating_window or RatingWindow(), robot_wait_seconds)
        self.clock = clock
        self.rng = rng or random.Random()
        self.waiters: dict[str, Waiter] = {}
        self.by_player: dict[str, str] = {}  # player id -> ticket id ("" while the join is being checked)
        self._wakeup = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.Task[None] | None = None
        self._reported: set[tuple[str, str]] = set()

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.create_task(self._run(), name="matchmaking-loop")

    async def close(self) -> None:
        tasks = [*self._tasks, *([self._loop] if self._loop else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for waiter in self.waiters.values():
            waiter.ended = True
            waiter.wake()

    # -- joining and leaving -----------------------------------------------------------------------

    async def join(
        self, player_id: str, game: str, options: Mapping[str, Json], seats: int, kind: int, party_code: str
    ) -> Waiter:
        """Check the request and queue the player; raises ``ServiceError`` and changes nothing if refused."""
        spec = check_table(game, options, seats)
        ranked = _ranked(kind, spec)
        key = QueueKey(spec.game, spec.options_key, spec.seats, ranked, spec.teams)
        party_members = await self._party(party_code, player_id, key) if party_code else ()
        if player_id in self.by_player:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_QUEUED", "you are already in a queue; cancel that ticket first"
            )
        self.by_player[player_id] = ""
        try:
            rating = (await self.ratings.ratings([player_id]))[player_id] if ranked else 0.0
        except BaseException:
            del self.by_player[player_id]
            raise
        ticket = Ticket(uuid.uuid4().hex, player_id, key, self.clock(), rating, party_code, tuple(party_members))
        waiter = Waiter(ticket)
        self.waiters[ticket.ticket_id] = waiter
        self.by_player[player_id] = ticket.ticket_id
        self.book.add(ticket)
        log.info("queued", extra={"ticket_id": ticket.ticket_id, "game": game, "mode": key.mode, "seats": seats})
        self._changed(key)
        return waiter

    async def _party(self, party_code: str, player_id: str, key: QueueKey) -> list[str]:
        if key.ranked:
            raise invalid("party_code", "parties play casual matches only")
        if not key.teams:
            raise invalid("party_code", "parties queue for team games only (quatro)")
        members = await self.parties.members_for(party_code, player_id)
        for ticket in self.book.party_tickets(party_code):
            if ticket.key != key:
                raise invalid("party_code", "your party is queued for another game, options or seat count; join that one")
        return members

    def cancel(self, player_id: str, ticket_id: str) -> None:
        """Withdraw the caller's ticket; its stream ends."""
        if not ticket_id:
            raise invalid("ticket_id", "ticket_id is required")
        waiter = self.waiters.get(ticket_id)
        if waiter is None or waiter.ticket.player_id != player_id or waiter.ended:
            raise not_found("ticket", "no such ticket of yours is waiting")
        self._end(waiter)
        log.info("ticket cancelled", extra={"ticket_id": ticket_id})

    def withdraw(self, waiter: Waiter) -> None:
        """The ticket's stream is over (seated, cancelled or dropped): forget the ticket. Idempotent."""
        if not waiter.ended:
            self._end(waiter)

    def _end(self, waiter: Waiter) -> None:
        waiter.ended = True
        ticket = waiter.ticket
        if self.book.remove(ticket.ticket_id) is not None:
            self._changed(ticket.key)
        self.waiters.pop(ticket.ticket_id, None)
        if self.by_player.get(ticket.player_id) == ticket.ticket_id:
            del self.by_player[ticket.player_id]
        waiter.wake()

    # -- the stream ----------------------------------------------------------------------------------

    async def stream(self, waiter: Waiter) -> AsyncIterator[matchmaking_pb2.JoinQueueResponse]:
        """Progress about once a second and at every change, then Seated; a dropped stream withdraws."""
        first = True
        try:
            while not waiter.ended:
                if waiter.seated.done():
                    yield matchmaking_pb2.JoinQueueResponse(seated=waiter.seated.result())
                    return
                if first or self.book.find(waiter.ticket.ticket_id):  # nothing to report while being seated
                    yield matchmaking_pb2.JoinQueueResponse(progress=self.progress(waiter))
                    first = False
                waiter.changed.clear()
                changed = asyncio.ensure_future(waiter.changed.wait())
                wakers: set[asyncio.Future[Any]] = {changed, waiter.seated}
                try:
                    await asyncio.wait(wakers, timeout=PROGRESS_EVERY_SECONDS, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
        finally:
            self.withdraw(waiter)

    def progress(self, waiter: Waiter) -> matchmaking_pb2.QueueProgress:
        ticket = waiter.ticket
        now = self.clock()
        standing = self.book.standing(ticket, now) if self.book.find(ticket.ticket_id) else _being_seated(ticket, now)
        return matchmaking_pb2.QueueProgress(
            ticket_id=ticket.ticket_id,
            position=standing.position,
            waiting=standing.waiting,
            elapsed=_duration(standing.elapsed),
            rating_window=standing.rating_window,
            robots_in=_duration(standing.robots_in),
        )

    # -- matching ------------------------------------------------------------------------------------

    def _changed(self, key: QueueKey) -> None:
        for waiter in self.waiters.values():
            if waiter.ticket.key == key:
                waiter.wake()
        self._wakeup.set()

    async def _run(self) -> None:
        while True:
            try:
                await within(TICK_SECONDS, self._wakeup.wait())
            except TimeoutError:
                pass
            self._wakeup.clear()
            try:
                self.match_now()
            except Exception:  # noqa: BLE001 - the loop must outlive any one bad pass
                log.exception("matching pass failed")

    def match_now(self) -> list[Match]:
        """One pass over the book: every table that can be opened now is being opened."""
        matches = self.book.take_matches(self.clock(), self.rng)
        for match in matches:
            task = asyncio.create_task(self._seat(match), name=f"seat-{match.key.game}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            self._changed(match.key)
        self._report_lengths()
        return matches

    async def _seat(self, match: Match) -> None:
        key = match.key
        kind = common_pb2.MATCH_KIND_RANKED if key.ranked else common_pb2.MATCH_KIND_CASUAL
        try:
            opened = await self.seater.open_table(key.game, _options(key), match.seats, kind, key.mode)
        except Exception:  # noqa: BLE001 - the players go back to the queue and are matched again
            log.exception("could not open a table; players return to the queue", extra={"game": key.game})
            await asyncio.sleep(TABLE_RETRY_SECONDS)
            self._restore(match)
            return
        now = self.clock()
        for ticket in match.tickets:
            metrics.QUEUE_WAIT.labels(key.game, key.mode).observe(max(0.0, now - ticket.joined_at))
            waiter = self.waiters.get(ticket.ticket_id)
            if waiter is not None and not waiter.seated.done():
                waiter.seated.set_result(opened.seated[ticket.player_id])
                waiter.wake()

    def _restore(self, match: Match) -> None:
        live = [t for t in match.tickets if t.ticket_id in self.waiters and not self.waiters[t.ticket_id].ended]
        self.book.restore(live)
        self._changed(match.key)
        self._report_lengths()

    def _report_lengths(self) -> None:
        lengths: dict[tuple[str, str], int] = {}
        for key, queue in self.book.queues.items():
            lengths[(key.game, key.mode)] = lengths.get((key.game, key.mode), 0) + len(queue)
        for labels in self._reported - set(lengths):
            metrics.QUEUE_LENGTH.labels(*labels).set(0)
        for labels, length in lengths.items():
            metrics.QUEUE_LENGTH.labels(*labels).set(length)
        self._reported |= set(lengths)


def _ranked(kind: int, spec: TableSpec) -> bool:
    """Whether the join is ranked; refuses kinds a queue does not take and ranked where no ladder applies."""
    if kind in (common_pb2.MATCH_KIND_UNSPECIFIED, common_pb2.MATCH_KIND_CASUAL):
        return False
    if kind != common_pb2.MATCH_KIND_RANKED:
        raise invalid("kind", "queues are ranked or casual; private tables are made with CreatePrivateTable")
    if not spec.rated:
        games = ", ".join(sorted(RATED_GAMES))
        raise invalid("kind", f"ranked matches are for exactly two players of {games}; queue casual instead")
    return True


def _options(key: QueueKey) -> dict[str, Json]:
    return dict(json.loads(key.options_key))


def _being_seated(ticket: Ticket, now: float) -> Standing:
    """A ticket whose table is being opened: first in line, nothing left to wait for."""
    return Standing(position=1, waiting=0, elapsed=max(0.0, now - ticket.joined_at), rating_window=0.0, robots_in=0.0)


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(seconds * 1e9) if math.isfinite(seconds) else 0)
    return duration
