"""Where each game's engine and robot live, by game id.

Engines are imported on first use, so a service that hosts only some games imports only those.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from shared.games.base import Game, Json
from shared.robots.base import Robot

_ENGINES: dict[str, tuple[str, str]] = {
    "four_down": ("shared.games.golf_family", "FOUR_DOWN"),
    "golf": ("shared.games.golf_family", "GOLF"),
    "cambio": ("shared.games.golf_family", "CAMBIO"),
    "cabo": ("shared.games.golf_family", "CABO"),
    "quatro": ("shared.games.quatro", "QUATRO"),
    "tower": ("shared.games.tower", "TOWER"),
}

_ROBOTS: dict[str, tuple[str, str]] = {
    "four_down": ("shared.robots.golf_family", "GolfFamilyRobot"),
    "golf": ("shared.robots.golf_family", "GolfFamilyRobot"),
    "cambio": ("shared.robots.golf_family", "GolfFamilyRobot"),
    "cabo": ("shared.robots.golf_family", "GolfFamilyRobot"),
    "quatro": ("shared.robots.quatro", "QuatroRobot"),
    "tower": ("shared.robots.tower", "TowerRobot"),
}


class UnknownGame(KeyError):
    """No engine is installed under this game id."""


def _load(table: Mapping[str, tuple[str, str]], game_id: str) -> Any:
    try:
        module_name, attribute = table[game_id]
        return getattr(importlib.import_module(module_name), attribute)
    except (KeyError, ImportError, AttributeError) as error:
        raise UnknownGame(game_id) from error


def game(game_id: str) -> Game[Any]:
    """The engine for ``game_id``. Raises ``UnknownGame``."""
    return _load(_ENGINES, game_id)


def robot(game_id: str, seat: int, seats: int, options: Mapping[str, Json], seed: int) -> Robot:
    """A fresh robot to play ``seat``. Raises ``UnknownGame``."""
    factory = _load(_ROBOTS, game_id)
    return factory(game_id=game_id, seat=seat, seats=seats, options=options, seed=seed)


def available() -> list[str]:
    """Game ids whose engines are installed and import cleanly."""
    ids = []
    for game_id in _ENGINES:
        try:
            game(game_id)
        except UnknownGame:
            continue
        ids.append(game_id)
    return ids
