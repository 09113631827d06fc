"""What every game family's screen module provides, and which module draws which game.

A family module turns the seat's own view, the cards it is being shown right now and the events it
received into lines of text, and describes its legal actions in words. It never sees anything else:
it is handed the Snapshot's view and the Watch stream's events, nothing from another seat.
"""

from __future__ import annotations

from typing import Any, Hashable, Mapping, Protocol

Json = Any
Place = Hashable
Shown = Mapping[Place, str]


class Family(Protocol):
    """One game family's screen."""

    real_time: bool
    """True when there are no turns (Quatro): the command line is always open."""

    def render(self, view: Mapping[str, Json], seat: int, shown: Shown, names: list[str]) -> list[str]:
        """The table as the seat knows it, with the cards in ``shown`` face up."""
        ...

    def describe(self, action: Mapping[str, Json], view: Mapping[str, Json], seat: int) -> str:
        """One legal action in words, for the numbered menu."""
        ...

    def narrate(self, event: Mapping[str, Json], seat: int, names: list[str]) -> str | None:
        """One line about an event (never naming a card the seat only glimpsed), or ``None``."""
        ...

    def reveals(self, event: Mapping[str, Json], seat: int) -> list[tuple[Place, str]]:
        """Cards the event shows the seat for a moment, by place."""
        ...

    def moved(self, event: Mapping[str, Json]) -> list[Place]:
        """Places whose card the event changed (a face shown there must go at once)."""
        ...

    def command(self, line: str, view: Mapping[str, Json], legal: list[dict[str, Json]]) -> dict[str, Json] | None:
        """A short typed command as an action (``None``: not a command of this family)."""
        ...

    def in_menu(self, action: Mapping[str, Json]) -> bool:
        """Whether the action gets a number in the menu (Quatro types its many exchanges instead)."""
        ...


def who(seat: Any, me: int, names: list[str]) -> str:
    """"You" or "Name (seat N)", seats counted from 1 for people."""
    if not isinstance(seat, int):
        return "The table"
    if seat == me:
        return "You"
    name = names[seat] if 0 <= seat < len(names) and names[seat] else "Seat"
    return f"{name} (seat {seat + 1})"


def family_for(game: str) -> Family:
    """The screen module of ``game``."""
    if game in ("four_down", "golf", "cambio", "cabo"):
        from services.client import golf_family

        return golf_family.GolfFamilyScreen(game)
    if game == "quatro":
        from services.client import quatro

        return quatro.QuatroScreen()
    if game == "tower":
        from services.client import tower

        return tower.TowerScreen()
    raise ValueError(f"no screen for game {game!r}")
