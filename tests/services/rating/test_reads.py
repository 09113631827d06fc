"""GetRatings, GetLeaderboard, GetHistory and GetProgress over a real socket, on SQLite and PostgreSQL."""

from __future__ import annotations

import grpc
import pytest
from cardroom.rating.v1 import rating_pb2

from tests.services.rating.rating_harness import (
    DRAW,
    RatingClient,
    duel,
    field_of,
    human,
    match,
    rating,
    reason_of,
)
from tests.support.servers import player_metadata, service_metadata

__all__ = ["rating"]  # the fixture, used by name


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call  # type: ignore[misc]
    return error.value


# --- GetRatings ---


async def test_unknown_players_have_the_initial_provisional_rating(rating: RatingClient) -> None:
    await rating.record(duel("m1", winner="ann", loser="bob"))

    ghost, ann, ghost_again = await rating.ratings("ghost", "ann", "ghost")

    assert (ghost.player_id, ghost.rating, ghost.deviation, ghost.volatility) == ("ghost", 1500, 500, 0.09)
    assert ghost.provisional and ghost.rated_matches == 0 and ghost == ghost_again
    assert ann.player_id == "ann" and ann.rated_matches == 1


async def test_ratings_of_more_than_a_hundred_players_are_refused(rating: RatingClient) -> None:
    error = await refused(rating.ratings(*(f"p{n}" for n in range(101))))

    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (reason_of(error), field_of(error)) == ("INVALID_ARGUMENT", "player_ids")


async def test_reading_needs_a_token(rating: RatingClient) -> None:
    error = await refused(rating.stub.GetRatings(rating_pb2.GetRatingsRequest(player_ids=["ann"])))

    assert error.code() == grpc.StatusCode.UNAUTHENTICATED and reason_of(error) == "TOKEN_MISSING"


# --- GetLeaderboard ---


async def _ladder_of_five(rating: RatingClient) -> None:
    """Five rated players with five different ratings."""
    await rating.record(duel("m1", winner="ann", loser="bob", minute=1))
    await rating.record(duel("m2", winner="cy", loser="dan", minute=2))
    await rating.record(duel("m3", winner="eve", loser="dan", minute=3))
    await rating.record(duel("m4", winner="ann", loser="cy", minute=4))
    await rating.record(duel("m5", winner="bob", loser="eve", minute=5))


async def test_the_leaderboard_is_ordered_by_rating_with_true_ranks(rating: RatingClient) -> None:
    await _ladder_of_five(rating)
    ratings = await rating.ratings("ann", "bob", "cy", "dan", "eve")
    expected = [r.player_id for r in sorted(ratings, key=lambda r: (-r.rating, r.deviation, r.player_id))]

    top = await rating.leaderboard()

    assert top == list(enumerate(expected, start=1))
    assert await rating.leaderboard(limit=2) == top[:2]
    for player_index in range(5):
        around = await rating.leaderboard(limit=3, around=expected[player_index])
        assert len(around) == 3 and (player_index + 1, expected[player_index]) in around
        assert around == top[around[0][0] - 1 : around[0][0] + 2]
    assert await rating.leaderboard(limit=3, around=expected[2]) == top[1:4]


async def test_ties_are_broken_by_deviation_then_player_id(rating: RatingClient) -> None:
    # Two draws between newcomers leave all four at 1500 with the same deviation.
    await rating.record(match("m1", [human("zed", 0, DRAW), human("amy", 1, DRAW)]))
    await rating.record(match("m2", [human("kim", 0, DRAW), human("bea", 1, DRAW)], minute=1))

    assert await rating.leaderboard() == [(1, "amy"), (2, "bea"), (3, "kim"), (4, "zed")]


async def test_settled_only_leaves_provisional_ratings_out(rating: RatingClient) -> None:
    # Seventeen alternating results between two players bring their deviations under 110.
    for number in range(17):
        winner, loser = ("ann", "bob") if number % 2 else ("bob", "ann")
        await rating.record(duel(f"m{number}", winner=winner, loser=loser, minute=number))
    await rating.record(duel("newcomers", winner="cy", loser="dan", minute=20))
    ann, bob = await rating.ratings("ann", "bob")
    assert not ann.provisional and not bob.provisional

    settled = await rating.leaderboard(settled_only=True)

    assert sorted(player for _, player in settled) == ["ann", "bob"]
    assert [rank for rank, _ in settled] == [1, 2]
    assert len(await rating.leaderboard()) == 4
    error = await refused(rating.leaderboard(around="cy", settled_only=True))
    assert error.code() == grpc.StatusCode.NOT_FOUND and reason_of(error) == "NOT_FOUND"


async def test_a_player_not_on_the_ladder_has_no_rows_around_them(rating: RatingClient) -> None:
    await rating.record(duel("m1", winner="ann", loser="bob"))

    error = await refused(rating.leaderboard(around="ghost"))

    assert error.code() == grpc.StatusCode.NOT_FOUND and reason_of(error) == "NOT_FOUND"


@pytest.mark.parametrize("limit", [-1, 101])
async def test_a_leaderboard_limit_out_of_range_is_refused(rating: RatingClient, limit: int) -> None:
    error = await refused(rating.leaderboard(limit=limit))

    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (reason_of(error), field_of(error)) == ("INVALID_ARGUMENT", "limit")


# --- GetHistory ---


async def test_history_pages_newest_first_until_the_end(rating: RatingClient) -> None:
    for number in range(5):
        await rating.record(duel(f"m{number}", winner="ann", loser=f"rival{number}", minute=number))
    await rating.record(duel("other", winner="cy", loser="dan", minute=9))

    pages, token = [], ""
    while True:
        page = await rating.history("ann", page_size=2, page_token=token)
        pages.append([entry.match_id for entry in page.entries])
        token = page.next_page_token
        if not token:
            break

    assert pages == [["m4", "m3"], ["m2", "m1"], ["m0"]]
    first = (await rating.history("ann")).entries[-1]
    assert (first.game, first.kind, first.outcome, first.total, first.level_points) == ("four_down", 1, 1, 8, 22)
    assert first.rating_before.rating == 1500 and first.rating_after.rating > 1500
    assert first.rating_after.rated_matches == 1
    assert first.finished_at.seconds == duel("m0", "a", "b").finished_at.seconds


async def test_history_of_the_caller_when_no_player_is_named(rating: RatingClient) -> None:
    await rating.record(duel("m1", winner="ann", loser="bob"))

    mine = await rating.stub.GetHistory(rating_pb2.GetHistoryRequest(), metadata=player_metadata("bob"))

    assert [(entry.match_id, entry.outcome) for entry in mine.entries] == [("m1", 3)]
    error = await refused(rating.stub.GetHistory(rating_pb2.GetHistoryRequest(), metadata=service_metadata()))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(error) == "player_id"


@pytest.mark.parametrize("token", ["not-a-token", "W10", "WzEsMl0", "bnVsbA"])
async def test_a_page_token_we_did_not_give_is_refused(rating: RatingClient, token: str) -> None:
    error = await refused(rating.history("ann", page_token=token))

    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (reason_of(error), field_of(error)) == ("INVALID_ARGUMENT", "page_token")


@pytest.mark.parametrize("page_size", [-5, 101])
async def test_a_page_size_out_of_range_is_refused(rating: RatingClient, page_size: int) -> None:
    error = await refused(rating.history("ann", page_size=page_size))

    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(error) == "page_size"


# --- GetProgress ---


async def test_progress_of_a_player_who_never_played_starts_at_level_one(rating: RatingClient) -> None:
    progress = await rating.progress("ghost")

    assert (progress.player_id, progress.level, progress.level_points) == ("ghost", 1, 0)
    assert (progress.points_into_level, progress.points_to_next_level) == (0, 20)
    assert not progress.badges and not progress.stats


async def test_progress_of_the_caller_when_no_player_is_named(rating: RatingClient) -> None:
    await rating.record(duel("m1", winner="ann", loser="bob"))

    mine = await rating.stub.GetProgress(rating_pb2.GetProgressRequest(), metadata=player_metadata("ann"))

    assert (mine.progress.player_id, mine.progress.level_points, mine.progress.level) == ("ann", 22, 2)
    (stats,) = mine.progress.stats
    assert (stats.played, stats.won, stats.best_round, stats.average_round) == (1, 1, 4, 5.0)

