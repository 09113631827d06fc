"""The games matchmaking offers: what ListGames shows and how a requested table is checked.

Game ids, seat ranges and option checking come from the engines through ``shared.games.registry``
only (engines are the single source of truth for what a table may be made with). What an engine
does not say (display names, option descriptions, short lists of allowed values, which games move
the ladder) is written here from ``rules/``. Limits: a game installed later without an entry here is
listed with its id as its name and only the table options described.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

import grpc
from cardroom.common.v1 import common_pb2

from shared.errors import ServiceError
from shared.structs import whole_numbers
from shared.table_options import TABLE_OPTION_SPECS, split_table_options
from shared.games import registry
from shared.games.base import BAD_OPTION, BAD_SEAT_COUNT, Json, Rejection

# rules/README.md "Progression": exactly two humans of these games, made as a ranked match, move the
# ladder. Quatro (a team game) never does.
RATED_GAMES: frozenset[str] = frozenset({"four_down", "golf", "cambio", "cabo", "tower"})
RATED_SEATS: tuple[int, ...] = (2,)
# Games whose seats play in teams of two, partners opposite (seat s and s + n/2).
TEAM_GAMES: frozenset[str] = frozenset({"quatro"})

DISPLAY_NAMES: dict[str, str] = {
    "four_down": "Four Down",
    "golf": "Golf",
    "cambio": "Cambio",
    "cabo": "Cabo",
    "quatro": "Quatro",
    "tower": "Tower",
}


@dataclass(frozen=True)
class OptionInfo:
    """One option as ListGames describes it; ``default`` is used when the engine does not fill it."""

    name: str
    description: str
    default: Json
    allowed: tuple[Json, ...] = ()


_BOOL = (False, True)
_CAMBIO_LIKE = (
    OptionInfo("looks_reversed", "The two look powers swap (CA-6).", False, _BOOL),
    OptionInfo("jack_looks", "The jack looks at one of the two cards before choosing to swap or pass (CA-6).", False, _BOOL),
    OptionInfo("wrong_snap_cards", "Cards a wrong snap costs, taken unseen from the stock (CA-10).", 1, (1, 2)),
    OptionInfo("wrong_snap_reveal", "A wrongly snapped card is shown to everyone (CA-10).", False, _BOOL),
    OptionInfo("finish_line", "The match ends when a total reaches this (CA-16); set this or rounds.", 100),
    OptionInfo("rounds", "A fixed number of rounds instead of the finish line (CA-6).", None),
)
GAME_OPTIONS: dict[str, tuple[OptionInfo, ...]] = {
    "four_down": (),
    "golf": (
        OptionInfo("mode", "Classic, or Extreme with powers and burns (GO-8, GO-9).", "classic", ("classic", "extreme")),
        OptionInfo("holes", "Holes (rounds) in the match (GO-7).", 9, (1, 3, 9)),
    ),
    "cambio": _CAMBIO_LIKE,
    "cabo": _CAMBIO_LIKE,
    "quatro": (),
    "tower": (OptionInfo("rounds", "Rounds in the match: 10, or the short formats 1 and 3 (TO-2).", 10, (1, 3, 10)),),
}

# The table service's own options (shared/table_options.py), checked here too so that a bad value
# is refused before anyone waits in a queue for it.
TABLE_OPTIONS: tuple[OptionInfo, ...] = tuple(
    OptionInfo(spec.name, spec.description, int(spec.default) if float(spec.default).is_integer() else spec.default)
    for spec in TABLE_OPTION_SPECS
)


@dataclass(frozen=True)
class TableSpec:
    """A table as asked for, checked: game, seat count and canonical options (defaults filled in)."""

    game: str
    seats: int
    options: dict[str, Json]

    @property
    def options_key(self) -> str:
        """The options as one stable string: players are matched only with equal keys."""
        return json.dumps(self.options, sort_keys=True, separators=(",", ":"))

    @property
    def teams(self) -> bool:
        return self.game in TEAM_GAMES

    @property
    def rated(self) -> bool:
        return self.game in RATED_GAMES and self.seats in RATED_SEATS


def engine(game_id: str) -> Any:
    """The game's engine, or UNKNOWN_GAME."""
    if not game_id:
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME", "game is required", {"field": "game"})
    try:
        return registry.game(game_id)
    except registry.UnknownGame:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME", f"no game {game_id!r} is hosted here", {"game": game_id}
        ) from None


def check_table(game_id: str, options: Mapping[str, Json], seats: int) -> TableSpec:
    """The table ``game_id`` with ``options`` and ``seats``, canonical; refuses anything the game does not allow."""
    game = engine(game_id)
    if not game.min_seats <= seats <= game.max_seats:
        raise Rejection(BAD_SEAT_COUNT, f"{game_id} seats {game.min_seats} to {game.max_seats} players")
    given = whole_numbers(dict(options))
    table_options = _table_options(given)
    game_options = game.check_options(given, seats)
    return TableSpec(game_id, seats, {**game_options, **table_options})


def _table_options(given: dict[str, Json]) -> dict[str, Json]:
    """Removes the table options from ``given`` and returns them checked, defaults filled in."""
    given_table = {spec.name: given.pop(spec.name) for spec in TABLE_OPTION_SPECS if spec.name in given}
    try:
        checked, _ = split_table_options(given_table)
    except Rejection as rejection:
        option = next((spec.name for spec in TABLE_OPTION_SPECS if rejection.message.startswith(spec.name)), "")
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, BAD_OPTION.upper(), rejection.message, {"option": option}) from None
    return {name: int(value) if value.is_integer() else value for name, value in checked.items()}


def game_infos() -> list[common_pb2.GameInfo]:
    """Every installed game as ListGames shows it."""
    return [game_info(game_id) for game_id in registry.available()]


def game_info(game_id: str) -> common_pb2.GameInfo:
    game = registry.game(game_id)
    defaults = _engine_defaults(game)
    options = [_option(option, defaults) for option in (*GAME_OPTIONS.get(game_id, ()), *TABLE_OPTIONS)]
    return common_pb2.GameInfo(
        game=game_id,
        name=DISPLAY_NAMES.get(game_id, game_id.replace("_", " ").title()),
        min_seats=game.min_seats,
        max_seats=game.max_seats,
        rated_seats=list(RATED_SEATS) if game_id in RATED_GAMES else [],
        teams=game_id in TEAM_GAMES,
        options=options,
    )


def _engine_defaults(game: Any) -> dict[str, Json]:
    """The engine's own defaults (its answer to empty options at its smallest table)."""
    try:
        return dict(game.check_options({}, game.min_seats))
    except Rejection:
        return {}


def _option(option: OptionInfo, defaults: Mapping[str, Json]) -> common_pb2.GameOption:
    return common_pb2.GameOption(
        name=option.name,
        description=option.description,
        default_json=json.dumps(defaults.get(option.name, option.default)),
        allowed_json=[json.dumps(value) for value in option.allowed],
    )
