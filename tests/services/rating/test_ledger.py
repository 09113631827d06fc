"""The ledger's pure rules (services/rating/ledger.py) and its schema (the migration matches the models)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from services.rating import glicko2, store  # noqa: F401 - store registers the models compared below
from services.rating.ledger import MatchKind, MatchResult, Seat, ladder_score, moves_ladder, typed_options
from shared.db import make_engine, upgrade
from shared.errors import ServiceError


def seat(player_id: str, number: int, outcome: str = "win", robot: bool = False, abandoned: bool = False) -> Seat:
    return Seat(player_id, number, number, outcome, 10, (10,), robot, abandoned)  # type: ignore[arg-type]


def result(game: str, kind: MatchKind, seats: tuple[Seat, ...], teams: bool = False) -> MatchResult:
    return MatchResult("m", game, kind, {}, seats, 0, 1, teams)


DUEL = (seat("ann", 0), seat("bob", 1, "loss"))


@pytest.mark.parametrize(
    ("game", "kind", "seats", "teams", "rated"),
    [
        ("four_down", "ranked", DUEL, False, True),
        ("golf", "ranked", DUEL, False, True),
        ("quatro", "ranked", DUEL, False, False),  # QU-17: never rated
        ("four_down", "casual", DUEL, False, False),
        ("four_down", "ranked", (*DUEL, seat("cy", 2, "loss")), False, False),
        ("four_down", "ranked", (seat("ann", 0), seat("", 1, "loss", robot=True)), False, False),
        ("chess", "ranked", DUEL, False, True),
        ("chess", "casual", DUEL, False, False),
        ("chess", "private", DUEL, False, False),
        ("chess", "ranked", (seat("ann", 0), seat("", 1, "loss", robot=True)), False, False),
        ("chess", "ranked", (*DUEL, seat("cy", 2, "loss")), False, False),
        ("chess", "ranked", DUEL, True, False),
    ],
)
def test_which_matches_move_the_one_ladder(
    game: str, kind: MatchKind, seats: tuple[Seat, ...], teams: bool, rated: bool
) -> None:
    assert moves_ladder(result(game, kind, seats, teams)) is rated


@pytest.mark.parametrize(
    ("first", "second", "score"),
    [
        (seat("a", 0, "win"), seat("b", 1, "loss"), glicko2.WIN),
        (seat("a", 0, "draw"), seat("b", 1, "draw"), glicko2.DRAW),
        (seat("a", 0, "loss"), seat("b", 1, "win"), glicko2.LOSS),
        (seat("a", 0, "win", abandoned=True), seat("b", 1, "loss"), glicko2.LOSS),
        (seat("a", 0, "loss"), seat("b", 1, "loss", abandoned=True), glicko2.WIN),
        (seat("a", 0, "win", abandoned=True), seat("b", 1, "loss", abandoned=True), glicko2.DRAW),
    ],
)
def test_the_ladder_scores_an_abandon_as_a_loss(first: Seat, second: Seat, score: float) -> None:
    assert ladder_score(first, second) == score


@pytest.mark.parametrize(("first", "second"), [("win", "win"), ("loss", "loss"), ("win", "draw")])
def test_outcomes_that_cannot_be_one_duel_are_refused(first: str, second: str) -> None:
    with pytest.raises(ServiceError) as refused:
        ladder_score(seat("a", 0, first), seat("b", 1, second))
    assert refused.value.metadata == {"field": "participants"}


def test_length_options_are_read_as_whole_numbers() -> None:
    assert typed_options({"holes": "3", "mode": "extreme", "offset": "-2", "odd": "³"}) == {
        "holes": 3,
        "mode": "extreme",
        "offset": -2,
        "odd": "³",
    }


def test_the_migration_creates_exactly_the_models_tables(database_url: str) -> None:
    engine = make_engine(database_url)
    upgrade(engine, "rating")
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={
                "version_table": "alembic_version_rating",
                # Only this service's tables: other services' models may be loaded in the same run.
                "include_object": lambda _object, name, kind, _reflected, _other: kind != "table"
                or name.startswith("rating_"),
            },
        )
        differences = compare_metadata(context, SQLModel.metadata)
    engine.dispose()
    assert differences == []
