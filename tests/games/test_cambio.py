"""Cambio and the boxed Cabo (rules/cambio.md, CA-1 .. CA-18), through the golf-family engine."""

from __future__ import annotations

from typing import Any

import pytest

from shared.games.base import BAD_OPTION, BAD_TARGET, ILLEGAL, NOT_YOUR_TURN, STALE, Event, Rejection, Setup
from shared.games.golf_family import CABO, CAMBIO, GolfFamilyEngine

ROWS = [["5H", "KD", "9C", "2S"], ["QS", "3H", "7D", "KS"]]
CABO_ROWS = [["5", "0", "9", "2"], ["12", "3", "7", "13"]]
DRAW_STOCK = {"type": "draw", "from": "stock"}
DISCARD = {"type": "discard"}
CALL = {"type": "call"}


def deal(rows: list[list[Any]] = ROWS, discard: list[str] | None = None, stock: list[str] | None = None) -> dict[str, Any]:
    return {"hands": rows, "discard": discard or ["4C"], "stock": stock if stock is not None else ["3D", "8H", "6S", "2C"]}


def start(
    *deals: dict[str, Any], seats: int = 2, options: dict[str, Any] | None = None, game: GolfFamilyEngine = CAMBIO
) -> Any:
    chosen = game.check_options(options or {}, seats)
    return game.start(Setup(seats=seats, options=chosen, seed=5, deals=list(deals) or [deal()]))[0]


def play(state: Any, *moves: tuple[int, dict[str, Any]], game: GolfFamilyEngine = CAMBIO) -> tuple[Any, list[Event]]:
    events: list[Event] = []
    for seat, action in moves:
        state, new = game.apply(state, seat, action, 0.0)
        events += new
    return state, events


def truth(state: Any, game: GolfFamilyEngine = CAMBIO) -> dict[str, Any]:
    return game.inspect(state)


def rejected(state: Any, seat: int, action: Any, game: GolfFamilyEngine = CAMBIO) -> str:
    before = (game.inspect(state), [game.view(state, s) for s in (0, 1, None)])
    with pytest.raises(Rejection) as caught:
        game.apply(state, seat, action, 0.0)
    assert (game.inspect(state), [game.view(state, s) for s in (0, 1, None)]) == before
    return caught.value.reason


def snap(seat: int, slot: int) -> dict[str, Any]:
    return {"type": "snap", "target": [seat, slot]}


def discarded_3d(state: Any) -> Any:
    """Seat 0 draws the 3D and discards it: a snap window opens on a 3."""
    return play(state, (0, DRAW_STOCK), (0, DISCARD))[0]


def test_ca1_near_row_shown_once() -> None:
    _, events = CAMBIO.start(Setup(seats=2, options=CAMBIO.check_options({}, 2), deals=[deal()]))
    looks = [event for event in events if event.kind == "first_look"]
    assert [event.data["cards"][0]["slot"] for event in looks] == [2, 2] and all(event.reveal for event in looks)


def test_ca2_later_rounds_start_one_seat_on() -> None:
    state, _ = play(start(deal(), deal()), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round"] == 2 and CAMBIO.to_move(state) == 1


def test_ca3_discard_take_must_replace() -> None:
    state, _ = play(start(), (0, {"type": "draw", "from": "discard"}))
    assert rejected(state, 0, DISCARD) == ILLEGAL
    assert rejected(state, 0, {"type": "power", "targets": [[0, 0]]}) == ILLEGAL


def test_ca4_cambio_seven_looks_at_another_and_queen_swaps_or_passes() -> None:
    state, _ = play(start(deal(stock=["7H", "QH", "2C"])), (0, DRAW_STOCK))
    assert rejected(state, 0, {"type": "power", "targets": [[0, 0]]}) == BAD_TARGET
    state, _ = play(state, (0, {"type": "power", "targets": [[1, 0]]}), (1, DRAW_STOCK))
    state, events = play(state, (1, {"type": "power", "targets": [[0, 1]]}))
    assert next(event for event in events if event.kind == "card_seen").audience.seats == frozenset({1})
    assert CAMBIO.to_move(state) == 1 and {a["type"] for a in CAMBIO.legal_actions(state, 1)} >= {"swap", "pass"}
    assert rejected(state, 1, {"type": "swap", "targets": [[0, 1], [0, 2]]}) == BAD_TARGET
    state, _ = play(state, (1, {"type": "swap", "targets": [[1, 0], [0, 1]]}))
    assert truth(state)["hands"] == {"0": ["5H", "QS", "9C", "2S"], "1": ["KD", "3H", "7D", "KS"]}


def test_ca5_cabo_powers_and_numbered_deck() -> None:
    state = start(deal(rows=CABO_ROWS, discard=["4"], stock=["8", "10", "11", "1"]), game=CABO)
    assert sorted(CABO.rules.deck, key=int).count("0") == 2 and len(CABO.rules.deck) == 52
    state, _ = play(state, (0, DRAW_STOCK), game=CABO)
    assert rejected(state, 0, {"type": "power", "targets": [[1, 0]]}, game=CABO) == BAD_TARGET
    state, _ = play(state, (0, {"type": "power", "targets": [[0, 0]]}), (1, DRAW_STOCK), game=CABO)
    state, _ = play(state, (1, {"type": "power", "targets": [[0, 1]]}), (0, DRAW_STOCK), game=CABO)
    state, _ = play(state, (0, {"type": "power", "targets": [[0, 0], [1, 1]]}), game=CABO)
    assert truth(state, CABO)["hands"] == {"0": ["3", "0", "9", "2"], "1": ["12", "5", "7", "13"]}


def test_ca6_options_reverse_looks_and_jack_looks() -> None:
    options = {"looks_reversed": True, "jack_looks": True}
    state, _ = play(start(deal(stock=["7H", "JH", "2C"]), options=options), (0, DRAW_STOCK))
    state, _ = play(state, (0, {"type": "power", "targets": [[0, 0]]}), (1, DRAW_STOCK))
    state, _ = play(state, (1, {"type": "power", "targets": [[0, 0]]}))
    assert CAMBIO.to_move(state) == 1 and truth(state)["hands"]["0"][0] == "5H"
    assert rejected(state, 1, {"type": "swap", "targets": [[0, 0], [0, 1]]}) == BAD_TARGET
    state, _ = play(state, (1, {"type": "swap", "targets": [[0, 0], [1, 3]]}))
    assert truth(state)["hands"] == {"0": ["KS", "KD", "9C", "2S"], "1": ["QS", "3H", "7D", "5H"]}


@pytest.mark.parametrize(
    "options",
    [{"finish_line": 50, "rounds": 3}, {"wrong_snap_cards": 3}, {"jack_looks": 1}, {"finish_line": 0}, {"mode": "extreme"}],
)
def test_ca6_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(Rejection) as caught:
        CAMBIO.check_options(options, 2)
    assert caught.value.reason == BAD_OPTION


def test_ca6_rounds_replace_the_finish_line_and_options_are_idempotent() -> None:
    chosen = CAMBIO.check_options({"rounds": 3}, 2)
    assert chosen["rounds"] == 3 and chosen["finish_line"] is None
    assert CAMBIO.check_options(chosen, 2) == chosen


def test_ca7_any_seat_may_snap_while_the_window_is_open() -> None:
    rows = ROWS + [["AC", "6D", "3C", "4H"]]
    state = start(deal(rows=rows), seats=3)
    assert rejected(state, 2, snap(2, 2)) == STALE  # the dealt card opens no window
    state = discarded_3d(state)
    state, events = play(state, (2, snap(2, 2)))
    assert events[0].audience.public and events[0].data["card"] == "3C"
    assert truth(state)["discard_top"] == "3C" and CAMBIO.to_move(state) == 1


def test_ca8_no_own_snap_onto_own_discard() -> None:
    rows = [["5H", "3S", "9C", "QC"], ROWS[1]]
    state = discarded_3d(start(deal(rows=rows)))
    assert rejected(state, 0, snap(0, 1)) == ILLEGAL
    assert snap(0, 1) not in CAMBIO.legal_actions(state, 0) and snap(1, 1) in CAMBIO.legal_actions(state, 0)


def test_ca8_once_another_seats_snapped_card_covers_yours_you_may_snap_your_own_onto_it() -> None:
    rows = [["5H", "3S", "9C", "QC"], ROWS[1]]
    state, _ = play(discarded_3d(start(deal(rows=rows))), (1, snap(1, 1)))
    assert truth(state)["discard_top"] == "3H"
    assert snap(0, 1) in CAMBIO.legal_actions(state, 0)
    state, _ = play(state, (0, snap(0, 1)))
    assert truth(state)["hands"]["0"] == ["5H", None, "9C", "QC"] and truth(state)["discard_top"] == "3S"


def test_ca9_give_is_the_snappers_next_action() -> None:
    state, _ = play(discarded_3d(start()), (0, snap(1, 1)))
    assert CAMBIO.legal_actions(state, 0) == [{"type": "give", "slot": s} for s in range(4)]
    assert rejected(state, 0, snap(0, 0)) == ILLEGAL
    assert rejected(state, 0, {"type": "move_finish_line", "to": 150}) == ILLEGAL  # the host too
    state, _ = play(state, (0, {"type": "give", "slot": 0}))
    assert truth(state)["hands"] == {"0": [None, "KD", "9C", "2S"], "1": ["QS", "5H", "7D", "KS"]}


def test_ca10_wrong_snap_costs_wrong_snap_cards_unseen() -> None:
    state, events = play(discarded_3d(start(options={"wrong_snap_cards": 2})), (1, snap(0, 0)))
    assert truth(state)["hands"]["1"] == ["QS", "3H", "7D", "KS", "8H", "6S"]
    assert not {"5H", "8H", "6S"} & set(str(event.to_json()) for event in events)
    assert "5H" not in str([event.to_json() for event in events])


def test_ca11_stale_snaps_cost_nothing() -> None:
    state, _ = play(discarded_3d(start()), (1, snap(1, 1)))
    assert rejected(state, 0, snap(1, 1)) == STALE
    state, _ = play(state, (1, DRAW_STOCK))
    assert rejected(state, 0, snap(1, 0)) == STALE


def test_ca12_clearing_the_grid_ends_the_round_without_judging_the_call() -> None:
    rows = [["QS", "KS", "10C", "9C"], ["AH", "2H", "3H", "4H"], [None, None, None, "5D"]]
    state = start(deal(rows=rows, stock=["5C", "6S"]), deal(rows=rows), seats=3)
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD), (2, snap(2, 3)))
    assert truth(state)["round_scores"] == [42, 10, 0]


@pytest.mark.parametrize(
    ("caller_row", "scores"),
    [(["KH", "AS", "2S", "3S"], [0, 33]), (["QH", "JH", "10H", "3S"], [43, 33])],
)
def test_ca13_strictly_lowest_caller_zero_else_highest_plus_ten(caller_row: list[str], scores: list[int]) -> None:
    state = start(deal(rows=[caller_row, ROWS[1]]), deal())
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round_scores"] == scores


def test_ca13_a_tie_is_a_failed_call() -> None:
    state = start(deal(rows=[["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]]), deal())
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["round_scores"] == [20, 10]


def test_ca14_cabo_twelves_and_thirteens() -> None:
    rows = [["12", "13", "12", "13"], ["0", "1", "1", "2"]]
    state = start(deal(rows=rows, discard=["9"], stock=["7", "8"]), deal(rows=rows, discard=["9"], stock=["7"]), game=CABO)
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD), game=CABO)
    assert truth(state, CABO)["round_scores"] == [0, 50]


def test_ca15_reshuffle_and_nothing_to_shuffle() -> None:
    state = start(deal(discard=["9D", "5C", "8C"], stock=["AD"]))
    state, _ = play(state, (0, DRAW_STOCK), (0, {"type": "replace", "slot": 0}), (1, DRAW_STOCK))
    assert truth(state)["discard"] == ["5H"] and truth(state)["stock_size"] == 2
    state, _ = play(start(deal(stock=[]), deal()), (0, DRAW_STOCK))
    assert truth(state)["round"] == 2


def test_ca16_host_moves_the_finish_line_and_everyone_is_told() -> None:
    state = start(deal(), deal(), options={"finish_line": 40, "host": 1})
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert rejected(state, 0, {"type": "move_finish_line", "to": 90}) == ILLEGAL
    assert rejected(state, 1, {"type": "move_finish_line", "to": 32}) == ILLEGAL
    state, events = play(state, (1, {"type": "move_finish_line", "to": 90}))
    assert events[0].audience.public and CAMBIO.view(state, 0)["finish_line"] == 90


def test_ca16_match_ends_when_a_total_reaches_the_line() -> None:
    state = start(deal(), options={"finish_line": 30})
    state, _ = play(state, (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    assert truth(state)["phase"] == "match_over" and truth(state)["winners"] == [0]


def test_ca17_queen_look_private_swap_public() -> None:
    state, _ = play(start(deal(stock=["QH", "2C"])), (0, DRAW_STOCK))
    state, events = play(state, (0, {"type": "power", "targets": [[1, 0]]}))
    public_text = str([event.to_json() for event in events if event.audience.public])
    assert "QS" not in public_text and "[1, 0]" in public_text
    state, events = play(state, (0, {"type": "pass"}))
    assert events[0].kind == "passed" and events[0].audience.public


def test_ca18_result_standings() -> None:
    state, _ = play(start(deal(), options={"rounds": 1}), (0, CALL), (1, DRAW_STOCK), (1, DISCARD))
    result = CAMBIO.result(state)
    assert result is not None and [s.outcome for s in result.standings] == ["win", "loss"]


def test_snap_is_not_your_turn_free_but_turn_actions_are() -> None:
    state = discarded_3d(start())
    assert rejected(state, 0, DRAW_STOCK) == NOT_YOUR_TURN


def test_ca4_queen_swap_is_stale_once_the_looked_at_card_was_snapped_even_if_a_give_refilled_its_slot() -> None:
    rows = [["5H", "KD", "9C", "2S"], ["QS", "3H", "7D", "KS"], ["AC", "6D", "3C", "4H"]]
    state, _ = play(start(deal(rows, stock=["QH", "2D"]), seats=3), (0, DRAW_STOCK), (0, {"type": "power", "targets": [[1, 0]]}))
    state, _ = play(state, (2, snap(1, 0)), (2, {"type": "give", "slot": 0}))
    assert truth(state)["hands"]["1"] == ["AC", "3H", "7D", "KS"]
    assert rejected(state, 0, {"type": "swap", "targets": [[1, 0], [2, 1]]}) == STALE
    legal = CAMBIO.legal_actions(state, 0)
    assert {"type": "pass"} in legal and not [action for action in legal if action["type"] == "swap"]
