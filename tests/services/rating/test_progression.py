"""Level points, levels, badges, the ladder and per-game stats (services/rating/progression.py), as
rules/README.md "Progression" and FD-16, GO-14, CA-18, TO-18, QU-17 say."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.rating.progression import (
    GameStats,
    Level,
    LevelPoints,
    badge_earned,
    credited_outcome,
    is_ladder_match,
    level_for,
    level_points,
    level_threshold,
    match_format,
    record_match,
)

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)
FULL, SHORT, SINGLE, QUATRO = (22, 8, 3), (8, 3, 1), (3, 1, 1), (15, 6, 3)


def prices(game: str, options: dict[str, object]) -> tuple[int, int, int]:
    """The win, draw and loss level points of one format."""
    return level_points(game, options, "win"), level_points(game, options, "draw"), level_points(game, options, "loss")


# --- Level points (README "Progression" table) ---


def test_fd16_four_down_pays_22_8_3() -> None:
    assert prices("four_down", {}) == FULL


@pytest.mark.parametrize("game", ["cambio", "cabo"])
def test_ca18_cambio_and_cabo_to_the_finish_line_pay_22_8_3(game: str) -> None:
    assert prices(game, {}) == FULL
    assert prices(game, {"finish_line": 150}) == FULL


@pytest.mark.parametrize("game", ["cambio", "cabo"])
def test_ca18_a_fixed_number_of_rounds_counts_as_the_finish_line_format(game: str) -> None:
    assert prices(game, {"rounds": 3}) == FULL


@pytest.mark.parametrize(("holes", "expected"), [(9, FULL), (3, SHORT), (1, SINGLE)])
def test_go14_golf_is_priced_by_its_holes(holes: int, expected: tuple[int, int, int]) -> None:
    assert prices("golf", {"holes": holes}) == expected


def test_go14_golf_defaults_to_nine_holes_in_any_mode() -> None:
    assert prices("golf", {}) == FULL
    assert prices("golf", {"mode": "extreme"}) == FULL
    assert prices("golf", {"mode": "extreme", "holes": 3}) == SHORT


@pytest.mark.parametrize(("rounds", "expected"), [(10, FULL), (3, SHORT), (1, SINGLE)])
def test_to18_tower_is_priced_by_its_rounds(rounds: int, expected: tuple[int, int, int]) -> None:
    assert prices("tower", {"rounds": rounds}) == expected


def test_to18_tower_defaults_to_ten_rounds() -> None:
    assert prices("tower", {}) == FULL


def test_qu17_quatro_to_five_points_pays_15_6_3() -> None:
    assert prices("quatro", {}) == QUATRO


@pytest.mark.parametrize("game", ["four_down", "golf", "cambio", "cabo", "tower", "quatro"])
@pytest.mark.parametrize("outcome", ["win", "draw", "loss"])
def test_robots_earn_nothing(game: str, outcome: str) -> None:
    assert level_points(game, {}, outcome, robot=True) == 0  # type: ignore[arg-type]


def test_a_loss_still_pays_because_finishing_is_worth_something() -> None:
    for game in ("four_down", "golf", "cambio", "cabo", "tower", "quatro"):
        assert level_points(game, {}, "loss") > 0


def test_the_points_table_is_configurable() -> None:
    table = {("four_down", "finish_line"): LevelPoints(win=30, draw=10, loss=5)}

    assert level_points("four_down", {}, "win", table=table) == 30
    with pytest.raises(ValueError):
        level_points("golf", {}, "win", table=table)


@pytest.mark.parametrize(
    ("game", "options"),
    [("chess", {}), ("golf", {"holes": 5}), ("golf", {"holes": "9"}), ("golf", {"holes": True}),
     ("tower", {"rounds": 7}), ("tower", {"rounds": None})],
)
def test_a_game_or_length_with_no_format_is_refused(game: str, options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        level_points(game, options, "win")


@pytest.mark.parametrize("outcome", ["won", "", None, "WIN"])
def test_an_outcome_other_than_win_draw_loss_is_refused(outcome: object) -> None:
    with pytest.raises(ValueError):
        level_points("four_down", {}, outcome)  # type: ignore[arg-type]


def test_formats_are_named_by_game_and_length() -> None:
    assert match_format("golf", {"holes": 3}) == "3_holes"
    assert match_format("tower", {}) == "10_rounds"
    assert match_format("cabo", {"rounds": 5}) == "finish_line"
    assert match_format("quatro", {}) == "to_5_points"


# --- Abandoning (README "Progression") ---


@pytest.mark.parametrize("outcome", ["win", "draw", "loss"])
def test_a_player_who_abandons_is_credited_a_loss(outcome: str) -> None:
    assert credited_outcome(outcome, abandoned=True) == "loss"  # type: ignore[arg-type]
    assert credited_outcome(outcome, abandoned=False) == outcome  # type: ignore[arg-type]


def test_an_abandoner_earns_the_level_points_of_a_loss() -> None:
    assert level_points("four_down", {}, credited_outcome("win", abandoned=True)) == 3


# --- Levels (project decision: level L >= 2 at 5*(L-1)*(L+2) cumulative points) ---


def test_level_thresholds_are_20_50_90_140() -> None:
    assert [level_threshold(level) for level in range(1, 6)] == [0, 20, 50, 90, 140]


def test_a_newcomer_is_level_1_with_20_points_to_go() -> None:
    assert level_for(0) == Level(level=1, points=0, points_into_level=0, points_to_next=20)


def test_reaching_a_threshold_reaches_the_level() -> None:
    assert level_for(19).level == 1
    assert level_for(20) == Level(level=2, points=20, points_into_level=0, points_to_next=30)
    assert level_for(49).level == 2
    assert level_for(50).level == 3
    assert level_for(95) == Level(level=4, points=95, points_into_level=5, points_to_next=45)


def test_negative_points_are_refused() -> None:
    with pytest.raises(ValueError):
        level_for(-1)


@PROPERTY_SETTINGS
@given(points=st.integers(min_value=0, max_value=10**9))
def test_a_level_is_the_highest_whose_threshold_the_points_reach(points: int) -> None:
    level = level_for(points)

    assert level_threshold(level.level) <= points < level_threshold(level.level + 1)
    assert level.points_into_level == points - level_threshold(level.level)
    assert level.points_to_next == level_threshold(level.level + 1) - points
    assert level.points_to_next > 0


# --- Badges (FD-16, README "Progression": five match wins of a game) ---


def test_fd16_the_fifth_win_earns_the_badge() -> None:
    assert badge_earned(4, 5)


def test_fd16_four_wins_earn_no_badge() -> None:
    assert not badge_earned(3, 4)


def test_fd16_the_badge_is_earned_once() -> None:
    assert not badge_earned(5, 6)
    assert not badge_earned(5, 5)


def test_fd16_a_match_without_a_win_after_the_fourth_earns_nothing() -> None:
    assert not badge_earned(4, 4)


# --- The ladder (README "Progression", FD-16, GO-14, CA-18, TO-18, QU-17) ---

RANKED_DUEL = dict(seats=2, ranked=True, private=False, any_robot=False, team_game=False)


@pytest.mark.parametrize("game", ["four_down", "golf", "cambio", "cabo", "tower"])
def test_a_ranked_two_player_match_moves_the_ladder(game: str) -> None:
    """FD-16, GO-14, CA-18, TO-18: ladder-rated at exactly 2 players (ranked)."""
    assert is_ladder_match(game, **RANKED_DUEL)  # type: ignore[arg-type]


def test_qu17_quatro_never_moves_the_ladder() -> None:
    assert not is_ladder_match("quatro", **RANKED_DUEL)  # type: ignore[arg-type]
    assert not is_ladder_match("quatro", 4, True, False, False, True)


@pytest.mark.parametrize("seats", [3, 4, 6])
def test_three_or_more_seats_leave_the_ladder_alone(seats: int) -> None:
    assert not is_ladder_match("four_down", seats, True, False, False, False)


@pytest.mark.parametrize(
    "change",
    [dict(ranked=False), dict(private=True), dict(any_robot=True), dict(team_game=True), dict(seats=1)],
)
def test_unranked_private_robot_or_team_matches_leave_the_ladder_alone(change: dict[str, object]) -> None:
    assert not is_ladder_match("golf", **{**RANKED_DUEL, **change})  # type: ignore[arg-type]


def test_an_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError):
        is_ladder_match("chess", **RANKED_DUEL)  # type: ignore[arg-type]


# --- Per-game stats ---


def test_a_first_match_fills_the_stats() -> None:
    stats = record_match(GameStats(), "four_down", "win", [12, 0, 25])

    assert stats == GameStats(played=1, won=1, drawn=0, lost=0, best_round=0, round_score_sum=37, round_count=3)
    assert stats.average_round == pytest.approx(37 / 3)


def test_no_rounds_yet_means_no_best_or_average_round() -> None:
    assert GameStats().best_round is None
    assert GameStats().average_round is None
    assert record_match(GameStats(), "golf", "loss", []).best_round is None


def test_the_best_round_is_the_lowest_score_across_matches() -> None:
    stats = record_match(GameStats(), "golf", "loss", [9, 14])
    stats = record_match(stats, "golf", "draw", [4, 30])
    stats = record_match(stats, "golf", "win", [11])

    assert stats.best_round == 4
    assert (stats.played, stats.won, stats.drawn, stats.lost) == (3, 1, 1, 1)


def test_the_average_round_is_over_all_rounds_of_all_matches_not_a_mean_of_means() -> None:
    stats = record_match(GameStats(), "tower", "win", [0])
    stats = record_match(stats, "tower", "loss", [30, 60, 90])

    assert stats.average_round == pytest.approx(45.0)


def test_qu17_quatro_rounds_count_up_so_the_best_round_is_the_highest() -> None:
    stats = record_match(GameStats(), "quatro", "win", [1, 0, 1, 1, 1, 1])

    assert stats.best_round == 1


def test_an_abandoned_match_is_recorded_as_a_loss() -> None:
    stats = record_match(GameStats(), "cabo", "win", [5, 7], abandoned=True)

    assert (stats.played, stats.won, stats.drawn, stats.lost) == (1, 0, 0, 1)


def test_recording_a_match_returns_new_stats_and_leaves_the_old_alone() -> None:
    before = GameStats(played=2, won=1, lost=1, best_round=3, round_score_sum=40, round_count=4)

    after = record_match(before, "cambio", "draw", [10])

    assert before == GameStats(played=2, won=1, lost=1, best_round=3, round_score_sum=40, round_count=4)
    assert after.drawn == 1 and after.played == 3


@PROPERTY_SETTINGS
@given(
    matches=st.lists(
        st.tuples(
            st.sampled_from(["win", "draw", "loss"]),
            st.lists(st.integers(min_value=0, max_value=200), max_size=12),
            st.booleans(),
        ),
        max_size=20,
    )
)
def test_stats_add_up_over_any_sequence_of_matches(matches: list[tuple[str, list[int], bool]]) -> None:
    stats = GameStats()
    for outcome, rounds, abandoned in matches:
        stats = record_match(stats, "four_down", outcome, rounds, abandoned=abandoned)  # type: ignore[arg-type]

    every_round = [score for _, rounds, _ in matches for score in rounds]
    assert stats.played == len(matches) == stats.won + stats.drawn + stats.lost
    assert stats.lost == sum(1 for outcome, _, abandoned in matches if abandoned or outcome == "loss")
    assert stats.round_count == len(every_round)
    assert stats.best_round == (min(every_round) if every_round else None)
    if every_round:
        assert stats.average_round == pytest.approx(sum(every_round) / len(every_round))
