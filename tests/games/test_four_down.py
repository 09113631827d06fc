"""Four Down (rules/four_down.md, FD-1 .. FD-16), played through the golf-family engine."""

from __future__ import annotations

from typing import Any

import pytest

from shared.games.base import (
    BAD_OPTION,
    BAD_SEAT_COUNT,
    BAD_TARGET,
    ILLEGAL,
    NOT_YOUR_TURN,
    ROUND_OVER,
    UNKNOWN_ACTION,
    Event,
    Rejection,
    Setup,
)
from shared.games.golf_family import FOUR_DOWN

GAME = FOUR_DOWN
ROWS = [["5H", "KD", "9C", "2S"], ["QS", "3H", "7D", "KS"]]


def deal(rows: list[list[Any]] = ROWS, discard: list[str] | None = None, stock: list[str] | None = None) -> dict[str, Any]:
    return {"hands": rows, "discard": discard or ["4C"], "stock": stock if stock is not None else ["8H", "JD", "6S", "2C"]}


def start(*deals: dict[str, Any], seats: int = 2, options: dict[str, Any] | None = None) -> tuple[Any, list[Event]]:
    chosen = GAME.check_options(options or {}, seats)
    return GAME.start(Setup(seats=seats, options=chosen, seed=3, deals=list(deals) or [deal()]))


def play(state: Any, *moves: tuple[int, dict[str, Any]]) -> tuple[Any, list[Event]]:
    events: list[Event] = []
    for seat, action in moves:
        state, new = GAME.apply(state, seat, action, 0.0)
        events += new
    return state, events


def hands(state: Any) -> dict[str, list[str | None]]:
    return GAME.inspect(state)["hands"]


def rejected(state: Any, seat: int, action: Any) -> str:
    before = (GAME.inspect(state), [GAME.view(state, s) for s in (0, 1, None)])
    with pytest.raises(Rejection) as caught:
        GAME.apply(state, seat, action, 0.0)
    assert (GAME.inspect(state), [GAME.view(state, s) for s in (0, 1, None)]) == before
    return caught.value.reason


DRAW_STOCK = {"type": "draw", "from": "stock"}
DRAW_DISCARD = {"type": "draw", "from": "discard"}
DISCARD = {"type": "discard"}
CALL = {"type": "call"}


def test_fd1_middle_pair_shown_once_privately_with_reveal() -> None:
    _, events = start()
    looks = [event for event in events if event.kind == "first_look"]
    assert [sorted(event.audience.seats) for event in looks] == [[0], [1]]
    assert all(event.reveal and not event.audience.public for event in looks)
    assert looks[0].data["cards"] == [{"slot": 1, "card": "KD"}, {"slot": 2, "card": "9C"}]


def test_fd1_views_never_show_face_down_cards() -> None:
    state, _ = start()
    for seat in (0, 1, None):
        assert not {"5H", "KD", "9C", "2S", "QS", "3H", "7D", "KS"} & set(_strings(GAME.view(state, seat)))


def test_fd2_four_each_one_face_up_rest_stock_and_round_one_starts_with_seat_0() -> None:
    state, _ = GAME.start(Setup(seats=3, options=GAME.check_options({}, 3), seed=9))
    truth = GAME.inspect(state)
    assert [len(row) for row in truth["hands"].values()] == [4, 4, 4]
    assert (truth["discard_size"], truth["stock_size"], truth["turn"]) == (1, 52 - 12 - 1, 0)


def test_fd2_each_later_round_starts_one_seat_further_on() -> None:
    state, _ = start(deal(), deal())
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert GAME.inspect(state)["round"] == 2 and GAME.to_move(state) == 1


def test_fd3_call_only_before_drawing() -> None:
    state, _ = play(start()[0], (0, DRAW_STOCK))
    assert rejected(state, 0, CALL) == ILLEGAL
    assert rejected(state, 0, DRAW_STOCK) == ILLEGAL
    assert rejected(state, 1, CALL) == NOT_YOUR_TURN


def test_fd4_discard_draw_must_replace_a_slot_holding_a_card() -> None:
    state, _ = start(deal(rows=[["5H", "KD", "9C", None], ROWS[1]]))
    state, events = play(state, (0, DRAW_DISCARD))
    assert events[0].audience.public and events[0].data["card"] == "4C"
    for action in (DISCARD, {"type": "power", "targets": [[0, 0]]}, {"type": "match", "target": [1, 1]}):
        assert rejected(state, 0, action) == ILLEGAL
    assert rejected(state, 0, {"type": "replace", "slot": 3}) == BAD_TARGET
    state, _ = play(state, (0, {"type": "replace", "slot": 0}))
    assert hands(state)["0"] == ["4C", "KD", "9C", None]
    assert GAME.inspect(state)["discard_top"] == "5H"


def test_fd5_stock_card_may_be_replaced_discarded_powered_or_matched() -> None:
    state, _ = start(deal(stock=["8H", "2D", "6S"]))
    state, _ = play(state, (0, DRAW_STOCK))
    legal_types = {action["type"] for action in GAME.legal_actions(state, 0)}
    assert legal_types == {"replace", "discard", "power", "match"}
    state, _ = play(state, (0, {"type": "replace", "slot": 0}), (1, DRAW_STOCK))
    assert rejected(state, 1, {"type": "power", "targets": [[1, 0]]}) == ILLEGAL  # a 2 has no power


def test_fd6_look_own_look_other_and_swap_any_two() -> None:
    state, _ = start(deal(stock=["7H", "9H", "JH", "2C", "3C"]))
    state, _ = play(state, (0, DRAW_STOCK))
    assert rejected(state, 0, {"type": "power", "targets": [[1, 0]]}) == BAD_TARGET
    state, events = play(state, (0, {"type": "power", "targets": [[0, 3]]}))
    seen = [event for event in events if event.kind == "card_seen"]
    assert seen[0].audience.seats == frozenset({0}) and seen[0].reveal and seen[0].data["card"] == "2S"
    state, _ = play(state, (1, DRAW_STOCK))
    assert rejected(state, 1, {"type": "power", "targets": [[1, 0]]}) == BAD_TARGET
    state, _ = play(state, (1, {"type": "power", "targets": [[0, 0]]}), (0, DRAW_STOCK))
    state, events = play(state, (0, {"type": "power", "targets": [[1, 0], [1, 3]]}))
    assert hands(state)["1"] == ["KS", "3H", "7D", "QS"]
    assert "QS" not in _strings([event.to_json() for event in events])


def test_fd6_a_power_is_optional() -> None:
    state, _ = play(start(deal(stock=["JH", "2C"]))[0], (0, DRAW_STOCK), (0, DISCARD))
    assert GAME.inspect(state)["discard_top"] == "JH" and GAME.to_move(state) == 1


def test_fd7_all_four_kings_match_each_other_own_slot_included() -> None:
    state, _ = play(start(deal(stock=["KH", "2C", "3C"]))[0], (0, DRAW_STOCK), (0, {"type": "match", "target": [0, 1]}))
    assert hands(state)["0"] == ["5H", None, "9C", "2S"]
    assert GAME.inspect(state)["discard"][-2:] == ["KH", "KD"]


def test_fd8_correct_match_on_another_seat_requires_a_give_first() -> None:
    state, _ = play(start(deal(stock=["3D", "2C", "5C"]))[0], (0, DRAW_STOCK), (0, {"type": "match", "target": [1, 1]}))
    assert GAME.to_move(state) == 0 and GAME.legal_actions(state, 0) == [{"type": "give", "slot": s} for s in range(4)]
    assert rejected(state, 0, DRAW_STOCK) == ILLEGAL
    state, events = play(state, (0, {"type": "give", "slot": 3}))
    assert hands(state) == {"0": ["5H", "KD", "9C", None], "1": ["QS", "2S", "7D", "KS"]}
    assert events[0].audience.public and "2S" not in _strings(events[0].to_json())


def test_fd9_wrong_match_reveals_card_to_everyone_and_costs_a_penalty_card() -> None:
    state, events = play(start()[0], (0, DRAW_STOCK), (0, {"type": "match", "target": [1, 0]}))
    failed = next(event for event in events if event.kind == "match_failed")
    assert failed.audience.public and failed.data["revealed"] == "QS"
    assert hands(state)["0"] == ["5H", "KD", "9C", "2S", "JD"]
    assert "JD" not in _strings([event.to_json() for event in events])


def test_fd9_no_penalty_card_from_an_empty_stock() -> None:
    state, _ = play(start(deal(stock=["8H"]), deal())[0], (0, DRAW_STOCK), (0, {"type": "match", "target": [1, 0]}))
    assert GAME.inspect(state)["round_scores"] == [16, 35]  # FD-12 ended the round; no fifth card


def test_fd10_matching_your_last_card_ends_the_round_at_once() -> None:
    state, _ = start(deal(rows=[[None, None, None, "5H"], ROWS[1]], stock=["5D", "2C"]), deal())
    state, _ = play(state, (0, DRAW_STOCK), (0, {"type": "match", "target": [0, 3]}))
    assert GAME.inspect(state)["round"] == 2 and GAME.inspect(state)["round_scores"] == [0, 35]


def test_fd11_call_gives_every_other_seat_one_turn_even_an_empty_row() -> None:
    rows = [["AH", "2H", "3H", "4H"], ["5S", "6S", "7S", "8S"], [None, None, None, None]]
    state, _ = start(deal(rows=rows, stock=["2C", "3C", "4C", "5C"]), deal(rows=rows), seats=3)
    state, _ = play(state, (0, CALL))
    assert GAME.inspect(state)["phase"] == "final_turns" and GAME.to_move(state) == 1
    state, _ = play(state, (1, DRAW_STOCK), (1, DISCARD))
    assert GAME.to_move(state) == 2 and rejected(state, 2, CALL) == ILLEGAL
    state, _ = play(state, (2, DRAW_STOCK), (2, DISCARD))
    assert GAME.inspect(state)["round"] == 2 and GAME.inspect(state)["round_scores"] == [10, 26, 0]


def test_fd12_empty_stock_at_turn_end_ends_the_round() -> None:
    state, _ = play(start(deal(stock=["2C"]), deal())[0], (0, DRAW_STOCK), (0, DISCARD))
    assert GAME.inspect(state)["round"] == 2


def test_fd13_round_score_counts_penalty_slots_kd_zero_and_no_call_bonus() -> None:
    state, _ = play(
        start(deal(stock=["8H", "JD", "3D", "6S", "2C"]), deal())[0],
        (0, DRAW_STOCK), (0, {"type": "match", "target": [1, 0]}),
        (1, DRAW_STOCK), (1, {"type": "match", "target": [1, 1]}),
        (0, CALL), (1, DRAW_STOCK), (1, DISCARD),
    )  # fmt: skip
    assert GAME.inspect(state)["round_scores"] == [27, 32]


def test_fd14_match_ends_at_100_and_lowest_wins() -> None:
    high = [["AH", "2H", "3H", "KD"], ["KS", "KC", "KH", "QS"]]
    state, _ = start(deal(rows=high), deal(rows=high))
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD), (1, DRAW_STOCK), (1, DISCARD), (0, CALL))
    state, _ = play(state, (1, DRAW_STOCK), (1, DISCARD))
    truth = GAME.inspect(state)
    assert truth["phase"] == "match_over" and truth["totals"] == [12, 102] and truth["winners"] == [0]
    assert GAME.to_move(state) is None and GAME.legal_actions(state, 0) == []
    assert rejected(state, 0, DRAW_STOCK) == ROUND_OVER


def test_fd15_stock_draw_is_private_discard_draw_public() -> None:
    state, events = play(start()[0], (0, DRAW_STOCK))
    public = [event for event in events if event.audience.public]
    private = [event for event in events if not event.audience.public]
    assert "8H" not in _strings([event.to_json() for event in public])
    assert private[0].audience.seats == frozenset({0}) and private[0].data["card"] == "8H"
    assert GAME.view(state, 0)["hand"] == "8H" and GAME.view(state, 1)["hand"] is None


def test_fd15_every_row_is_public_at_round_end() -> None:
    _, events = play(start(deal(), deal())[0], (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    ended = next(event for event in events if event.kind == "round_ended")
    assert ended.audience.public and ended.data["hands"] == ROWS


@pytest.mark.parametrize(("totals", "outcomes"), [([16, 102], ["win", "loss"]), ([102, 102], ["draw", "draw"])])
def test_fd16_outcomes_are_win_draw_loss(totals: list[int], outcomes: list[str]) -> None:
    from shared.games.golf_family.scoring import standings

    assert [standing.outcome for standing in standings(totals)] == outcomes


def test_fd16_result_only_when_over() -> None:
    state, _ = start()
    assert GAME.result(state) is None


def test_options_only_host_and_seats_two_to_four() -> None:
    assert GAME.check_options({}, 2) == {"host": 0}
    with pytest.raises(Rejection) as caught:
        GAME.check_options({"holes": 3}, 2)
    assert caught.value.reason == BAD_OPTION
    with pytest.raises(Rejection) as caught:
        GAME.check_options({}, 5)
    assert caught.value.reason == BAD_SEAT_COUNT


@pytest.mark.parametrize(
    "action",
    [None, [], {}, {"type": 3}, {"type": "fly"}, {"type": "draw"}, {"type": "draw", "from": "sky"},
     {"type": "replace", "slot": "1"}, {"type": "replace", "slot": True}, {"type": "call", "x": 1},
     {"type": "match", "target": [1]}, {"type": "power", "targets": []}, {"type": "power", "targets": [[0, 0]] * 3}],
)  # fmt: skip
def test_malformed_actions_are_unknown_action(action: Any) -> None:
    assert rejected(start()[0], 0, action) == UNKNOWN_ACTION


def test_clock_finishes_a_turn_safely() -> None:
    state, _ = start()
    assert GAME.clock_actions(state, 0) == [DRAW_STOCK, DISCARD]
    state, _ = play(state, (0, DRAW_DISCARD))
    assert GAME.clock_actions(state, 0) == [{"type": "replace", "slot": 0}]
    assert GAME.clock_actions(state, 1) == []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return []
