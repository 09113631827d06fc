"""The interface every rules engine implements, and the values it trades in.

An engine is pure: ``(state, seat, action, now) -> (state, events)``. It does no I/O, reads no
clock and owns no global random generator: time arrives as ``now`` (seconds since the table was
made) and randomness comes from the seed stored in the state (see ``shared.games.rng``). So a
table is fully described by its ``Setup`` plus its ordered inputs, and replays exactly.

Hidden information is kept hidden by construction, by allow-list:

* every ``Event`` carries its ``Audience`` (everyone, some seats, or nobody but the server), and
  the table service sends a seat only the events whose audience includes it;
* ``Game.view`` builds a ``SeatView`` holding only what that seat may know *now*; a private
  reveal is never part of a view (rules/README.md, "Visibility": a view rebuilt after a
  reconnect shows face-down cards face down, whatever the seat once saw).

Illegal input raises ``Rejection`` carrying one of the reason codes of rules/README.md, and the
state given to ``apply`` is never changed (engines copy before they write).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, TypeVar

Json = Any
"""A JSON-able value: str, int, float, bool, None, list or dict of those."""

Action = Mapping[str, Json]
"""An action as in conformance/FORMAT.md: ``{"type": "draw", "from": "stock"}``."""

SeatView = dict[str, Json]
"""What one seat (or a spectator, seat ``None``) may know now; JSON-able."""


# Reason codes shared by every game (rules/README.md, "Rejections").
NOT_YOUR_TURN = "not_your_turn"
ILLEGAL = "illegal"
COOLDOWN = "cooldown"
STALE = "stale"
BAD_TARGET = "bad_target"
OWN_QUARTET = "own_quartet"
UNKNOWN_ACTION = "unknown_action"
ROUND_OVER = "round_over"
# Reasons for a table that cannot be made as asked.
BAD_OPTION = "bad_option"
BAD_SEAT_COUNT = "bad_seat_count"
BAD_DEAL = "bad_deal"

REASONS = frozenset(
    {
        NOT_YOUR_TURN,
        ILLEGAL,
        COOLDOWN,
        STALE,
        BAD_TARGET,
        OWN_QUARTET,
        UNKNOWN_ACTION,
        ROUND_OVER,
        BAD_OPTION,
        BAD_SEAT_COUNT,
        BAD_DEAL,
    }
)


class Rejection(Exception):
    """An input that is not legal now. It changed nothing.

    ``reason`` is a machine-readable code from ``REASONS``; ``message`` is for people and must
    never name a card the acting seat may not know.
    """

    def __init__(self, reason: str, message: str) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown rejection reason {reason!r}")
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Audience:
    """Who may receive an event.

    ``public``: every seat and every spectator. Otherwise exactly ``seats``; an empty set means
    hidden, kept by the server alone (useful in the log for replay and audit).
    """

    public: bool = False
    seats: frozenset[int] = frozenset()

    @staticmethod
    def everyone() -> Audience:
        return _EVERYONE

    @staticmethod
    def only(*seats: int) -> Audience:
        return Audience(public=False, seats=frozenset(seats))

    @staticmethod
    def nobody() -> Audience:
        return _NOBODY

    def includes(self, seat: int | None) -> bool:
        """Whether ``seat`` (``None`` for a spectator) may receive the event."""
        if self.public:
            return True
        return seat is not None and seat in self.seats

    @property
    def is_private(self) -> bool:
        return not self.public and bool(self.seats)


_EVERYONE = Audience(public=True)
_NOBODY = Audience()


@dataclass(frozen=True)
class Event:
    """Something that happened at the table, for the audience named.

    ``kind`` is a short snake_case name (``drew``, ``card_shown``); ``data`` is JSON-able and holds
    cards as strings (``"KD"``, or the number for Cabo's deck). ``reveal`` marks a private reveal
    of a card: after a dropped stream it is re-sent only inside the reveal window.
    """

    kind: str
    data: Mapping[str, Json]
    audience: Audience
    reveal: bool = False

    def to_json(self) -> dict[str, Json]:
        return {"kind": self.kind, **dict(self.data)}


def public(kind: str, **data: Json) -> Event:
    return Event(kind, data, Audience.everyone())


def private(seat: int, kind: str, *, reveal: bool = False, **data: Json) -> Event:
    return Event(kind, data, Audience.only(seat), reveal=reveal)


def to_seats(seats: Sequence[int], kind: str, *, reveal: bool = False, **data: Json) -> Event:
    return Event(kind, data, Audience.only(*seats), reveal=reveal)


def hidden(kind: str, **data: Json) -> Event:
    return Event(kind, data, Audience.nobody())


@dataclass(frozen=True)
class Setup:
    """Everything a table starts from; stored as the table's creation record.

    ``deals`` optionally fixes the exact starting position of round 1, 2, ... (the conformance
    format's ``deals``, keyed per game); a round without an entry is dealt from ``seed``.
    ``first`` optionally names the seat that moves first in round 1. ``robots`` are the seats
    played by the server's robots (Quatro's robots are always ready and never vote, QU-4, QU-12).
    ``options`` are the engine's own, as returned by ``Game.check_options``; the host seat, where
    a game has one, is the option ``host`` (default 0).
    """

    seats: int
    options: Mapping[str, Json] = field(default_factory=dict)
    seed: int = 0
    deals: Sequence[Mapping[str, Json]] = ()
    first: int | None = None
    now: float = 0.0
    robots: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Standing:
    """One seat's (or team's) place when the match is over."""

    total: int
    outcome: str  # "win", "draw" or "loss" (rules/README.md, "Progression")


@dataclass(frozen=True)
class MatchResult:
    """The end of a match: per seat totals and outcomes, and rounds played.

    For team games ``standings`` is still per seat (each partner carries the team's result).
    ``best_round`` and ``rounds`` feed the per-game stats on the ladder.
    """

    standings: tuple[Standing, ...]
    rounds: int
    round_scores: tuple[tuple[int, ...], ...] = ()

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.standings) if s.outcome in ("win", "draw"))


StateT = TypeVar("StateT")


class Game(Protocol[StateT]):
    """A rules engine. One module-level instance per game id (see ``shared.games.registry``)."""

    id: str
    min_seats: int
    max_seats: int

    def check_options(self, options: Mapping[str, Json], seats: int) -> dict[str, Json]:
        """The options in force, defaults filled in. Raises ``Rejection(BAD_OPTION | BAD_SEAT_COUNT)``."""
        ...

    def start(self, setup: Setup) -> tuple[StateT, list[Event]]:
        """Deal round 1 (and anything else the match opens with)."""
        ...

    def apply(self, state: StateT, seat: int, action: Action, now: float) -> tuple[StateT, list[Event]]:
        """Play ``action`` for ``seat`` at time ``now``. Raises ``Rejection``; never mutates ``state``."""
        ...

    def next_deadline(self, state: StateT) -> float | None:
        """When the next timer falls due (seconds, table time), or ``None`` if none is running."""
        ...

    def advance(self, state: StateT, now: float) -> tuple[StateT, list[Event]]:
        """Fire every timer due at or before ``now``, in time order. No-op when none is due."""
        ...

    def to_move(self, state: StateT) -> int | None:
        """The seat whose turn it is, or ``None`` (real time, or between rounds, or over)."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> list[dict[str, Json]]:
        """Every action ``seat`` may send now (for robots, clients and tests)."""
        ...

    def clock_actions(self, state: StateT, seat: int) -> list[dict[str, Json]]:
        """What the turn clock plays for ``seat`` when it runs out (empty: nothing automatic)."""
        ...

    def view(self, state: StateT, seat: int | None) -> SeatView:
        """What ``seat`` (``None``: a spectator) may know now. Built by allow-list."""
        ...

    def result(self, state: StateT) -> MatchResult | None:
        """The match result once the match is over, else ``None``."""
        ...

    def inspect(self, state: StateT) -> dict[str, Json]:
        """The whole truth in conformance terms (FORMAT.md "Checks"): ``hands``, ``turn``,
        ``phase``, ``round``, ``totals``, ... Server-side and tests only; never sent to a seat."""
        ...
