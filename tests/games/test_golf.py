"""Four Card Golf, Classic and Extreme (rules/golf.md, GO-1 .. GO-15), through the golf-family engine."""

from __future__ import annotations

from typing import Any

import pytest

from shared.games.base import BAD_OPTION, BAD_TARGET, ILLEGAL, Event, Rejection, Setup
from shared.games.golf_family import GOLF

GAME = GOLF
ROWS = [["5H", "KD", "9C", "2S"], ["QS", "3H", "7D", "KS"]]
EXTREME = {"mode": "extreme", "holes": 1}
DRAW_STOCK = {"type": "draw", "from": "stock"}
DISCARD = {"type": "discard"}
CALL = {"type": "call"}


def deal(rows: list[list[Any]] = ROWS, discard: list[str] | None = None, stock: list[str] | None = None) -> dict[str, Any]:
    return {"hands": rows, "discard": discard or ["4C"], "stock": stock if stock is not None else ["8H", "JD", "6S", "2C"]}


def start(*deals: dict[str, Any], seats: int = 2, options: dict[str, Any] | None = None) -> Any:
    chosen = GAME.check_options(options if options is not None else {"holes": 1}, seats)
    return GAME.start(Setup(seats=seats, options=chosen, seed=3, deals=list(deals) or [deal()]))[0]


def play(state: Any, *moves: tuple[int, dict[str, Any]]) -> tuple[Any, list[Event]]:
    events: list[Event] = []
    for seat, action in moves:
        state, new = GAME.apply(state, seat, action, 0.0)
        events += new
    return state, events


def truth(state: Any) -> dict[str, Any]:
    return GAME.inspect(state)


def rejected(state: Any, seat: int, action: Any) -> str:
    before = (GAME.inspect(state), [GAME.view(state, s) for s in (0, 1, None)])
    with pytest.raises(Rejection) as caught:
        GAME.apply(state, seat, action, 0.0)
    assert (GAME.inspect(state), [GAME.view(state, s) for s in (0, 1, None)]) == before
    return caught.value.reason


def test_go1_near_row_slots_2_and_3_shown_once() -> None:
    _, events = GAME.start(Setup(seats=2, options=GAME.check_options({}, 2), deals=[deal()]))
    looks = [event.data["cards"] for event in events if event.kind == "first_look"]
    assert looks == [[{"slot": 2, "card": "9C"}, {"slot": 3, "card": "2S"}], [{"slot": 2, "card": "7D"}, {"slot": 3, "card": "KS"}]]


def test_go2_dealer_moves_so_the_start_moves_each_hole() -> None:
    state = start(deal(), deal(), deal(), options={"holes": 3})
    assert GAME.to_move(state) == 0
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round"] == 2 and GAME.to_move(state) == 1


def test_go3_discard_take_must_replace_and_classic_has_no_power() -> None:
    state, _ = play(start(), (0, {"type": "draw", "from": "discard"}))
    assert rejected(state, 0, DISCARD) == ILLEGAL
    state, _ = play(start(deal(stock=["7H"])), (0, DRAW_STOCK))
    assert rejected(state, 0, {"type": "power", "targets": [[0, 0]]}) == ILLEGAL
    assert {action["type"] for action in GAME.legal_actions(state, 0)} == {"replace", "discard"}


def test_go4_knock_before_drawing_once_per_hole() -> None:
    state, _ = play(start(), (0, CALL))
    assert truth(state)["phase"] == "final_turns" and truth(state)["caller"] == 0
    assert rejected(state, 1, CALL) == ILLEGAL


def test_go5_knocker_not_lowest_adds_ten() -> None:
    state, _ = play(start(), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round_scores"] == [16, 20]  # lowest: no penalty; kings are 0, queens 10
    rows = [["9H", "9D", "9C", "9S"], ["AH", "2H", "3H", "KC"]]
    state, _ = play(start(deal(rows=rows)), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round_scores"] == [46, 6]


def test_go6_reshuffle_keeps_the_top_discard() -> None:
    state = start(deal(discard=["9D", "5C", "8C"], stock=["AD"]))
    state, _ = play(state, (0, DRAW_STOCK), (0, {"type": "replace", "slot": 0}))
    state, events = play(state, (1, DRAW_STOCK))
    assert any(event.kind == "stock_reshuffled" for event in events)
    assert (truth(state)["discard"], truth(state)["stock_size"]) == (["5H"], 2)


def test_go6_nothing_to_shuffle_ends_the_hole() -> None:
    state, _ = play(start(deal(stock=[])), (0, DRAW_STOCK))
    assert truth(state)["phase"] == "match_over"


def test_go7_lowest_total_after_last_hole_and_ties_share() -> None:
    rows = [["AS", "2S", "3S", "KH"], ["AH", "2H", "3H", "KC"]]
    state, _ = play(start(deal(rows=rows)), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["winners"] == [0, 1]
    assert [standing.outcome for standing in GAME.result(state).standings] == ["draw", "draw"]


def test_go8_extreme_powers_and_kings_have_none() -> None:
    state = start(deal(stock=["JH", "KD", "2C"]), options=EXTREME)
    state, _ = play(state, (0, DRAW_STOCK))
    assert rejected(state, 0, {"type": "power", "targets": [[0, 0], [0, 1]]}) == BAD_TARGET
    state, _ = play(state, (0, {"type": "power", "targets": [[1, 0], [0, 0]]}))
    assert truth(state)["hands"] == {"0": ["QS", "KD", "9C", "2S"], "1": ["5H", "3H", "7D", "KS"]}
    state, _ = play(state, (1, DRAW_STOCK))
    assert rejected(state, 1, {"type": "power", "targets": [[1, 0]]}) == ILLEGAL


def test_go9_burn_own_then_draw_steal_needs_give() -> None:
    rows = [["4S", "7C", "QH", "9H"], ["4D", "JH", "2C", "8D"]]
    state = start(deal(rows=rows, stock=["JD", "3S"]), options=EXTREME)
    state, _ = play(state, (0, {"type": "burn", "target": [1, 0]}))
    assert rejected(state, 0, DRAW_STOCK) == ILLEGAL
    state, _ = play(state, (0, {"type": "give", "slot": 1}))
    assert truth(state)["hands"] == {"0": ["4S", None, "QH", "9H"], "1": ["7C", "JH", "2C", "8D"]}
    assert rejected(state, 0, {"type": "burn", "target": [0, 0]}) == ILLEGAL  # once per turn
    state, _ = play(state, (0, DRAW_STOCK), (0, DISCARD), (1, {"type": "burn", "target": [1, 1]}))
    assert truth(state)["hands"]["1"] == ["7C", None, "2C", "8D"] and GAME.to_move(state) == 1


def test_go10_wrong_burn_reveals_nothing_and_costs_a_card() -> None:
    rows = [["4S", "7C", "QH", "9H"], ["4D", "JH", "2C", "8D"]]
    state = start(deal(rows=rows, discard=["JC"], stock=["6H", "5C"]), options=EXTREME)
    state, events = play(state, (0, {"type": "burn", "target": [0, 2]}))
    assert "QH" not in str([event.to_json() for event in events])
    assert truth(state)["hands"]["0"] == ["4S", "7C", "QH", "9H", "6H"] and GAME.to_move(state) == 0


def test_go11_clearing_the_layout_gives_others_a_final_turn() -> None:
    rows = [[None, None, None, "4S"], ["AH", "2H", "3H", "5H"], ["6D", "7D", "8D", "9D"]]
    state = start(deal(rows=rows, stock=["10D", "JD"]), seats=3, options=EXTREME)
    state, _ = play(state, (0, {"type": "burn", "target": [0, 3]}))
    assert (truth(state)["phase"], truth(state)["caller"], GAME.to_move(state)) == ("final_turns", None, 1)
    state, _ = play(state, (1, DRAW_STOCK), (1, DISCARD), (2, DRAW_STOCK), (2, DISCARD))
    assert truth(state)["round_scores"] == [0, 11, 30]


def test_go12_penalty_cards_count_and_empty_slots_do_not() -> None:
    rows = [["4S", "7C", "QH", "KH"], ["4D", "AH", "2C", "AD"]]
    state = start(deal(rows=rows, stock=["6H", "5C", "3D", "2D"]), options=EXTREME)
    state, _ = play(
        state,
        (0, {"type": "burn", "target": [0, 0]}), (0, DRAW_STOCK), (0, DISCARD),
        (1, {"type": "burn", "target": [0, 1]}), (1, DRAW_STOCK), (1, DISCARD),
        (0, CALL), (1, DRAW_STOCK), (1, DISCARD),
    )  # fmt: skip
    assert truth(state)["round_scores"] == [27, 13]


def test_go13_wrong_burn_target_stays_hidden_from_everyone() -> None:
    state = start(options=EXTREME)
    state, events = play(state, (0, {"type": "burn", "target": [1, 0]}))
    assert all("QS" not in str(event.to_json()) for event in events)
    assert all("QS" not in str(GAME.view(state, seat)) for seat in (0, 1, None))


def test_go14_result_carries_rounds_and_scores() -> None:
    state, _ = play(start(), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    result = GAME.result(state)
    assert result is not None and result.rounds == 1 and result.round_scores == ((16, 20),)


def test_go15_column_pairs_do_not_cancel() -> None:
    rows = [["5H", "9C", "5D", "9S"], ["QS", "JH", "10D", "10C"]]
    state, _ = play(start(deal(rows=rows)), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round_scores"] == [28, 40]


@pytest.mark.parametrize("options", [{"mode": "wild"}, {"holes": 2}, {"holes": True}, {"rounds": 3}, {"host": 5}])
def test_bad_golf_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(Rejection) as caught:
        GAME.check_options(options, 2)
    assert caught.value.reason == BAD_OPTION


def test_options_defaults_and_idempotence() -> None:
    chosen = GAME.check_options({}, 6)
    assert chosen == {"host": 0, "mode": "classic", "holes": 9}
    assert GAME.check_options(chosen, 6) == chosen


def test_clock_after_a_burn_gives_then_finishes_the_turn() -> None:
    rows = [["4S", "7C", "QH", "9H"], ["4D", "JH", "2C", "8D"]]
    state = start(deal(rows=rows), options=EXTREME)
    state, _ = play(state, (0, {"type": "burn", "target": [1, 0]}))
    assert GAME.clock_actions(state, 0) == [{"type": "give", "slot": 0}, DRAW_STOCK, DISCARD]
