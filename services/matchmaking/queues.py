"""The queues themselves, pure: tickets, who may sit with whom, and who sits where.

No I/O, no clock, no global random: the caller passes ``now`` (seconds, any monotonic origin) and a
``random.Random`` for seat order, so every decision here can be tested exactly.

* A queue is keyed by ``QueueKey``: game, canonical options, seat count, ranked or casual. Players
  are only ever matched with others of the same key.
* Ranked (two seats, no robots): two tickets match when each one's rating lies inside the other's
  window, ``RatingWindow``, which widens the longer a ticket waits and opens to anyone at last.
* Casual: humans sit together as soon as enough are waiting to fill a table; once the longest
  waiting of them has waited ``robot_wait`` seconds, robots fill the empty seats.
* Parties (team games): tickets with the same party code sit together as partners (seat s and
  s + n/2) once every member of the party has joined; until then the party's tickets wait.

Limits: the book lives in one process; the matchmaking deployment runs one replica owning it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Iterable, Sequence


@dataclass(frozen=True)
class QueueKey:
    """Which queue: only tickets with equal keys are matched."""

    game: str
    options_key: str
    seats: int
    ranked: bool
    teams: bool = False

    @property
    def mode(self) -> str:
        """The metrics label: ``ranked`` or ``casual``."""
        return "ranked" if self.ranked else "casual"


@dataclass(frozen=True)
class RatingWindow:
    """How far apart two ranked players' ratings may be, by how long they have waited.

    The defaults: ±100 at first (about a 64 % expected score for the stronger player under
    Glicko-2, a fair game); 50 more every 5 s (a player sees the window move within one progress
    update or five); after 60 s anyone at all, because a match against a distant rating is better
    than no match, and the rating change is priced by the ladder anyway.
    """

    start: float = 100.0
    step: float = 50.0
    every_seconds: float = 5.0
    open_after_seconds: float = 60.0

    def at(self, waited: float) -> float:
        """The window (± rating points) after ``waited`` seconds; ``math.inf`` once open to anyone."""
        if waited >= self.open_after_seconds:
            return math.inf
        return self.start + self.step * math.floor(max(0.0, waited) / self.every_seconds)


@dataclass(frozen=True)
class Ticket:
    """One player's place in one queue."""

    ticket_id: str
    player_id: str
    key: QueueKey
    joined_at: float
    rating: float = 1500.0
    party_code: str = ""
    # Every member of the party when this ticket joined (empty without a party).
    party_members: tuple[str, ...] = ()


@dataclass(frozen=True)
class Match:
    """A table to open: its queue, and one entry per seat (a player id, or ``None`` for a robot)."""

    key: QueueKey
    seats: tuple[str | None, ...]
    tickets: tuple[Ticket, ...]

    @property
    def robots(self) -> int:
        return sum(1 for seat in self.seats if seat is None)


@dataclass(frozen=True)
class Standing:
    """Where a ticket stands, for QueueProgress."""

    position: int
    waiting: int
    elapsed: float
    rating_window: float
    robots_in: float


@dataclass
class QueueBook:
    """Every waiting ticket, by queue."""

    rating_window: RatingWindow = field(default_factory=RatingWindow)
    robot_wait: float = 20.0
    queues: dict[QueueKey, list[Ticket]] = field(default_factory=dict)

    # -- tickets ---------------------------------------------------------------------------------

    def add(self, ticket: Ticket) -> None:
        queue = self.queues.setdefault(ticket.key, [])
        queue.append(ticket)
        queue.sort(key=lambda t: t.joined_at)

    def remove(self, ticket_id: str) -> Ticket | None:
        """Withdraw a ticket; ``None`` when it is not waiting (already seated, or unknown)."""
        for key, queue in self.queues.items():
            for ticket in queue:
                if ticket.ticket_id == ticket_id:
                    queue.remove(ticket)
                    if not queue:
                        del self.queues[key]
                    return ticket
        return None

    def restore(self, tickets: Iterable[Ticket]) -> None:
        """Put tickets back where they were (a table could not be opened for them)."""
        for ticket in tickets:
            self.add(ticket)

    def waiting(self, key: QueueKey) -> list[Ticket]:
        return list(self.queues.get(key, ()))

    def find(self, ticket_id: str) -> Ticket | None:
        for queue in self.queues.values():
            for ticket in queue:
                if ticket.ticket_id == ticket_id:
                    return ticket
        return None

    def party_tickets(self, party_code: str) -> list[Ticket]:
        return [t for queue in self.queues.values() for t in queue if party_code and t.party_code == party_code]

    def standing(self, ticket: Ticket, now: float) -> Standing:
        queue = self.queues.get(ticket.key, [])
        position = next((i + 1 for i, t in enumerate(queue) if t.ticket_id == ticket.ticket_id), 0)
        elapsed = max(0.0, now - ticket.joined_at)
        window = self.rating_window.at(elapsed) if ticket.key.ranked else 0.0
        robots_in = 0.0 if ticket.key.ranked else max(0.0, self.robot_wait - elapsed)
        return Standing(position, len(queue), elapsed, window, robots_in)

    # -- matching --------------------------------------------------------------------------------

    def take_matches(self, now: float, rng: random.Random) -> list[Match]:
        """Every table that can be opened now; their tickets leave the book."""
        matches: list[Match] = []
        for key in list(self.queues):
            queue = self.queues[key]
            found = _ranked_matches(queue, now, self.rating_window) if key.ranked else _casual_matches(
                key, queue, now, self.robot_wait, rng
            )
            taken = {t.ticket_id for match in found for t in match.tickets}
            remaining = [t for t in queue if t.ticket_id not in taken]
            if remaining:
                self.queues[key] = remaining
            else:
                del self.queues[key]
            matches.extend(found)
        return matches


def _ranked_matches(queue: Sequence[Ticket], now: float, window: RatingWindow) -> list[Match]:
    """Pairs, the longest waiting first, each with the closest rating both windows accept."""
    free = sorted(queue, key=lambda t: t.joined_at)
    matches: list[Match] = []
    while free:
        first = free.pop(0)
        partners = [t for t in free if _acceptable(first, t, now, window)]
        if not partners:
            continue
        second = min(partners, key=lambda t: (abs(t.rating - first.rating), t.joined_at))
        free.remove(second)
        matches.append(Match(first.key, (first.player_id, second.player_id), (first, second)))
    return matches


def _acceptable(a: Ticket, b: Ticket, now: float, window: RatingWindow) -> bool:
    """Each rating lies inside the other's window (both players would accept the match)."""
    gap = abs(a.rating - b.rating)
    return gap <= window.at(now - a.joined_at) and gap <= window.at(now - b.joined_at)


@dataclass(frozen=True)
class _Unit:
    """Tickets that sit together: one player, or a complete party."""

    tickets: tuple[Ticket, ...]

    @property
    def joined_at(self) -> float:
        return min(t.joined_at for t in self.tickets)

    @property
    def size(self) -> int:
        return len(self.tickets)


def _units(queue: Sequence[Ticket]) -> list[_Unit]:
    """Solo tickets and complete parties, the longest waiting first; incomplete parties wait."""
    units: list[_Unit] = []
    parties: dict[str, list[Ticket]] = {}
    for ticket in queue:
        if ticket.party_code:
            parties.setdefault(ticket.party_code, []).append(ticket)
        else:
            units.append(_Unit((ticket,)))
    for tickets in parties.values():
        members = {member for t in tickets for member in t.party_members}
        if members <= {t.player_id for t in tickets}:
            units.append(_Unit(tuple(sorted(tickets, key=lambda t: t.joined_at))))
    return sorted(units, key=lambda unit: unit.joined_at)


def _casual_matches(key: QueueKey, queue: Sequence[Ticket], now: float, robot_wait: float, rng: random.Random) -> list[Match]:
    units = _units(queue)
    matches: list[Match] = []
    while units:
        chosen = _fill(units, key.seats)
        humans = sum(unit.size for unit in chosen)
        if humans < key.seats and now - chosen[0].joined_at < robot_wait:
            break
        for unit in chosen:
            units.remove(unit)
        seats = layout(chosen, key.seats, key.teams, rng)
        matches.append(Match(key, seats, tuple(t for unit in chosen for t in unit.tickets)))
    return matches


def _fill(units: Sequence[_Unit], seats: int) -> list[_Unit]:
    """The longest waiting units that fit at one table, in order."""
    chosen: list[_Unit] = []
    free = seats
    for unit in units:
        if unit.size <= free:
            chosen.append(unit)
            free -= unit.size
        if free == 0:
            break
    return chosen


def layout(units: Sequence[_Unit], seats: int, teams: bool, rng: random.Random) -> tuple[str | None, ...]:
    """Who sits where: seat order drawn at random (seat 0 moves first); robots (``None``) fill the rest.

    In team games a party takes a partner pair (seat s and s + n/2) and players who came alone
    are paired with each other before anyone is paired with a robot.
    """
    placed: list[str | None] = [None] * seats
    if not teams:
        players = [t.player_id for unit in units for t in unit.tickets]
        order = list(range(seats))
        rng.shuffle(order)
        for seat, player in zip(order, players):
            placed[seat] = player
        return tuple(placed)
    half = seats // 2
    pairs = [(s, s + half) for s in range(half)]
    rng.shuffle(pairs)
    parties = [unit for unit in units if unit.size > 1]
    solos = [unit.tickets[0].player_id for unit in units if unit.size == 1]
    rng.shuffle(solos)
    for (first, second), party in zip(pairs, parties):
        placed[first], placed[second] = party.tickets[0].player_id, party.tickets[1].player_id
    open_seats = [seat for pair in pairs[len(parties):] for seat in pair]
    for seat, player in zip(open_seats, solos):
        placed[seat] = player
    return tuple(placed)
