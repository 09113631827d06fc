"""RecordMatchResult over a real socket, on SQLite and PostgreSQL: what a match pays, exactly once."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from cardroom.rating.v1 import rating_pb2
from prometheus_client import REGISTRY

from services.rating import glicko2
from tests.services.rating.rating_harness import (
    CASUAL,
    DRAW,
    LOSS,
    PRIVATE,
    WIN,
    RatingClient,
    duel,
    field_of,
    human,
    match,
    rating,
    reason_of,
    robot,
    running_rating,
)
from tests.support.servers import player_metadata

__all__ = ["rating"]  # the fixture, used by name

NEWCOMER = glicko2.DEFAULT


def glicko(message: rating_pb2.PlayerRating) -> glicko2.Rating:
    return glicko2.Rating(message.rating, message.deviation, message.volatility)


async def standing(rating: RatingClient, *players: str) -> list[tuple[object, ...]]:
    """Everything a result can change of these players, to check that nothing changed."""
    ratings = await rating.ratings(*players)
    progress = [await rating.progress(player) for player in players]
    histories = [await rating.history(player) for player in players]
    return [
        *(message.SerializeToString() for message in ratings),
        *(message.SerializeToString() for message in progress),
        *(message.SerializeToString() for message in histories),
    ]


def results_counted(game: str, result: str) -> float:
    return REGISTRY.get_sample_value("cardroom_rating_results_total", {"game": game, "result": result}) or 0.0


# --- the ladder ---


async def test_two_ranked_four_down_players_move_by_glicko2(rating: RatingClient) -> None:
    answer = await rating.record(duel("m1", winner="ann", loser="bob"))

    expected_ann, expected_bob = glicko2.rate_match(NEWCOMER, NEWCOMER, glicko2.WIN)
    assert answer.applied and answer.rated
    ann, bob = await rating.ratings("ann", "bob")
    assert glicko(ann) == expected_ann and glicko(bob) == expected_bob
    assert (ann.rated_matches, bob.rated_matches) == (1, 1)
    changes = {change.player_id: change for change in answer.changes}
    assert glicko(changes["ann"].rating_before) == NEWCOMER
    assert glicko(changes["ann"].rating_after) == expected_ann
    assert glicko(changes["bob"].rating_after) == expected_bob
    assert (changes["ann"].level_points, changes["bob"].level_points) == (22, 3)  # FD-16

    second = await rating.record(duel("m2", winner="bob", loser="ann", minute=1))
    again_ann, again_bob = glicko2.rate_match(expected_ann, expected_bob, glicko2.LOSS)
    ann, bob = await rating.ratings("ann", "bob")
    assert second.applied and glicko(ann) == again_ann and glicko(bob) == again_bob


async def test_a_three_player_match_moves_no_rating_but_pays_level_points(rating: RatingClient) -> None:
    answer = await rating.record(
        match("m1", [human("ann", 0, WIN, 5), human("bob", 1, LOSS, 9), human("cy", 2, LOSS, 30)])
    )

    assert answer.applied and not answer.rated
    assert [(c.player_id, c.level_points, c.HasField("rating_after")) for c in answer.changes] == [
        ("ann", 22, False),
        ("bob", 3, False),
        ("cy", 3, False),
    ]
    assert all(r.rated_matches == 0 and glicko(r) == NEWCOMER for r in await rating.ratings("ann", "bob", "cy"))
    assert (await rating.progress("ann")).level_points == 22
    assert await rating.leaderboard() == []


@pytest.mark.parametrize("kind", [CASUAL, PRIVATE])
async def test_casual_and_private_matches_leave_the_ladder_alone(rating: RatingClient, kind: int) -> None:
    answer = await rating.record(match("m1", [human("ann", 0, WIN), human("bob", 1, LOSS)], kind=kind))

    assert answer.applied and not answer.rated
    assert [c.level_points for c in answer.changes] == [22, 3]


async def test_a_match_with_a_robot_is_not_rated_and_the_robot_earns_nothing(rating: RatingClient) -> None:
    answer = await rating.record(match("m1", [human("ann", 0, WIN), robot(1, LOSS)]))

    assert not answer.rated
    assert [c.player_id for c in answer.changes] == ["ann"]
    assert (await rating.progress("ann")).level_points == 22
    assert await rating.leaderboard() == []


async def test_a_chess_result_moves_the_one_shared_ladder(rating: RatingClient) -> None:
    chess = await rating.record(duel("chess-1", winner="ann", loser="bob", game="chess"))
    cards = await rating.record(duel("m2", winner="bob", loser="ann", minute=1))

    after_chess = glicko2.rate_match(NEWCOMER, NEWCOMER, glicko2.WIN)
    after_cards = glicko2.rate_match(*after_chess, glicko2.LOSS)
    assert chess.rated and cards.rated
    ann, bob = await rating.ratings("ann", "bob")
    assert (glicko(ann), glicko(bob)) == after_cards
    assert [c.level_points for c in chess.changes] == [0, 0]  # level points are for our games only
    assert [entry.game for entry in (await rating.history("ann")).entries] == ["four_down", "chess"]
    assert [s.game for s in (await rating.progress("ann")).stats] == ["four_down"]


async def test_abandoning_is_a_loss_on_the_ladder_and_in_stats(rating: RatingClient) -> None:
    answer = await rating.record(
        match("m1", [human("ann", 0, WIN, 5, abandoned=True), human("bob", 1, LOSS, 9)])
    )

    expected_ann, expected_bob = glicko2.rate_match(NEWCOMER, NEWCOMER, glicko2.LOSS)
    ann, bob = await rating.ratings("ann", "bob")
    assert (glicko(ann), glicko(bob)) == (expected_ann, expected_bob)
    # Level points follow each player's own credited outcome: the abandon makes ann's a loss, and
    # bob's stays the loss the table reported; only the ladder scores the pair against each other.
    assert [c.level_points for c in answer.changes] == [3, 3]
    (stats,) = (await rating.progress("ann")).stats
    assert (stats.won, stats.lost) == (0, 1)
    assert (await rating.history("ann")).entries[0].outcome == LOSS


async def test_a_draw_scores_half_for_both(rating: RatingClient) -> None:
    await rating.record(match("m1", [human("ann", 0, DRAW), human("bob", 1, DRAW)]))

    ann, bob = await rating.ratings("ann", "bob")
    assert (glicko(ann), glicko(bob)) == glicko2.rate_match(NEWCOMER, NEWCOMER, glicko2.DRAW)


# --- badges and stats ---


async def test_five_wins_of_a_game_earn_its_badge_once(rating: RatingClient) -> None:
    badges = []
    for number in range(6):
        answer = await rating.record(duel(f"m{number}", winner="ann", loser="bob", minute=number))
        badges.append(answer.changes[0].badge_earned)

    assert badges == ["", "", "", "", "four_down", ""]
    progress = await rating.progress("ann")
    assert [badge.game for badge in progress.badges] == ["four_down"]
    assert progress.badges[0].earned_at.seconds == duel("m4", "ann", "bob", minute=4).finished_at.seconds
    assert (await rating.progress("bob")).badges == []


async def test_stats_and_levels_add_up(rating: RatingClient) -> None:
    await rating.record(match("m1", [human("ann", 0, WIN, 7, rounds=[3, 4]), human("bob", 1, LOSS)], kind=CASUAL))
    await rating.record(
        match("m2", [human("ann", 0, LOSS, 17, rounds=[9, 8]), human("bob", 1, WIN)], kind=CASUAL, minute=1)
    )

    progress = await rating.progress("ann")
    assert (progress.level, progress.level_points, progress.points_into_level, progress.points_to_next_level) == (
        2,
        25,
        5,
        25,
    )
    (stats,) = progress.stats
    assert (stats.game, stats.played, stats.won, stats.drawn, stats.lost) == ("four_down", 2, 1, 0, 1)
    assert stats.best_round == 3 and stats.average_round == 6.0


# --- exactly once ---


async def test_recording_twice_applies_once_and_answers_the_same(rating: RatingClient) -> None:
    applied_before = results_counted("four_down", "applied")
    retried_before = results_counted("four_down", "retry")
    first = await rating.record(duel("m1", winner="ann", loser="bob"))
    after_first = await standing(rating, "ann", "bob")

    again = await rating.record(duel("m1", winner="ann", loser="bob"))

    assert first.applied and not again.applied
    assert again.rated == first.rated and list(again.changes) == list(first.changes)
    assert await standing(rating, "ann", "bob") == after_first
    assert results_counted("four_down", "applied") == applied_before + 1
    assert results_counted("four_down", "retry") == retried_before + 1


async def test_the_same_match_id_with_other_content_is_a_conflict_and_changes_nothing(rating: RatingClient) -> None:
    await rating.record(duel("m1", winner="ann", loser="bob"))
    before = await standing(rating, "ann", "bob", "cy")

    for other in (duel("m1", winner="bob", loser="ann"), duel("m1", winner="ann", loser="cy")):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await rating.record(other)
        assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason_of(refused.value) == "CONFLICT"

    assert await standing(rating, "ann", "bob", "cy") == before


async def test_concurrent_retries_of_one_result_apply_once(rating: RatingClient) -> None:
    answers = await asyncio.gather(*(rating.record(duel("m1", winner="ann", loser="bob")) for _ in range(10)))

    assert sum(answer.applied for answer in answers) == 1
    assert len({answer.SerializeToString() for answer in answers if not answer.applied}) == 1
    assert all(list(answer.changes) == list(answers[0].changes) for answer in answers)
    ann, bob = await rating.ratings("ann", "bob")
    assert (glicko(ann), glicko(bob)) == glicko2.rate_match(NEWCOMER, NEWCOMER, glicko2.WIN)
    assert ann.rated_matches == 1
    assert (await rating.progress("ann")).level_points == 22
    assert len((await rating.history("ann")).entries) == 1


async def test_concurrent_matches_of_the_same_player_all_count(rating: RatingClient) -> None:
    await asyncio.gather(
        *(rating.record(duel(f"m{n}", winner="ann", loser=f"rival{n}", minute=n)) for n in range(6))
    )

    (ann,) = await rating.ratings("ann")
    assert ann.rated_matches == 6
    assert (await rating.progress("ann")).level_points == 6 * 22


async def test_a_server_restarted_between_retries_still_applies_once(database_url: str) -> None:
    async with running_rating(database_url) as first_server:
        first = await first_server.record(duel("m1", winner="ann", loser="bob"))
        before = await standing(first_server, "ann", "bob")

    async with running_rating(database_url) as second_server:
        again = await second_server.record(duel("m1", winner="ann", loser="bob"))
        assert not again.applied and list(again.changes) == list(first.changes)
        assert await standing(second_server, "ann", "bob") == before


# --- refusals ---


async def test_player_tokens_cannot_record_results(rating: RatingClient) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await rating.stub.RecordMatchResult(duel("m1", "ann", "bob"), metadata=player_metadata("ann"))

    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(refused.value) == "FORBIDDEN"
    assert await rating.history("ann") == rating_pb2.GetHistoryResponse()


async def test_recording_without_a_token_is_unauthenticated(rating: RatingClient) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await rating.stub.RecordMatchResult(duel("m1", "ann", "bob"))

    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(refused.value) == "TOKEN_MISSING"


def _bad_results() -> list[tuple[str, rating_pb2.RecordMatchResultRequest]]:
    """(the field the refusal names, a malformed result) pairs; every one involves ann and bob."""
    good = duel("bad", winner="ann", loser="bob")

    def changed(**fields: object) -> rating_pb2.RecordMatchResultRequest:
        request = rating_pb2.RecordMatchResultRequest()
        request.CopyFrom(good)
        for name, value in fields.items():
            if name == "participants":
                del request.participants[:]
                request.participants.extend(value)  # type: ignore[arg-type]
            elif name == "options":
                request.options.update(value)  # type: ignore[arg-type]
            else:
                setattr(request, name, value)
        return request

    return [
        ("match_id", changed(match_id="")),
        ("match_id", changed(match_id="x" * 65)),
        ("game", changed(game="")),
        ("kind", changed(kind=0)),
        ("kind", changed(kind=9)),
        ("participants", changed(participants=[])),
        ("participants[1].outcome", changed(participants=[human("ann", 0, WIN), human("bob", 1, 0)])),
        ("participants[1].outcome", changed(participants=[human("ann", 0, WIN), human("bob", 1, 7)])),
        ("participants[1].seat", changed(participants=[human("ann", 0, WIN), human("bob", 0, LOSS)])),
        ("participants[1].player_id", changed(participants=[human("ann", 0, WIN), human("", 1, LOSS)])),
        ("participants[1].player_id", changed(participants=[human("ann", 0, WIN), human("ann", 1, LOSS)])),
        ("participants", changed(participants=[human("ann", 0, WIN), human("bob", 1, WIN)])),
        ("participants", changed(participants=[human("ann", 0, WIN), human("bob", 1, DRAW)])),
        ("options", changed(game="golf", options={"holes": "5"})),
        ("options", changed(game="tower", options={"rounds": "many"})),
        ("rounds", changed(rounds=-1)),
    ]


async def test_malformed_results_are_refused_naming_the_field_and_change_nothing(rating: RatingClient) -> None:
    before = await standing(rating, "ann", "bob")

    for field, request in _bad_results():
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await rating.record(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, field
        assert (reason_of(refused.value), field_of(refused.value)) == ("INVALID_ARGUMENT", field)

    assert await standing(rating, "ann", "bob") == before
    # None of them was stored: the id is still free for the real result.
    assert (await rating.record(duel("bad", winner="ann", loser="bob"))).applied
