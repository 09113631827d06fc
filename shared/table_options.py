"""The options every table has beside its game's own: the turn clock, the reveal window, robots' pace.

The table service applies them; matchmaking validates and offers them (ListGames) from this one list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from shared.games.base import BAD_OPTION, Json, Rejection


@dataclass(frozen=True)
class TableOptionSpec:
    name: str
    description: str
    default: float
    low: float
    high: float


TABLE_OPTION_SPECS: tuple[TableOptionSpec, ...] = (
    # Issue 2: the turn clock's default. An hour at most: longer is no clock at all (0).
    TableOptionSpec("turn_seconds", "Seconds a seat has to act before the clock plays for it (0: no clock).", 45, 0, 3600),
    # rules/README.md "Visibility": the default reveal window.
    TableOptionSpec("reveal_window", "Seconds within which a missed private reveal is sent again after a reconnect.", 5, 0, 600),
    # Robots "think" a moment so humans can follow and a returning player can act first.
    TableOptionSpec("robot_delay", "Seconds a robot waits before it acts.", 1, 0, 60),
)


def split_table_options(options: Mapping[str, Json]) -> tuple[dict[str, float], dict[str, Json]]:
    """(table options with defaults, the game's options). Raises ``Rejection(BAD_OPTION)``."""
    game_options = dict(options)
    table_options: dict[str, float] = {}
    for spec in TABLE_OPTION_SPECS:
        raw = game_options.pop(spec.name, spec.default)
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not spec.low <= raw <= spec.high:
            raise Rejection(BAD_OPTION, f"{spec.name} must be a number from {spec.low:g} to {spec.high:g}")
        table_options[spec.name] = float(raw)
    return table_options, game_options
