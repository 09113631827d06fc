"""The interface of a robot seat.

A robot is given exactly what a person in its seat is given: each event its seat receives (as
``Event.to_json()``), and its ``SeatView`` with the legal actions when it may act. It never sees
the engine's state. It is deterministic for a given seed and input, so a table with robots
replays exactly: the table logs the robot's chosen actions like anybody else's.
"""

from __future__ import annotations

from typing import Mapping, Protocol

from shared.games.base import Json, SeatView


class Robot(Protocol):
    seat: int

    def observe(self, event: Mapping[str, Json]) -> None:
        """Remember an event sent to this seat (public, or private to it)."""
        ...

    def choose(self, view: SeatView, legal: list[dict[str, Json]], now: float) -> dict[str, Json] | None:
        """The action to play now, from ``legal``, or ``None`` to wait (real-time games)."""
        ...
