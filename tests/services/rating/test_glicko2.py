"""Glicko-2 (services/rating/glicko2.py): Glickman's worked example, lichess's parameters, and properties
that hold for any ratings (README "Progression": the ladder moved by two-player matches)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.rating import glicko2
from services.rating.glicko2 import DEFAULT, Rating, rate_match, update

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)

ratings = st.builds(
    Rating,
    rating=st.floats(min_value=0, max_value=4000),
    deviation=st.floats(min_value=glicko2.MIN_DEVIATION, max_value=glicko2.MAX_DEVIATION),
    volatility=st.floats(min_value=0.01, max_value=glicko2.MAX_VOLATILITY),
)
extreme_ratings = st.builds(
    Rating,
    rating=st.floats(min_value=-1e12, max_value=1e12),
    deviation=st.floats(min_value=1e-300, max_value=1e300),
    volatility=st.floats(min_value=1e-300, max_value=1e300),
)
scores = st.sampled_from([1.0, 0.5, 0.0])


def test_glickman_worked_example_with_tau_half() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to 1550/100 and
    1700/300 in one period -> 1464.06 / 151.52 / 0.05999."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30, 0.06), 1.0), (Rating(1550, 100, 0.06), 0.0), (Rating(1700, 300, 0.06), 0.0)]

    new = update(player, results, tau=0.5)

    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_parameters_are_lichess() -> None:
    assert DEFAULT == Rating(1500, 500, 0.09)
    assert glicko2.TAU == 0.75
    assert (glicko2.MIN_DEVIATION, glicko2.MAX_DEVIATION) == (45, 500)
    assert glicko2.PROVISIONAL_DEVIATION == 110
    assert glicko2.CONVERGENCE_TOLERANCE == 1e-6


def test_a_rating_is_provisional_while_its_deviation_is_110_or_more() -> None:
    assert DEFAULT.provisional
    assert Rating(1500, 110, 0.09).provisional
    assert not Rating(1500, 109.99, 0.09).provisional


def test_a_newcomer_who_beats_a_newcomer_gains_what_the_loser_loses() -> None:
    winner, loser = rate_match(DEFAULT, DEFAULT, 1.0)

    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation == pytest.approx(loser.deviation)
    assert winner.deviation < DEFAULT.deviation


def test_a_draw_between_equal_ratings_leaves_both_ratings_where_they_were() -> None:
    a, b = rate_match(Rating(1700, 80, 0.06), Rating(1700, 80, 0.06), 0.5)

    assert a.rating == pytest.approx(1700)
    assert b.rating == pytest.approx(1700)


def test_a_period_without_games_only_widens_the_deviation_step_6() -> None:
    player = Rating(1620, 100, 0.06)

    idle = update(player, [])

    assert idle.rating == player.rating
    assert idle.volatility == player.volatility
    assert idle.deviation == pytest.approx(math.hypot(100 / 173.7178, 0.06) * 173.7178)


def test_the_deviation_never_falls_below_45() -> None:
    veteran = Rating(2000, 45, 0.01)

    after = update(veteran, [(Rating(2000, 45, 0.01), 0.5)] * 50)

    assert after.deviation == glicko2.MIN_DEVIATION


def test_the_deviation_never_exceeds_500_even_after_an_idle_period() -> None:
    assert update(DEFAULT, []).deviation == glicko2.MAX_DEVIATION


@pytest.mark.parametrize("score", [2, -1, 0.25, "1", None, True])
def test_a_score_other_than_win_draw_loss_is_refused(score: object) -> None:
    with pytest.raises(ValueError):
        rate_match(DEFAULT, DEFAULT, score)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        update(DEFAULT, [(DEFAULT, score)])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "fields",
    [(math.nan, 100, 0.06), (math.inf, 100, 0.06), (1500, 0, 0.06), (1500, -5, 0.06), (1500, math.inf, 0.06),
     (1500, 100, 0), (1500, 100, math.nan)],
)
def test_a_rating_that_is_not_a_number_or_not_positive_is_refused(fields: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError):
        Rating(*fields)


@pytest.mark.parametrize("tau", [0, -0.5, math.nan, math.inf])
def test_tau_must_be_positive_and_finite(tau: float) -> None:
    with pytest.raises(ValueError):
        update(DEFAULT, [(DEFAULT, 1.0)], tau=tau)


@PROPERTY_SETTINGS
@given(winner=ratings, loser=ratings)
def test_a_win_never_lowers_the_winners_rating_nor_raises_the_losers(winner: Rating, loser: Rating) -> None:
    new_winner, new_loser = rate_match(winner, loser, 1.0)

    assert new_winner.rating >= winner.rating
    assert new_loser.rating <= loser.rating


@PROPERTY_SETTINGS
@given(a=ratings, b=ratings, score=scores)
def test_scores_are_symmetric(a: Rating, b: Rating, score: float) -> None:
    """Rating A against B with A's score is rating B against A with B's score, seen the other way."""
    new_a, new_b = rate_match(a, b, score)
    mirrored_b, mirrored_a = rate_match(b, a, 1.0 - score)

    assert new_a == mirrored_a
    assert new_b == mirrored_b


@PROPERTY_SETTINGS
@given(a=ratings, b=ratings)
def test_a_draw_moves_the_lower_rating_up_and_the_higher_down(a: Rating, b: Rating) -> None:
    new_a, new_b = rate_match(a, b, 0.5)

    if a.rating < b.rating:
        assert new_a.rating >= a.rating and new_b.rating <= b.rating
    elif a.rating > b.rating:
        assert new_a.rating <= a.rating and new_b.rating >= b.rating


@PROPERTY_SETTINGS
@given(player=ratings, results=st.lists(st.tuples(ratings, scores), max_size=8))
def test_the_deviation_stays_within_45_and_500(player: Rating, results: list[tuple[Rating, float]]) -> None:
    new = update(player, results)

    assert glicko2.MIN_DEVIATION <= new.deviation <= glicko2.MAX_DEVIATION
    assert 0 < new.volatility <= glicko2.MAX_VOLATILITY


@PROPERTY_SETTINGS
@given(player=extreme_ratings, results=st.lists(st.tuples(extreme_ratings, scores), max_size=5))
def test_results_are_finite_for_extreme_inputs(player: Rating, results: list[tuple[Rating, float]]) -> None:
    new = update(player, results)

    assert math.isfinite(new.rating)
    assert glicko2.MIN_DEVIATION <= new.deviation <= glicko2.MAX_DEVIATION
    assert 0 < new.volatility <= glicko2.MAX_VOLATILITY


@PROPERTY_SETTINGS
@given(a=extreme_ratings, b=extreme_ratings, score=scores)
def test_a_rated_match_between_extreme_ratings_is_finite_and_rateable_again(
    a: Rating, b: Rating, score: float
) -> None:
    new_a, new_b = rate_match(a, b, score)

    again_a, again_b = rate_match(new_a, new_b, 1.0 - score)
    assert math.isfinite(again_a.rating) and math.isfinite(again_b.rating)
