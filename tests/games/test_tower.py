"""Unit tests of the `tower` engine, one or more per rule of rules/tower.md (TO-1..TO-18)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from shared import conformance
from shared.games.base import Event, Rejection, Setup
from shared.games.tower import TOWER, TowerState

DOWN_A = ["2C", "3C", "5C", "6C"]
DOWN_B = ["8C", "9C", "10C", "JC"]
DOWN_C = ["2S", "3S", "5S", "6S"]


def seat(down: list[Any], up: list[Any], hand: list[str]) -> dict[str, Any]:
    return {"down": down, "up": up, "hand": hand}


def start(seats: list[dict[str, Any]], rounds: int = 1, first: int | None = None) -> TowerState:
    options = TOWER.check_options({"rounds": rounds}, len(seats))
    state, _ = TOWER.start(Setup(seats=len(seats), options=options, deals=[{"seats": seats}], first=first))
    return state


def act(state: TowerState, seat_number: int, action: dict[str, Any]) -> tuple[TowerState, list[Event]]:
    return TOWER.apply(state, seat_number, action, 0.0)


def play(state: TowerState, seat_number: int, **fields: Any) -> TowerState:
    action = {"type": "play", **{("as" if k == "as_" else k): v for k, v in fields.items()}}
    return act(state, seat_number, action)[0]


def setup(
    state: TowerState, seat_number: int, direction: str = "left", variations: list[str] | None = None
) -> TowerState:
    return act(state, seat_number, {"type": "setup", "direction": direction, "variations": variations or []})[0]


def rejected(state: TowerState, seat_number: int, action: Any) -> str:
    with pytest.raises(Rejection) as caught:
        act(state, seat_number, action)
    return caught.value.reason


def truth(state: TowerState) -> dict[str, Any]:
    return TOWER.inspect(state)


def in_round_two(seats: list[dict[str, Any]], variations: list[str], direction: str = "left") -> TowerState:
    """Seat 0 wins round 1 at once (four face-up Kings, then four Tower 4s); round 2 is ``seats``."""
    quick = [seat(["4S", "4H", "4D", "4C"], ["KS", "KH", "KD", "KC"], [])]
    quick += [seat(DOWN_B, ["QS", "2D", "3D", "5D"], ["JS"]) for _ in seats[1:]]
    options = TOWER.check_options({"rounds": 3}, len(seats))
    state, _ = TOWER.start(Setup(seats=len(seats), options=options, deals=[{"seats": quick}, {"seats": seats}]))
    state = play(setup(state, 0), 0, up=[0, 1, 2, 3])
    for slot in range(4):
        state = act(state, 0, {"type": "flip", "slot": slot})[0]
        state = play(state, 0, down=[slot])
    assert truth(state)["round"] == 2 and state.turn == 0
    return setup(state, 0, direction, variations)


def texts(events: list[Event]) -> list[str]:
    return [str(e.data["text"]) for e in events if e.kind == "announce"]


# ---------------------------------------------------------------- TO-1 the deck


@pytest.mark.parametrize("seats,packs", [(2, 1), (3, 2), (4, 2), (5, 2), (6, 3)])
def test_to1_packs_by_player_count_and_undealt_cards_set_aside(seats: int, packs: int) -> None:
    state, _ = TOWER.start(Setup(seats=seats, options=TOWER.check_options({}, seats), seed=3))
    seen = truth(state)
    dealt = [c for h in seen["hands"].values() for c in h["hand"] + h["up"] + h["down"]]
    assert len(dealt) == 19 * seats
    assert Counter(dealt + seen["aside"]) == Counter({c: packs for c in dealt + seen["aside"]})
    assert len(dealt) + len(seen["aside"]) == 52 * packs


def test_to1_ace_is_the_one_and_a_four_is_a_tower_card() -> None:
    state = setup(start([seat(DOWN_A, ["KS", "2H", "3H", "6H"], ["2S", "AS"]),
                         seat(DOWN_B, ["QS", "2D", "3D", "6D"], ["AD", "5D", "4D"])]), 0)
    state = play(state, 0, hand=["2S"])
    assert rejected(state, 1, {"type": "play", "hand": ["5D"]}) == "illegal"
    state = play(state, 1, hand=["AD"])
    assert rejected(state, 0, {"type": "play", "hand": [], "up": [1]}) == "illegal"
    state = play(state, 0, hand=["AS"])
    state = play(state, 1, hand=["4D"])
    assert truth(state)["arena"] == [] and state.turn == 1


# ---------------------------------------------------------------- TO-2 players and rounds


@pytest.mark.parametrize("seats", [1, 7, 0])
def test_to2_seat_count_is_two_to_six(seats: int) -> None:
    with pytest.raises(Rejection) as caught:
        TOWER.check_options({}, seats)
    assert caught.value.reason == "bad_seat_count"


@pytest.mark.parametrize("options", [{"rounds": 2}, {"rounds": "3"}, {"rounds": True}, {"colour": 1}, {"host": 5}])
def test_to2_rounds_is_one_three_or_ten_and_unknown_options_refused(options: dict[str, Any]) -> None:
    with pytest.raises(Rejection) as caught:
        TOWER.check_options(options, 3)
    assert caught.value.reason == "bad_option"


def test_to2_rounds_default_to_ten_and_host_to_zero() -> None:
    assert TOWER.check_options({}, 4) == {"rounds": 10, "host": 0}
    assert TOWER.check_options({"rounds": 3, "host": 2}, 4) == {"rounds": 3, "host": 2}


# ---------------------------------------------------------------- TO-3 the deal


def test_to3_random_deal_is_four_down_four_up_eleven_in_hand() -> None:
    state, events = TOWER.start(Setup(seats=4, options=TOWER.check_options({}, 4), seed=11))
    for hand in truth(state)["hands"].values():
        assert (len(hand["down"]), len(hand["up"]), len(hand["hand"])) == (4, 4, 11)
    dealt = [e for e in events if e.kind == "dealt"]
    assert sorted(next(iter(e.audience.seats)) for e in dealt) == [0, 1, 2, 3]


def test_to3_same_seed_same_deal_and_next_round_differs() -> None:
    setup_record = Setup(seats=2, options=TOWER.check_options({}, 2), seed=5)
    first, _ = TOWER.start(setup_record)
    again, _ = TOWER.start(setup_record)
    assert truth(first)["hands"] == truth(again)["hands"]


def test_to3_malformed_deal_is_refused() -> None:
    with pytest.raises(Rejection) as caught:
        start([seat(DOWN_A, ["KS"], []), seat(DOWN_B, ["QS", "2D", "3D", "6D"], [])])
    assert caught.value.reason == "bad_deal"


# ---------------------------------------------------------------- TO-4 the first holder


def test_to4_tower_four_beats_everything() -> None:
    state = start([seat(DOWN_A, ["KS", "KH", "KD", "KC"], []), seat(DOWN_B, ["4S", "2D", "3D", "5D"], [])])
    assert state.turn == 1 and truth(state)["holder"] == 1


def test_to4_ties_go_to_the_next_slot_then_the_lowest_seat() -> None:
    state = start([seat(DOWN_A, ["KS", "JS", "9S", "8S"], []), seat(DOWN_B, ["KH", "QH", "2H", "3H"], []),
                   seat(DOWN_C, ["KD", "QD", "3D", "2D"], [])])
    assert state.turn == 2
    level = start([seat(DOWN_A, ["2S", "2H", "2D", "2C"], []), seat(DOWN_B, ["KH", "QH", "3H", "3S"], []),
                   seat(DOWN_C, ["KD", "QD", "3D", "3C"], [])])
    assert level.turn == 1


def test_to4_first_in_setup_overrides_the_comparison() -> None:
    seats = [seat(DOWN_A, ["KS", "2H", "3H", "5H"], []), seat(DOWN_B, ["QS", "2D", "3D", "5D"], [])]
    assert start(seats, first=1).turn == 1


# ---------------------------------------------------------------- TO-5 the holder's choices


def test_to5_holder_sets_up_before_play_and_round_one_has_no_variations() -> None:
    state = start([seat(DOWN_A, ["KS", "2H", "3H", "5H"], ["9S"]), seat(DOWN_B, ["QS", "2D", "3D", "5D"], [])])
    assert rejected(state, 0, {"type": "play", "hand": ["9S"]}) == "illegal"
    assert rejected(state, 1, {"type": "setup", "direction": "left"}) == "not_your_turn"
    assert rejected(state, 0, {"type": "setup", "direction": "left", "variations": ["hot_fives"]}) == "illegal"
    assert rejected(state, 0, {"type": "setup", "direction": "up"}) == "unknown_action"
    assert rejected(state, 0, {"type": "setup", "direction": "left", "variations": ["wild_jacks"]}) == "unknown_action"
    assert TOWER.legal_actions(state, 0) == [
        {"type": "setup", "direction": "left", "variations": []},
        {"type": "setup", "direction": "right", "variations": []},
    ]
    state = setup(state, 0, "right")
    assert truth(state)["direction"] == "right"
    assert rejected(state, 0, {"type": "setup", "direction": "left"}) == "illegal"


def test_to5_right_is_decreasing_seat_number() -> None:
    seats = [seat(DOWN_A, ["9S", "2H", "3H", "5H"], []), seat(DOWN_B, ["KH", "2D", "3D", "5D"], []),
             seat(DOWN_C, ["QD", "2S", "3S", "5S"], [])]
    assert play(setup(start(seats), 1, "right"), 1, up=[0]).turn == 0
    assert play(setup(start(seats), 1, "left"), 1, up=[0]).turn == 2


def test_to5_round_winner_holds_and_may_choose_variations() -> None:
    state = in_round_two([seat(DOWN_A, ["KS", "2H", "3H", "5H"], ["9S"]), seat(DOWN_B, ["QS", "2D", "3D", "5D"], [])],
                         ["hot_fives", "skip_sixes", "high_sevens", "reverse_eights"])
    seen = truth(state)
    assert seen["holder"] == 0 and seen["variations"] == ["hot_fives", "skip_sixes", "high_sevens", "reverse_eights"]
    assert len([a for a in TOWER.legal_actions(replace(state, awaiting_setup=True), 0)]) == 32


# ---------------------------------------------------------------- TO-6 a play


def two_seats(hand0: list[str], hand1: list[str], up0: str = "KS", up1: str = "QS") -> TowerState:
    return setup(start([seat(DOWN_A, [up0, "2H", "3H", "6H"], hand0), seat(DOWN_B, [up1, "2D", "3D", "6D"], hand1)]), 0)


def test_to6_fourth_consecutive_card_clears_and_player_goes_again() -> None:
    state = two_seats(["JS", "JH", "9S"], ["JD", "JC", "KD"])
    state, events = act(state, 0, {"type": "play", "hand": ["JS", "JH"]})
    assert texts(events) == ["TWO JACKS!"] and truth(state)["arena_count"] == 2
    state, events = act(state, 1, {"type": "play", "hand": ["JD", "JC"]})
    assert texts(events) == ["FOUR JACKS — CLEAR IT!"]
    assert truth(state)["arena"] == [] and state.turn == 1
    assert sorted(truth(state)["cleared"]) == ["JC", "JD", "JH", "JS"]


def test_to6_one_exact_rank_equal_or_lower() -> None:
    state = play(two_seats(["JS", "9S"], ["JD", "9D", "QD"]), 0, hand=["JS"])
    assert rejected(state, 1, {"type": "play", "hand": ["QD"]}) == "illegal"
    assert rejected(state, 1, {"type": "play", "hand": ["JD", "9D"]}) == "illegal"
    assert rejected(state, 1, {"type": "play", "hand": []}) == "illegal"
    assert play(state, 1, hand=["9D"]).turn == 0


def test_to6_no_more_than_four_lie_together() -> None:
    seats = [seat(DOWN_A, ["KS", "2H", "3H", "9H"], ["5S", "5H"]),
             seat(DOWN_B, ["QS", "2D", "3D", "9D"], ["5S", "5D", "5C"]),
             seat(DOWN_C, ["JS", "2S", "3S", "9S"], [])]
    state = play(setup(start(seats), 0), 0, hand=["5S", "5H"])
    assert rejected(state, 1, {"type": "play", "hand": ["5S", "5D", "5C"]}) == "illegal"
    state, events = act(state, 1, {"type": "play", "hand": ["5S", "5D"]})
    assert texts(events) == ["FOUR 5s — CLEAR IT!"] and state.turn == 1


def test_to6_announcement_carries_the_consecutive_count() -> None:
    _, events = act(two_seats(["KH"], []), 0, {"type": "play", "hand": ["KH"], "up": [0]})
    announce = next(e for e in events if e.kind == "announce")
    assert announce.audience.public
    assert (announce.data["rank"], announce.data["count"], announce.data["text"]) == ("K", 2, "TWO KINGS!")


# ---------------------------------------------------------------- TO-7 Tower 4


def test_to7_tower_four_is_played_alone_any_time_clears_and_goes_again() -> None:
    state = two_seats(["4H", "4S", "JS"], ["AD"])
    assert rejected(state, 0, {"type": "play", "hand": ["4H", "4S"]}) == "illegal"
    assert rejected(state, 0, {"type": "play", "hand": ["4H", "JS"]}) == "illegal"
    state = play(play(state, 0, hand=["JS"]), 1, hand=["AD"])
    state, events = act(state, 0, {"type": "play", "hand": ["4H"]})
    assert texts(events) == ["CLEAR IT!"] and truth(state)["arena"] == [] and state.turn == 0


# ---------------------------------------------------------------- TO-8 pick up


def test_to8_pick_up_only_on_a_pile_and_the_turn_passes() -> None:
    state = two_seats(["9S"], ["KD"])
    assert rejected(state, 0, {"type": "pick_up"}) == "illegal"
    state = play(state, 0, up=[0])
    state = act(state, 1, {"type": "pick_up"})[0]
    assert truth(state)["hands"]["1"]["hand"] == ["KD", "KS"] and state.turn == 0 and truth(state)["arena"] == []


def test_to8_pick_up_is_required_when_nothing_plays() -> None:
    state = play(two_seats(["AS"], ["KD", "QD"]), 0, hand=["AS"])
    assert TOWER.legal_actions(state, 1) == [{"type": "pick_up"}]


# ---------------------------------------------------------------- TO-9 order of cards


def test_to9_face_up_cards_play_with_hand_cards() -> None:
    state = play(two_seats(["KD", "KH"], []), 0, hand=["KD", "KH"], up=[0])
    assert truth(state)["arena"] == ["KD", "KH", "KS"] and truth(state)["arena_count"] == 3


def test_to9_four_down_unlock_only_when_the_last_face_up_goes() -> None:
    seats = [seat(DOWN_A, [None, None, None, "9H"], ["9S"]), seat(DOWN_B, ["QS", "2D", "3D", "5D"], [])]
    state = setup(start(seats, first=0), 0)
    assert rejected(state, 0, {"type": "flip", "slot": 0}) == "illegal"
    state = play(state, 0, hand=["9S"], up=[3])
    state = act(state, 1, {"type": "pick_up"})[0]
    assert {"type": "flip", "slot": 0} in TOWER.legal_actions(state, 0)
    state = act(state, 0, {"type": "flip", "slot": 0})[0]
    assert rejected(state, 0, {"type": "flip", "slot": 1}) == "illegal"


# ---------------------------------------------------------------- TO-10 a flipped card


def flip_ready(down: list[str], hand: list[str], top: list[str]) -> TowerState:
    """Seat 0, face-up all gone, to move after seat 1 started the arena with ``top``."""
    state = setup(start([seat(down, [None] * 4, hand), seat(DOWN_B, [None] * 4, top + ["AD"])], first=1), 1)
    return play(state, 1, hand=top)


def test_to10_flip_that_plays_must_be_played_or_picked_up() -> None:
    state = act(flip_ready(["5C", "7S", "JD", "6C"], ["5S", "QH"], ["7C"]), 0, {"type": "flip", "slot": 0})[0]
    legal = TOWER.legal_actions(state, 0)
    assert {"type": "pick_up"} in legal and all(a["type"] != "flip" for a in legal)
    assert rejected(state, 0, {"type": "play", "hand": ["QH"]}) == "illegal"
    assert rejected(state, 0, {"type": "play", "hand": ["5S"]}) == "illegal"
    assert rejected(state, 0, {"type": "play", "down": [1]}) == "bad_target"
    state, events = act(state, 0, {"type": "play", "hand": ["5S"], "down": [0]})
    assert truth(state)["arena"] == ["7C", "5S", "5C"] and texts(events) == ["TWO 5s!"]
    assert any(e.kind == "played" and e.audience.public and "5C" in e.data["cards"] for e in events)


def test_to10_flip_that_cannot_play_is_picked_up_at_once_and_private() -> None:
    state = flip_ready(["KD", "7S", "JD", "6C"], ["5S"], ["3C"])
    state, events = act(state, 0, {"type": "flip", "slot": 0})
    assert state.turn == 1 and truth(state)["arena"] == []
    assert sorted(truth(state)["hands"]["0"]["hand"]) == ["3C", "5S", "KD"]
    for event in events:
        if "KD" in json.dumps(event.to_json()):
            assert event.audience.seats == frozenset({0}) and not event.audience.public


def test_to10_flip_picked_up_by_choice_stays_private() -> None:
    state = act(flip_ready(["5C", "7S", "JD", "6C"], ["QH"], ["7C"]), 0, {"type": "flip", "slot": 0})[0]
    state, events = act(state, 0, {"type": "pick_up"})
    assert sorted(truth(state)["hands"]["0"]["hand"]) == ["5C", "7C", "QH"]
    assert all("5C" not in json.dumps(e.to_json()) for e in events if e.audience.includes(1))
    assert "5C" not in json.dumps(TOWER.view(state, 1)) and "5C" not in json.dumps(TOWER.view(state, None))


def test_to10_flip_that_clears_goes_again_and_may_flip_again() -> None:
    state = flip_ready(["9C", "7S", "JD", "6C"], [], ["9D", "9H", "9S"])
    state = act(state, 0, {"type": "flip", "slot": 0})[0]
    state = play(state, 0, down=[0])
    assert state.turn == 0 and truth(state)["arena"] == []
    state = act(state, 0, {"type": "flip", "slot": 3})[0]
    state = play(state, 0, down=[3])
    assert truth(state)["arena"] == ["6C"] and state.turn == 1


# ---------------------------------------------------------------- TO-11..TO-14 variations


def test_to11_hot_fives_play_as_another_rank_and_count_as_it() -> None:
    state = in_round_two([seat(DOWN_A, ["KS", "2H", "3H", "9H"], ["5S", "5H", "QH"]),
                          seat(DOWN_B, ["QS", "2D", "3D", "9D"], ["KD", "KH"])], ["hot_fives"])
    state = play(play(state, 0, up=[0]), 1, hand=["KD"])
    assert rejected(state, 0, {"type": "play", "hand": ["5S"], "as": "4"}) == "illegal"
    state, events = act(state, 0, {"type": "play", "hand": ["5S", "5H"], "as": "K"})
    assert texts(events) == ["FOUR KINGS — CLEAR IT!"] and state.turn == 0
    assert sorted(truth(state)["cleared"]) == ["5H", "5S", "KD", "KS"]


def test_to11_a_hot_five_shows_its_real_name_on_the_arena() -> None:
    state = in_round_two([seat(DOWN_A, ["KS", "2H", "3H", "9H"], ["5S", "QH"]),
                          seat(DOWN_B, ["QS", "2D", "3D", "9D"], ["QD"])],
                         ["hot_fives"])
    state = play(state, 0, hand=["5S"], as_="Q")
    assert truth(state)["arena"] == ["5S"] and truth(state)["arena_ranks"] == ["Q"]
    assert play(state, 1, hand=["QD"]).turn == 0  # counts as a Queen: a Queen may follow


def test_to11_as_without_hot_fives_is_illegal() -> None:
    assert rejected(two_seats(["5S"], []), 0, {"type": "play", "hand": ["5S"], "as": "K"}) == "illegal"


def test_to12_skip_sixes_skips_one_unless_it_clears() -> None:
    seats = [seat(DOWN_A, ["KS", "2H", "3H", "9H"], ["6S", "6H", "QH"]),
             seat(DOWN_B, ["QS", "2D", "3D", "9D"], ["6D", "6C"]),
             seat(DOWN_C, ["JS", "2S", "3S", "9S"], ["5C"])]
    state = in_round_two(seats, ["skip_sixes"])
    state, events = act(state, 0, {"type": "play", "hand": ["6S"]})
    assert state.turn == 2 and texts(events) == ["ONE 6! SKIP seat 1!"]
    state = play(act(play(state, 2, hand=["5C"]), 0, {"type": "pick_up"})[0], 1, hand=["6D", "6C"])
    state = play(state, 0, hand=["6S", "6H"])
    assert state.turn == 0 and truth(state)["arena"] == []


def test_to13_high_sevens_demand_a_seven_or_higher() -> None:
    state = in_round_two([seat(DOWN_A, ["KS", "2H", "3H", "9H"], ["7S", "9S", "JH"]),
                          seat(DOWN_B, ["QS", "2D", "3D", "9D"], ["7H", "6D", "8D", "QD"])], ["high_sevens"])
    state, events = act(state, 0, {"type": "play", "hand": ["7S"]})
    assert texts(events) == ["HIGH SEVEN!"]
    assert rejected(state, 1, {"type": "play", "hand": ["6D"]}) == "illegal"
    state, events = act(state, 1, {"type": "play", "hand": ["7H"]})
    assert texts(events) == ["TWO HIGH SEVENS!"]
    state = play(state, 0, hand=["9S"])
    assert rejected(state, 1, {"type": "play", "hand": ["QD"]}) == "illegal"
    assert play(state, 1, hand=["8D"]).turn == 0


def test_to14_reverse_eights_reverse_once_unless_they_clear() -> None:
    seats = [seat(DOWN_A, ["KS", "2H", "3H", "9H"], ["8S", "8H", "QH"]), seat(DOWN_B, ["QS", "2D", "3D", "9D"], ["8D"]),
             seat(DOWN_C, ["JS", "2S", "3S", "9S"], ["8C", "8D", "KC"])]
    state = in_round_two(seats, ["reverse_eights"])
    state, events = act(state, 0, {"type": "play", "hand": ["8S", "8H"]})
    assert state.turn == 2 and texts(events) == ["TWO 8s! BACK ATCHA!"]
    state = play(state, 2, hand=["8C", "8D"])
    assert state.turn == 2 and truth(state)["direction"] == "right"


# ---------------------------------------------------------------- TO-15, TO-16, TO-18 scores and match end


def quick_win(others: list[dict[str, Any]], rounds: int = 1) -> TowerState:
    seats = [seat(["4S", "4H", "4D", "4C"], ["KS", "KH", "KD", "KC"], [])] + others
    state = play(setup(start(seats, rounds), 0), 0, up=[0, 1, 2, 3])
    for slot in range(4):
        state = play(act(state, 0, {"type": "flip", "slot": slot})[0], 0, down=[slot])
    return state


def test_to15_scores_five_and_ten_and_the_winner_scores_zero() -> None:
    state = quick_win([seat(["AC", "2C", "3C", "4C"], ["QS", "5D", "6D", "7D"], ["8S", "9S", "10S", "JS"])])
    assert truth(state)["round_scores"] == [0, 85]


def test_to16_lowest_total_is_master_highest_is_disaster() -> None:
    state = quick_win([seat(DOWN_B, ["QS", "2D", "3D", "5D"], []), seat(DOWN_B, ["QH", "2H", "3H", "5H"], ["KC"])])
    assert truth(state)["phase"] == "match_over" and truth(state)["winners"] == [0]
    result = TOWER.result(state)
    assert result is not None and [s.outcome for s in result.standings] == ["win", "loss", "loss"]
    assert TOWER.view(state, None)["tower_disaster"] == [2] and TOWER.to_move(state) is None
    assert rejected(state, 1, {"type": "pick_up"}) == "round_over"


def test_to16_level_lowest_totals_draw() -> None:
    state = quick_win([seat(DOWN_B, ["QS", "2D", "3D", "5D"], [])])
    state = replace(state, totals=(40, 40))
    result = TOWER.result(state)
    assert result is not None and [s.outcome for s in result.standings] == ["draw", "draw"]
    assert TOWER.view(state, 0)["tower_disaster"] == []


def test_to18_result_carries_rounds_and_round_scores() -> None:
    result = TOWER.result(quick_win([seat(DOWN_B, ["QS", "2D", "3D", "5D"], ["JS"])]))
    assert result is not None and result.rounds == 1 and result.round_scores == ((0, 75),)
    assert result.winners == (0,)


def test_to2_match_goes_on_for_the_rounds_option() -> None:
    state = quick_win([seat(DOWN_B, ["QS", "2D", "3D", "5D"], [])], rounds=3)
    seen = truth(state)
    assert (seen["phase"], seen["round"], seen["turn"], seen["totals"]) == ("playing", 2, 0, [0, 65])
    assert TOWER.result(state) is None


# ---------------------------------------------------------------- TO-17 visibility


def test_to17_views_show_own_hand_and_public_cards_only() -> None:
    state = two_seats(["9S"], ["JS"])
    own, other, spectator = TOWER.view(state, 0), TOWER.view(state, 1), TOWER.view(state, None)
    assert own["hand"] == ["9S"] and "hand" not in spectator
    assert other["seats"][0]["up"] == ["KS", "2H", "3H", "6H"] and other["seats"][0]["hand_size"] == 1
    for view in (own, other, spectator):
        assert not {"2C", "3C", "5C", "6C", "8C", "9C"} & set(conformance.strings_in(view))
    assert "9S" not in set(conformance.strings_in(other)) | set(conformance.strings_in(spectator))


def test_to17_flipped_card_is_in_the_owners_view_while_it_waits() -> None:
    state = act(flip_ready(["5C", "7S", "JD", "6C"], ["QH"], ["7C"]), 0, {"type": "flip", "slot": 0})[0]
    assert TOWER.view(state, 0)["flipped"]["card"] == "5C"
    assert "5C" not in set(conformance.strings_in(TOWER.view(state, 1)))


# ---------------------------------------------------------------- engine contract


@pytest.mark.parametrize(
    "action",
    [None, 3, "play", {}, {"type": "dance"}, {"type": "play", "hand": "KS"}, {"type": "play", "hand": ["ZZ"]},
     {"type": "play", "up": ["0"]}, {"type": "play", "up": [True]}, {"type": "flip"}, {"type": "flip", "slot": "1"},
     {"type": "pick_up", "now": 1}, {"type": "play", "as": 5}, {"type": "play", "as": "X"}, {"type": "setup"}],
)
def test_malformed_actions_are_unknown_actions(action: Any) -> None:
    assert rejected(two_seats(["9S"], []), 0, action) == "unknown_action"


def test_bad_targets() -> None:
    state = two_seats(["9S"], [])
    assert rejected(state, 0, {"type": "play", "up": [7]}) == "bad_target"
    assert rejected(state, 0, {"type": "play", "up": [0, 0]}) == "bad_target"
    assert rejected(state, 0, {"type": "play", "hand": ["9H"]}) == "bad_target"
    assert rejected(state, 0, {"type": "play", "hand": ["9S", "9S"]}) == "bad_target"


def test_clock_sets_up_left_then_plays_the_lowest_card_to_end_the_turn() -> None:
    state = start([seat(DOWN_A, ["KS", "2H", "3H", "6H"], ["9S", "JS"]), seat(DOWN_B, ["QS", "2D", "3D", "6D"], [])])
    assert TOWER.clock_actions(state, 0) == [{"type": "setup", "direction": "left", "variations": []}]
    assert TOWER.clock_actions(state, 1) == []
    state = setup(state, 0)
    assert TOWER.clock_actions(state, 0) == [{"type": "play", "hand": [], "up": [1]}]


def test_clock_picks_up_when_only_a_tower_four_would_play() -> None:
    state = play(two_seats(["AS"], ["KD", "4D"]), 0, hand=["AS"])
    assert TOWER.clock_actions(state, 1) == [{"type": "pick_up"}]


def test_no_timers() -> None:
    state = two_seats([], [])
    assert TOWER.next_deadline(state) is None and TOWER.advance(state, 99.0) == (state, [])

