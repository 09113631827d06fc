"""Level points, levels, badges, ladder eligibility and per-game stats: pure functions over plain values.

The rules are rules/README.md "Progression" (after seed 000, "Scoring" and "Four Down is RATED") and
the per-game rows FD-16, GO-14, CA-18, TO-18 and QU-17:

- Finishing a match pays level points by game and format (``LEVEL_POINTS``, configurable by passing
  another table). A cambio or cabo match played over a fixed number of ``rounds`` is priced as the
  finish-line format. Robots earn nothing.
- Only a ranked two-player match of four_down, golf (any mode or length), cambio, cabo or tower with no
  robot, at a public table, moves the ladder; quatro (a team game) never does.
- Five match wins of a game earn that game's badge.
- A player who abandons is credited a loss: it counts as a loss everywhere here (stats, badge count,
  and the loss's level points, as the README credits a loss without exception).

Project decision (the rules define no thresholds): reaching level L, for L >= 2, needs 5*(L-1)*(L+2)
cumulative level points (level 2 at 20, 3 at 50, 4 at 90, 5 at 140, ...); level 1 starts at 0. The
steps grow by 10 points per level, so a level is always a few more finished matches than the last.

Per-game stats keep the sum and count of round scores (so an average is exact over any number of
matches) and the best round. Every game but quatro scores low (the best round is the lowest score);
quatro's rounds score points for the team (the best round is the highest).

Limits: no database and no clock; callers decide who is a robot or abandoned and pass plain values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Mapping, Sequence

Outcome = Literal["win", "draw", "loss"]
OUTCOMES: tuple[str, ...] = ("win", "draw", "loss")

GAMES: tuple[str, ...] = ("four_down", "golf", "cambio", "cabo", "tower", "quatro")

# The format names used as keys of the level-point table.
FINISH_LINE = "finish_line"
TO_FIVE_POINTS = "to_5_points"
GOLF_FORMATS: Mapping[int, str] = {9: "9_holes", 3: "3_holes", 1: "1_hole"}
TOWER_FORMATS: Mapping[int, str] = {10: "10_rounds", 3: "3_rounds", 1: "1_round"}

# The lengths a match has when the table's creator does not choose (GO options, TO-2).
DEFAULT_GOLF_HOLES = 9
DEFAULT_TOWER_ROUNDS = 10


@dataclass(frozen=True)
class LevelPoints:
    """Level points for finishing a match with each outcome."""

    win: int
    draw: int
    loss: int

    def for_outcome(self, outcome: Outcome) -> int:
        return {"win": self.win, "draw": self.draw, "loss": self.loss}[outcome]


# rules/README.md "Progression": the seed's Four Down prices (22/8/3, FD-16) for a full-length match;
# shorter formats pay less, as length prices a match ("finishing pays, length prices it").
FULL_MATCH = LevelPoints(win=22, draw=8, loss=3)
SHORT_MATCH = LevelPoints(win=8, draw=3, loss=1)
SINGLE_DEAL = LevelPoints(win=3, draw=1, loss=1)
QUATRO_MATCH = LevelPoints(win=15, draw=6, loss=3)

LEVEL_POINTS: Mapping[tuple[str, str], LevelPoints] = {
    ("four_down", FINISH_LINE): FULL_MATCH,  # FD-16
    ("cambio", FINISH_LINE): FULL_MATCH,  # CA-18
    ("cabo", FINISH_LINE): FULL_MATCH,  # CA-18
    ("tower", TOWER_FORMATS[10]): FULL_MATCH,  # TO-18
    ("golf", GOLF_FORMATS[9]): FULL_MATCH,  # GO-14
    ("golf", GOLF_FORMATS[3]): SHORT_MATCH,  # GO-14
    ("tower", TOWER_FORMATS[3]): SHORT_MATCH,  # TO-18
    ("golf", GOLF_FORMATS[1]): SINGLE_DEAL,  # GO-14
    ("tower", TOWER_FORMATS[1]): SINGLE_DEAL,  # TO-18
    ("quatro", TO_FIVE_POINTS): QUATRO_MATCH,  # QU-17
}

# README "Progression": "A match between exactly two players of four_down, golf, cambio, cabo or tower,
# made as a ranked match, moves the single platform ladder."
LADDER_GAMES: frozenset[str] = frozenset({"four_down", "golf", "cambio", "cabo", "tower"})
LADDER_SEATS = 2

# README "Progression": "A player who wins five matches of a game earns that game's badge."
BADGE_WINS = 5

# Games whose round scores count up toward a win (the best round is the highest); all others score low.
HIGH_SCORING_GAMES: frozenset[str] = frozenset({"quatro"})


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}")


def _check_outcome(outcome: str) -> None:
    if outcome not in OUTCOMES:
        raise ValueError(f"an outcome is 'win', 'draw' or 'loss', not {outcome!r}")


def _length_option(options: Mapping[str, object], key: str, default: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"option {key!r} must be an integer, not {value!r}")
    return value


def match_format(game: str, options: Mapping[str, object]) -> str:
    """The format a match of ``game`` with these table options is priced as.

    Golf by ``holes`` (default 9), tower by ``rounds`` (default 10); four_down, cambio and cabo (to the
    finish line, or a fixed ``rounds`` counted as the same format); quatro to 5 points. Raises
    ``ValueError`` for an unknown game or a length with no format.
    """
    _check_game(game)
    if game == "golf":
        holes = _length_option(options, "holes", DEFAULT_GOLF_HOLES)
        if holes not in GOLF_FORMATS:
            raise ValueError(f"golf has no format of {holes} holes")
        return GOLF_FORMATS[holes]
    if game == "tower":
        rounds = _length_option(options, "rounds", DEFAULT_TOWER_ROUNDS)
        if rounds not in TOWER_FORMATS:
            raise ValueError(f"tower has no format of {rounds} rounds")
        return TOWER_FORMATS[rounds]
    if game == "quatro":
        return TO_FIVE_POINTS
    return FINISH_LINE


def credited_outcome(outcome: Outcome, abandoned: bool) -> Outcome:
    """README "Progression": a player who abandons (leaves, or is removed after the disconnect limit)
    is credited a loss, whatever the table's standings say."""
    _check_outcome(outcome)
    return "loss" if abandoned else outcome


def level_points(
    game: str,
    options: Mapping[str, object],
    outcome: Outcome,
    *,
    robot: bool = False,
    table: Mapping[tuple[str, str], LevelPoints] = LEVEL_POINTS,
) -> int:
    """Level points for finishing one match of ``game`` with ``options`` and this outcome.

    A robot earns nothing. ``table`` prices each (game, format); the default is README "Progression".
    Raises ``ValueError`` for an unknown game, outcome or format, or a format missing from ``table``.
    """
    _check_outcome(outcome)
    format_name = match_format(game, options)
    if robot:
        return 0  # README "Progression": robots earn nothing.
    prices = table.get((game, format_name))
    if prices is None:
        raise ValueError(f"no level points for {game} {format_name}")
    return prices.for_outcome(outcome)


@dataclass(frozen=True)
class Level:
    """Where a point total stands: its level, the points into it and the points still to the next."""

    level: int
    points: int
    points_into_level: int
    points_to_next: int


def level_threshold(level: int) -> int:
    """Cumulative points needed to reach ``level`` (project decision: 5*(L-1)*(L+2); level 1 at 0)."""
    if level < 1:
        raise ValueError(f"levels start at 1, not {level}")
    return 5 * (level - 1) * (level + 2)


def level_for(points: int) -> Level:
    """The level a cumulative point total has reached. Raises ``ValueError`` for negative points."""
    if points < 0:
        raise ValueError(f"level points are never negative, not {points}")
    # 5(L-1)(L+2) <= p  <=>  5(2L+1)^2 <= 4p + 45, so L = floor((sqrt((4p+45)/5) - 1) / 2).
    level = max(1, (math.isqrt((4 * points + 45) // 5) - 1) // 2)
    return Level(
        level=level,
        points=points,
        points_into_level=points - level_threshold(level),
        points_to_next=level_threshold(level + 1) - points,
    )


def badge_earned(wins_before: int, wins_after: int) -> bool:
    """Whether this match's win count crossed the badge line (five wins of a game, FD-16)."""
    return wins_before < BADGE_WINS <= wins_after


def is_ladder_match(
    game: str, seats: int, ranked: bool, private: bool, any_robot: bool, team_game: bool
) -> bool:
    """Whether a finished match moves the platform ladder (README "Progression", FD-16, GO-14, CA-18,
    TO-18; QU-17: quatro never). Three or more seats, team games, private tables and matches with a
    robot award level points and stats but leave the ladder alone."""
    _check_game(game)
    return (
        game in LADDER_GAMES
        and seats == LADDER_SEATS
        and ranked
        and not private
        and not any_robot
        and not team_game
    )


@dataclass(frozen=True)
class GameStats:
    """One player's record in one game. ``best_round`` is None until a round has been scored."""

    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    best_round: int | None = None
    round_score_sum: int = 0
    round_count: int = 0

    @property
    def average_round(self) -> float | None:
        """Mean of the player's round scores across all their matches of the game, or None if none."""
        if self.round_count == 0:
            return None
        return self.round_score_sum / self.round_count


def _best_round(game: str, best_so_far: int | None, round_scores: Sequence[int]) -> int | None:
    candidates = list(round_scores) if best_so_far is None else [best_so_far, *round_scores]
    if not candidates:
        return None
    return max(candidates) if game in HIGH_SCORING_GAMES else min(candidates)


def record_match(
    stats: GameStats,
    game: str,
    outcome: Outcome,
    round_scores: Sequence[int],
    *,
    abandoned: bool = False,
) -> GameStats:
    """``stats`` after one more finished match of ``game``.

    ``round_scores`` are this player's (or their team's, in quatro) scores of the rounds the match
    played. A player who abandoned is credited a loss (README "Progression"). Raises ``ValueError``
    for an unknown game or outcome.
    """
    _check_game(game)
    credited = credited_outcome(outcome, abandoned)
    return GameStats(
        played=stats.played + 1,
        won=stats.won + (credited == "win"),
        drawn=stats.drawn + (credited == "draw"),
        lost=stats.lost + (credited == "loss"),
        best_round=_best_round(game, stats.best_round, round_scores),
        round_score_sum=stats.round_score_sum + sum(round_scores),
        round_count=stats.round_count + len(round_scores),
    )
