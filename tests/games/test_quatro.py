"""Quatro's rules, one by one (rules/quatro.md QU-1..QU-17, seed 001).

Each test names the rule it checks. Tables are set up from exact deals and driven like the table
service does: actions at a given time, and the clock advanced explicitly.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

import pytest

from shared.games import registry
from shared.games.base import Event, Json, Rejection, Setup
from shared.games.cards import is_card, rank
from shared.games.quatro import QUATRO, SIGNALS
from shared.games.quatro.rules import deck, holds_three_of_a_value, seeded_deal

PINEAPPLE, ROCKET, TURTLE, FOX = SIGNALS[0], SIGNALS[1], SIGNALS[2], SIGNALS[3]

# Seat 2 holds the queens; the centre holds the clubs.
FOUR_DEAL: dict[str, Any] = {
    "hands": [["AH", "KH", "JH", "10H"], ["AS", "KS", "JS", "10S"], ["QH", "QS", "QD", "QC"], ["AD", "KD", "JD", "10D"]],
    "center": ["AC", "KC", "JC", "10C"],
}
# No quartet anywhere.
QUIET_DEAL: dict[str, Any] = {
    "hands": [["AH", "KH", "JH", "10H"], ["AS", "KS", "JS", "10S"], ["QH", "QS", "AD", "KD"], ["QD", "QC", "JD", "10D"]],
    "center": ["AC", "KC", "JC", "10C"],
}
# Six players (A K Q J 10 9 8): seat 4 (team 1) holds the nines.
SIX_DEAL: dict[str, Any] = {
    "hands": [
        ["AH", "KH", "QH", "JH"],
        ["AS", "KS", "QS", "JS"],
        ["AD", "KD", "QD", "JD"],
        ["AC", "KC", "QC", "JC"],
        ["9H", "9S", "9D", "9C"],
        ["10H", "10S", "8H", "8S"],
    ],
    "center": ["10D", "10C", "8D", "8C"],
}


class Table:
    """A Quatro table as the table service drives it, recording what each seat was sent."""

    def __init__(self, seats: int = 4, deals: tuple[Mapping[str, Json], ...] = (FOUR_DEAL,), **setup: Any) -> None:
        options = QUATRO.check_options(setup.pop("options", {}), seats)
        self.seats = seats
        self.state, events = QUATRO.start(Setup(seats=seats, options=options, deals=deals, **setup))
        self.sent: dict[int | None, list[Json]] = {seat: [] for seat in [*range(seats), None]}
        self.events: list[Event] = []
        self.deliver(events)

    def deliver(self, events: list[Event]) -> list[Event]:
        self.events += events
        for seat, messages in self.sent.items():
            messages.extend(event.to_json() for event in events if event.audience.includes(seat))
            messages.append(QUATRO.view(self.state, seat))
        return events

    def do(self, seat: int, action: Mapping[str, Json], at: float | None = None) -> list[Event]:
        now = self.state.clock if at is None else at
        self.state, events = QUATRO.apply(self.state, seat, action, now)
        return self.deliver(events)

    def refused(self, seat: int, action: Any, at: float | None = None) -> str:
        """The reason ``action`` is refused; it must change nothing."""
        before = (QUATRO.inspect(self.state), [QUATRO.view(self.state, s) for s in self.sent])
        with pytest.raises(Rejection) as refusal:
            self.do(seat, action, at)
        assert (QUATRO.inspect(self.state), [QUATRO.view(self.state, s) for s in self.sent]) == before
        return refusal.value.reason

    def at(self, now: float) -> list[Event]:
        self.state, events = QUATRO.advance(self.state, now)
        return self.deliver(events)

    def play(self, at: float = 30.0) -> None:
        """Let the signal phase run out (QU-4) so that play begins."""
        self.at(at)
        assert self.truth["phase"] == "playing"

    @property
    def truth(self) -> dict[str, Json]:
        return QUATRO.inspect(self.state)

    def strings_sent(self, seat: int | None) -> set[str]:
        return set(_strings(self.sent[seat]))

    def signals_told(self, seat: int | None, team: int) -> set[str]:
        return {signal for told_team, signal in _signal_objects(self.sent[seat]) if told_team == team}


def _strings(value: Json) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return []


def _signal_objects(value: Json) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    if isinstance(value, Mapping):
        if isinstance(value.get("team"), int) and isinstance(value.get("signal"), str):
            found.append((value["team"], value["signal"]))
        for item in value.values():
            found += _signal_objects(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found += _signal_objects(item)
    return found


def _kinds(events: list[Event]) -> list[str]:
    return [event.kind for event in events]


def _shown(events: list[Event]) -> list[Event]:
    return [event for event in events if event.kind == "shown"]


# --- options and set-up --------------------------------------------------------------------------


def test_registry_finds_the_engine_and_the_robot() -> None:
    assert registry.game("quatro") is QUATRO
    assert registry.robot("quatro", 1, 4, {}, 3).seat == 1


@pytest.mark.parametrize("seats", [2, 3, 5, 7, 9, 10])
def test_qu1_only_four_six_or_eight_players(seats: int) -> None:
    with pytest.raises(Rejection) as refusal:
        QUATRO.check_options({}, seats)
    assert refusal.value.reason == "bad_seat_count"


@pytest.mark.parametrize("options", [{"target": 7}, {"host": 4}, {"host": -1}, {"host": True}, {"host": "0"}])
def test_options_refuse_unknown_keys_and_bad_hosts(options: dict[str, Json]) -> None:
    with pytest.raises(Rejection) as refusal:
        QUATRO.check_options(options, 4)
    assert refusal.value.reason == "bad_option"


def test_qu11_host_option_defaults_to_seat_zero() -> None:
    assert QUATRO.check_options({}, 6) == {"host": 0}
    assert QUATRO.check_options({"host": 5}, 6) == {"host": 5}


def test_a_deal_that_is_not_the_tables_deck_is_refused() -> None:
    bad = {"hands": FOUR_DEAL["hands"], "center": ["AC", "KC", "JC", "9C"]}
    with pytest.raises(Rejection) as refusal:
        Table(deals=(bad,))
    assert refusal.value.reason == "bad_deal"


# --- QU-1 the deck -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "values"),
    [(4, {"A", "K", "Q", "J", "10"}), (6, {"A", "K", "Q", "J", "10", "9", "8"}), (8, {"A", "K", "Q", "J", "10", "9", "8", "7", "6"})],
)
def test_qu1_deck_has_one_value_more_than_players_four_of_each(seats: int, values: set[str]) -> None:
    cards = deck(seats)
    assert len(cards) == 4 * seats + 4 == len(set(cards))
    assert Counter(rank(card) for card in cards) == {value: 4 for value in values}


@pytest.mark.parametrize("seats", [4, 6, 8])
def test_qu1_four_cards_to_each_hand_four_face_up_in_the_centre(seats: int) -> None:
    table = Table(seats=seats, deals=(), seed=5)
    truth = table.truth
    assert all(len(hand) == 4 for hand in truth["hands"].values())
    assert len(truth["center"]) == 4
    dealt = [card for hand in truth["hands"].values() for card in hand] + truth["center"]
    assert sorted(dealt) == sorted(deck(seats))


# --- QU-2 redeal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [4, 6, 8])
def test_qu2_no_seeded_hand_holds_three_of_a_value(seats: int) -> None:
    for seed in range(60):
        deal = seeded_deal(deck(seats), seats, seed, "deal", 1)
        assert not any(holds_three_of_a_value(hand) for hand in deal.hands)


def test_qu2_the_table_is_told_how_many_redeals_never_the_value() -> None:
    redealt = next(seed for seed in range(200) if seeded_deal(deck(4), 4, seed, "deal", 1).redeals > 0)
    table = Table(deals=(), seed=redealt)
    dealt = next(event for event in table.events if event.kind == "round_dealt")
    assert dealt.audience.public and dealt.data["redeals"] > 0 and dealt.data["hands_with_three"] > 0
    assert not any(text in {"A", "K", "Q", "J", "10"} for text in _strings(dict(dealt.data)))


def test_qu2_a_deal_given_by_the_setup_is_used_as_is() -> None:
    table = Table()
    assert table.truth["hands"]["2"] == ["QH", "QS", "QD", "QC"]
    assert table.truth["redeals"] == 0


# --- QU-3 signals --------------------------------------------------------------------------------


def test_qu3_there_are_24_distinct_signals_none_looks_like_a_card() -> None:
    assert len(SIGNALS) == 24 == len(set(SIGNALS))
    assert not any(is_card(emoji) for emoji in SIGNALS)


def test_qu3_first_partner_fixes_the_signal_and_only_the_partner_is_told() -> None:
    table = Table()
    table.do(0, {"type": "choose_signal", "emoji": PINEAPPLE})
    table.do(2, {"type": "choose_signal", "emoji": ROCKET})  # too late: the partner was first
    assert table.truth["signals"] == {"0": PINEAPPLE}
    assert table.signals_told(0, 0) == table.signals_told(2, 0) == {PINEAPPLE}
    assert table.signals_told(1, 0) == table.signals_told(3, 0) == table.signals_told(None, 0) == set()


def test_qu3_a_team_without_a_signal_gets_a_seeded_one_told_to_it_alone() -> None:
    table = Table(seed=9)
    table.do(1, {"type": "choose_signal", "emoji": TURTLE})
    table.play()
    drawn = table.truth["signals"]["0"]
    assert drawn in SIGNALS and drawn != TURTLE
    assert table.signals_told(0, 0) == table.signals_told(2, 0) == {drawn}
    assert table.signals_told(1, 0) == table.signals_told(None, 0) == set()
    assert _drawn_signal(seed=9) == drawn  # replayable from the seed


def _drawn_signal(seed: int) -> str:
    table = Table(seed=seed)
    table.do(1, {"type": "choose_signal", "emoji": TURTLE})
    table.play()
    return str(table.truth["signals"]["0"])


def test_qu3_a_new_round_needs_a_new_signal() -> None:
    table = Table(deals=(FOUR_DEAL, QUIET_DEAL))
    table.do(0, {"type": "choose_signal", "emoji": PINEAPPLE})
    table.play()
    table.do(1, {"type": "quatro"}, at=31)
    table.at(61)  # QU-11 pause over
    assert table.truth["phase"] == "signals" and table.truth["round"] == 2 and table.truth["signals"] == {}
    assert table.refused(2, {"type": "choose_signal", "emoji": PINEAPPLE}) == "illegal"
    table.do(2, {"type": "choose_signal", "emoji": FOX})
    assert table.truth["signals"] == {"0": FOX}


def test_qu3_signals_are_chosen_only_in_the_signal_phase() -> None:
    table = Table()
    table.play()
    assert table.refused(0, {"type": "choose_signal", "emoji": PINEAPPLE}) == "illegal"


def test_qu3_an_emoji_outside_the_list_is_refused() -> None:
    table = Table()
    assert table.refused(0, {"type": "choose_signal", "emoji": "KH"}) == "unknown_action"


# --- QU-4 round start ----------------------------------------------------------------------------


def test_qu4_play_starts_when_every_connected_human_is_ready() -> None:
    table = Table()
    for seat in (0, 1, 2):
        table.do(seat, {"type": "ready"}, at=3)
        assert table.truth["phase"] == "signals"
    table.do(3, {"type": "ready"}, at=4)
    assert table.truth["phase"] == "playing"
    assert QUATRO.next_deadline(table.state) == 4 + 180


def test_qu4_robots_are_always_ready() -> None:
    table = Table(robots=frozenset({1, 3}))
    assert table.truth["ready"] == [1, 3]
    table.do(0, {"type": "ready"}, at=1)
    table.do(2, {"type": "ready"}, at=2)
    assert table.truth["phase"] == "playing"


def test_qu4_otherwise_play_starts_30_seconds_after_the_set_up() -> None:
    table = Table(now=100.0)
    assert QUATRO.next_deadline(table.state) == 130.0
    table.at(129.9)
    assert table.truth["phase"] == "signals"
    table.at(130.0)
    assert table.truth["phase"] == "playing"


def test_qu4_a_disconnected_human_does_not_hold_the_start() -> None:
    table = Table()
    for seat in (0, 1, 2):
        table.do(seat, {"type": "ready"}, at=1)
    table.do(3, {"type": "disconnect"}, at=2)
    assert table.truth["phase"] == "playing"


def test_qu4_ready_is_only_for_the_signal_phase() -> None:
    table = Table()
    table.do(0, {"type": "ready"})
    assert table.refused(0, {"type": "ready"}) == "illegal"
    table.play()
    assert table.refused(1, {"type": "ready"}) == "illegal"


# --- QU-5 exchange -------------------------------------------------------------------------------


def test_qu5_exchange_trades_the_two_cards_publicly() -> None:
    table = Table()
    table.play()
    events = table.do(0, {"type": "exchange", "hand_slot": 1, "center_slot": 2, "expect": "JC"}, at=31)
    assert table.truth["hands"]["0"] == ["AH", "JC", "JH", "10H"]
    assert table.truth["center"] == ["AC", "KC", "KH", "10C"]
    exchanged = next(event for event in events if event.kind == "exchanged")
    assert exchanged.audience.public
    assert dict(exchanged.data) == {"seat": 0, "hand_slot": 1, "center_slot": 2, "placed": "KH", "taken": "JC"}
    assert "KH" in table.strings_sent(None)


def test_qu5_an_exchange_on_a_card_already_gone_is_stale_and_costs_nothing() -> None:
    table = Table()
    table.play()
    table.do(1, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, at=31)
    assert table.refused(0, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, at=31.1) == "stale"
    table.do(0, {"type": "exchange", "hand_slot": 0, "center_slot": 1, "expect": "KC"}, at=31.2)  # no cooldown
    assert table.truth["hands"]["0"][0] == "KC"


@pytest.mark.parametrize(("hand_slot", "center_slot"), [(4, 0), (-1, 0), (0, 4), (0, -1)])
def test_qu5_slots_out_of_range_are_bad_targets(hand_slot: int, center_slot: int) -> None:
    table = Table()
    table.play()
    action = {"type": "exchange", "hand_slot": hand_slot, "center_slot": center_slot, "expect": "AC"}
    assert table.refused(0, action) == "bad_target"


def test_qu5_no_exchange_before_play_or_after_the_round() -> None:
    table = Table()
    action = {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}
    assert table.refused(0, action) == "illegal"
    table.play()
    table.do(0, {"type": "quatro"}, at=31)
    assert table.refused(1, action) == "round_over"


# --- QU-6 cooldown -------------------------------------------------------------------------------


def test_qu6_next_exchange_waits_two_seconds() -> None:
    table = Table()
    table.play()
    table.do(0, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, at=40)
    second = {"type": "exchange", "hand_slot": 1, "center_slot": 1, "expect": "KC"}
    assert table.refused(0, second, at=41.9) == "cooldown"
    assert QUATRO.next_deadline(table.state) == 42
    table.do(0, second, at=42)
    assert table.truth["hands"]["0"][:2] == ["AC", "KC"]


def test_qu6_qu7_deadlines_fall_exactly_on_decimal_times() -> None:
    """30.01 + 2 is 32.010000000000005 in floats: the cooldown must still end at 32.01."""
    table = Table()
    table.play()
    table.do(0, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, at=30.01)
    table.do(1, {"type": "take_floor"}, at=30.12)
    table.do(3, {"type": "take_floor"}, at=30.12)
    table.do(3, {"type": "show", "emoji": ROCKET}, at=30.12)
    second = {"type": "exchange", "hand_slot": 1, "center_slot": 1, "expect": "KC"}
    assert table.refused(0, second, at=32.0) == "cooldown"
    assert QUATRO.next_deadline(table.state) == 32.01
    table.do(0, second, at=32.01)
    assert table.refused(1, {"type": "release_floor"}, at=32.11) == "cooldown"
    table.do(1, {"type": "release_floor"}, at=32.12)
    assert _shown(table.at(35.11)) == []
    assert [event.data["emoji"] for event in _shown(table.at(35.12))] == [ROCKET]  # 5 s later, exactly


def test_qu6_the_cooldown_is_per_player() -> None:
    table = Table()
    table.play()
    table.do(0, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, at=40)
    table.do(1, {"type": "exchange", "hand_slot": 0, "center_slot": 1, "expect": "KC"}, at=40.5)


def test_qu6_the_end_of_a_cooldown_is_told_to_the_player_alone() -> None:
    table = Table()
    table.play()
    table.do(0, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, at=40)
    ready = [event for event in table.at(43) if event.kind == "exchange_ready"]
    assert len(ready) == 1 and ready[0].audience.seats == {0}


# --- QU-7 the floor ------------------------------------------------------------------------------


def test_qu7_taking_the_floor_and_showing_are_public_and_repeat_every_5_seconds() -> None:
    table = Table()
    table.play()
    assert _kinds(table.do(1, {"type": "take_floor"}, at=31)) == ["floor_taken"]
    assert _shown(table.at(40)) == []  # nothing is shown until the player chooses
    shown = table.do(1, {"type": "show", "emoji": ROCKET}, at=40)
    assert shown[0].audience.public and dict(shown[0].data)["emoji"] == ROCKET
    again = _shown(table.at(50.1))
    assert [event.data["emoji"] for event in again] == [ROCKET, ROCKET]
    assert all(event.audience.public for event in again)
    assert QUATRO.view(table.state, None)["floor"] == [{"seat": 1, "emoji": ROCKET}]


def test_qu7_changing_the_emoji_restarts_the_cadence() -> None:
    table = Table()
    table.play()
    table.do(1, {"type": "take_floor"}, at=31)
    table.do(1, {"type": "show", "emoji": ROCKET}, at=32)
    table.do(1, {"type": "show", "emoji": TURTLE}, at=35)
    assert _shown(table.at(39.9)) == []
    assert [dict(event.data) for event in _shown(table.at(40))] == [{"seat": 1, "emoji": TURTLE, "again": True}]


def test_qu7_two_seconds_between_floor_gestures() -> None:
    table = Table()
    table.play()
    table.do(2, {"type": "take_floor"}, at=31)
    assert table.refused(2, {"type": "release_floor"}, at=32.5) == "cooldown"
    assert "floor_released" in _kinds(table.do(2, {"type": "release_floor"}, at=33))
    assert table.refused(2, {"type": "take_floor"}, at=34) == "cooldown"
    table.do(2, {"type": "take_floor"}, at=35)


def test_qu7_releasing_stops_the_announcements() -> None:
    table = Table()
    table.play()
    table.do(2, {"type": "take_floor"}, at=31)
    table.do(2, {"type": "show", "emoji": FOX}, at=31)
    table.do(2, {"type": "release_floor"}, at=34)
    assert _shown(table.at(60)) == []


def test_qu7_show_needs_the_floor_and_several_may_hold_it() -> None:
    table = Table()
    table.play()
    assert table.refused(0, {"type": "show", "emoji": FOX}) == "illegal"
    assert table.refused(0, {"type": "release_floor"}) == "illegal"
    for seat in range(4):
        table.do(seat, {"type": "take_floor"}, at=31)
    assert table.refused(0, {"type": "take_floor"}, at=40) == "illegal"
    assert len(QUATRO.view(table.state, 3)["floor"]) == 4


# --- QU-8 ¡Quatro! -------------------------------------------------------------------------------


def test_qu8_quatro_on_the_partners_quartet_scores_for_the_callers_team() -> None:
    table = Table()
    table.play()
    table.do(0, {"type": "quatro"}, at=31)
    assert table.truth["round_scores"] == [1, 0] and table.truth["totals"] == [1, 0]
    assert table.truth["caller"] == 0


def test_qu8_a_wrong_quatro_gives_every_other_team_a_point() -> None:
    table = Table(seats=6, deals=(SIX_DEAL,))
    table.play()
    table.do(0, {"type": "quatro"}, at=31)  # seat 3 holds no quartet
    assert table.truth["round_scores"] == [0, 1, 1]


def test_qu8_own_quartet_is_refused_once_then_confirmed_and_judged_on_the_partner() -> None:
    table = Table()
    table.play()
    assert table.refused(2, {"type": "quatro"}) == "own_quartet"
    assert table.refused(2, {"type": "quatro", "confirm": False}) == "own_quartet"
    table.do(2, {"type": "quatro", "confirm": True})
    assert table.truth["round_scores"] == [0, 1]  # seat 0 holds no quartet


# --- QU-9 ¡Contra! -------------------------------------------------------------------------------


def test_qu9_a_right_contra_scores_for_the_accuser() -> None:
    table = Table()
    table.play()
    table.do(1, {"type": "contra"}, at=31)  # implicit with 4 players: team 0, where seat 2 holds queens
    assert table.truth["round_scores"] == [0, 1]


def test_qu9_a_wrong_contra_scores_for_the_accused_even_if_another_team_holds_one() -> None:
    table = Table(seats=6, deals=(SIX_DEAL,))
    table.play()
    table.do(0, {"type": "contra", "team": 2}, at=31)  # team 1 (seat 4) holds the quartet
    assert table.truth["round_scores"] == [0, 0, 1]


def test_qu9_with_six_players_the_team_must_be_named_and_opposing() -> None:
    table = Table(seats=6, deals=(SIX_DEAL,))
    table.play()
    assert table.refused(0, {"type": "contra"}) == "bad_target"
    assert table.refused(0, {"type": "contra", "team": 0}) == "bad_target"
    assert table.refused(0, {"type": "contra", "team": 3}) == "bad_target"
    table.do(0, {"type": "contra", "team": 1})
    assert table.truth["round_scores"] == [1, 0, 0]


def test_qu9_with_four_players_naming_the_own_team_is_a_bad_target() -> None:
    table = Table()
    table.play()
    assert table.refused(1, {"type": "contra", "team": 1}) == "bad_target"


# --- QU-10 round end -----------------------------------------------------------------------------


def test_qu10_the_first_call_ends_the_round_and_shows_every_hand() -> None:
    table = Table()
    table.play()
    assert "QS" not in table.strings_sent(1)
    events = table.do(1, {"type": "contra"}, at=31)
    ended = next(event for event in events if event.kind == "round_ended")
    assert ended.audience.public and ended.data["quartets"] == [{"seat": 2, "value": "Q"}]
    assert QUATRO.view(table.state, None)["hands"][2] == ["QH", "QS", "QD", "QC"]
    assert "QS" in table.strings_sent(1) and "QS" in table.strings_sent(None)
    assert table.refused(0, {"type": "quatro"}) == "round_over"
    assert table.truth["phase"] == "round_over"


def test_qu10_no_call_within_three_minutes_is_a_blank_round() -> None:
    table = Table()
    table.do(0, {"type": "ready"}, at=1)
    table.play(at=30)
    table.at(209.9)
    assert table.truth["phase"] == "playing"
    table.at(210)
    assert table.truth["phase"] == "round_over"
    assert table.truth["round_scores"] == [0, 0] and table.truth["totals"] == [0, 0]
    assert table.truth["caller"] is None


# --- QU-11 between rounds ------------------------------------------------------------------------


def test_qu11_a_thirty_second_pause_then_the_next_round_is_dealt() -> None:
    table = Table()
    table.play()
    table.do(0, {"type": "quatro"}, at=40)
    table.at(69.9)
    assert table.truth["phase"] == "round_over"
    table.at(70)
    assert table.truth["phase"] == "signals" and table.truth["round"] == 2
    assert QUATRO.view(table.state, 0).get("hands") is None  # hands are private again


def test_qu11_the_host_may_cut_the_pause_short_nobody_else() -> None:
    table = Table(options={"host": 1})
    table.play()
    table.do(0, {"type": "quatro"}, at=40)
    assert table.refused(0, {"type": "start_next_round"}, at=41) == "illegal"
    table.do(1, {"type": "start_next_round"}, at=41)
    assert table.truth["phase"] == "signals" and table.truth["round"] == 2


def test_qu11_if_the_host_is_gone_the_lowest_connected_human_hosts() -> None:
    table = Table(robots=frozenset({1}))
    table.play()
    table.do(0, {"type": "disconnect"}, at=35)
    table.do(3, {"type": "contra"}, at=40)
    assert QUATRO.legal_actions(table.state, 2) == [{"type": "start_next_round"}]
    assert table.refused(3, {"type": "start_next_round"}, at=41) == "illegal"
    table.do(2, {"type": "start_next_round"}, at=41)
    assert table.truth["round"] == 2


def test_qu11_start_next_round_only_between_rounds() -> None:
    table = Table()
    assert table.refused(0, {"type": "start_next_round"}) == "illegal"


# --- QU-12 reshuffle vote ------------------------------------------------------------------------


def test_qu12_a_reshuffle_passes_when_every_other_connected_human_says_yes() -> None:
    table = Table(robots=frozenset({3}))
    table.do(0, {"type": "choose_signal", "emoji": FOX})
    table.play()
    before = table.truth
    table.do(1, {"type": "propose_reshuffle"}, at=40)
    table.do(0, {"type": "vote", "accept": True}, at=41)
    assert table.truth["hands"] == before["hands"]
    events = table.do(2, {"type": "vote", "accept": True}, at=42)
    assert "reshuffled" in _kinds(events)
    after = table.truth
    assert after["hands"] != before["hands"] and after["phase"] == "playing"
    everything = sorted(card for hand in after["hands"].values() for card in hand) + after["center"]
    assert sorted(everything) == sorted(deck(4))
    assert not any(holds_three_of_a_value(hand) for hand in after["hands"].values())  # QU-2
    assert after["signals"]["0"] == FOX and after["totals"] == [0, 0]
    assert QUATRO.next_deadline(table.state) == 30 + 180  # same round clock


def test_qu12_no_answer_is_no() -> None:
    table = Table()
    table.play()
    table.do(1, {"type": "propose_reshuffle"}, at=40)
    table.do(0, {"type": "vote", "accept": True}, at=41)
    table.do(2, {"type": "vote", "accept": True}, at=42)
    refused = table.at(60)
    assert _kinds(refused) == ["reshuffle_refused"]
    assert table.truth["hands"]["2"] == ["QH", "QS", "QD", "QC"]


def test_qu12_a_no_refuses_at_once_and_robots_do_not_vote() -> None:
    table = Table(robots=frozenset({3}))
    table.play()
    table.do(1, {"type": "propose_reshuffle"}, at=40)
    assert table.refused(3, {"type": "vote", "accept": True}) == "illegal"
    assert table.refused(1, {"type": "vote", "accept": True}) == "illegal"  # the proposer
    table.do(0, {"type": "vote", "accept": False}, at=41)
    assert table.truth["vote"] is None


def test_qu12_thirty_seconds_between_proposals_and_one_reshuffle_per_round() -> None:
    table = Table()
    table.play()
    table.do(1, {"type": "propose_reshuffle"}, at=40)
    table.do(0, {"type": "vote", "accept": False}, at=41)
    assert table.refused(2, {"type": "propose_reshuffle"}, at=69.9) == "cooldown"
    table.do(2, {"type": "propose_reshuffle"}, at=70)  # a failed vote does not count
    for seat in (0, 1, 3):
        table.do(seat, {"type": "vote", "accept": True}, at=71)
    assert table.truth["reshuffled"] is True
    assert table.refused(0, {"type": "propose_reshuffle"}, at=101) == "illegal"


def test_qu12_a_disconnected_human_does_not_vote() -> None:
    table = Table()
    table.play()
    table.do(3, {"type": "disconnect"}, at=35)
    table.do(1, {"type": "propose_reshuffle"}, at=40)
    table.do(0, {"type": "vote", "accept": True}, at=41)
    table.do(2, {"type": "vote", "accept": True}, at=42)
    assert table.truth["reshuffled"] is True


def test_qu12_the_reshuffled_hands_are_private() -> None:
    table = Table()
    table.play()
    table.do(1, {"type": "propose_reshuffle"}, at=40)
    for seat in (0, 2, 3):
        table.do(seat, {"type": "vote", "accept": True}, at=41)
    hands = table.truth["hands"]
    for seat in range(4):
        others = {card for other, hand in hands.items() if other != str(seat) for card in hand}
        newly_sent = set(_strings([event.to_json() for event in table.events[-5:] if event.audience.includes(seat)]))
        assert set(hands[str(seat)]) <= newly_sent and not others & newly_sent


# --- QU-13 disconnection -------------------------------------------------------------------------


def test_qu13_a_disconnected_player_keeps_seat_and_hand_and_cannot_act() -> None:
    table = Table()
    table.play()
    table.do(2, {"type": "disconnect"}, at=31)
    assert table.truth["hands"]["2"] == ["QH", "QS", "QD", "QC"]
    assert table.refused(2, {"type": "take_floor"}) == "illegal"
    assert QUATRO.legal_actions(table.state, 2) == []
    assert table.refused(2, {"type": "disconnect"}) == "illegal"


def test_qu13_the_partner_may_still_call_and_opponents_call_against_the_team() -> None:
    table = Table()
    table.play()
    table.do(2, {"type": "disconnect"}, at=31)
    table.do(0, {"type": "quatro"}, at=32)
    assert table.truth["round_scores"] == [1, 0]
    other = Table()
    other.play()
    other.do(2, {"type": "disconnect"}, at=31)
    other.do(3, {"type": "contra"}, at=32)
    assert other.truth["round_scores"] == [0, 1]


def test_qu13_a_reconnected_player_plays_again() -> None:
    table = Table()
    table.play()
    table.do(2, {"type": "disconnect"}, at=31)
    assert table.refused(0, {"type": "reconnect"}) == "illegal"
    table.do(2, {"type": "reconnect"}, at=33)
    table.do(2, {"type": "take_floor"}, at=34)


def test_qu13_the_round_ends_at_its_three_minutes_without_them() -> None:
    table = Table()
    for seat in range(4):
        table.do(seat, {"type": "disconnect"}, at=1)
    assert table.truth["phase"] == "playing"
    table.at(181)
    assert table.truth["phase"] == "round_over"


# --- QU-14 match end -----------------------------------------------------------------------------


def _play_rounds(table: Table, callers: list[tuple[int, dict[str, Json]]]) -> None:
    for caller, call in callers:
        table.play(at=table.state.phase_since + 30)
        table.do(caller, call, at=table.state.clock + 1)
        if table.truth["phase"] == "round_over":
            table.at(table.state.clock + 30)


def test_qu14_first_team_to_five_points_wins() -> None:
    table = Table(deals=(FOUR_DEAL,) * 5)
    _play_rounds(table, [(0, {"type": "quatro"})] * 5)
    assert table.truth["phase"] == "match_over" and table.truth["winners"] == [0]
    result = QUATRO.result(table.state)
    assert result is not None and result.rounds == 5
    assert [standing.outcome for standing in result.standings] == ["win", "loss", "win", "loss"]
    assert [standing.total for standing in result.standings] == [5, 0, 5, 0]
    assert QUATRO.next_deadline(table.state) is None  # no pause, no next round
    assert table.refused(0, {"type": "quatro"}) == "round_over"


def test_qu14_teams_level_on_the_best_score_win_together_as_a_draw() -> None:
    six_quiet = {"hands": SIX_DEAL["hands"][:4] + [["9H", "9S", "10H", "10S"], ["9D", "9C", "8H", "8S"]], "center": ["10D", "10C", "8D", "8C"]}
    table = Table(seats=6, deals=(six_quiet,) * 5)
    _play_rounds(table, [(0, {"type": "quatro"})] * 5)  # each wrong call: teams 1 and 2 score
    assert table.truth["winners"] == [1, 2] and table.truth["totals"] == [0, 5, 5]
    result = QUATRO.result(table.state)
    assert result is not None
    assert [standing.outcome for standing in result.standings] == ["loss", "draw", "draw"] * 2


def test_qu14_no_result_before_the_match_ends() -> None:
    table = Table()
    assert QUATRO.result(table.state) is None


# --- QU-16 visibility ----------------------------------------------------------------------------


def test_qu16_hands_are_private_and_the_centre_public() -> None:
    table = Table()
    table.play()
    hands = table.truth["hands"]
    for seat in range(4):
        sent = table.strings_sent(seat)
        assert set(hands[str(seat)]) <= sent
        assert not {card for other, hand in hands.items() if other != str(seat) for card in hand} & sent
    spectator = table.strings_sent(None)
    assert set(table.truth["center"]) <= spectator
    assert not {card for hand in hands.values() for card in hand} & spectator


def test_qu16_a_spectator_never_learns_a_signal() -> None:
    table = Table()
    table.do(0, {"type": "choose_signal", "emoji": PINEAPPLE})
    table.play()
    assert _signal_objects(table.sent[None]) == []
    assert all(team == 1 for team, _ in _signal_objects(table.sent[1] + table.sent[3]))


# --- QU-17 progression ---------------------------------------------------------------------------


def test_qu17_standings_are_per_seat_with_the_team_result() -> None:
    table = Table(deals=(FOUR_DEAL,) * 5)
    _play_rounds(table, [(1, {"type": "contra"})] * 5)
    result = QUATRO.result(table.state)
    assert result is not None and result.winners == (1, 3)
    assert result.round_scores == ((0, 1, 0, 1),) * 5


# --- robustness ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        "exchange",
        [],
        {},
        {"type": "fly"},
        {"type": 3},
        {"type": "exchange"},
        {"type": "exchange", "hand_slot": "0", "center_slot": 0, "expect": "AC"},
        {"type": "exchange", "hand_slot": True, "center_slot": 0, "expect": "AC"},
        {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": 7},
        {"type": "take_floor", "extra": 1},
        {"type": "vote", "accept": "yes"},
        {"type": "quatro", "confirm": 1},
        {"type": "contra", "team": 1.0},
        {"type": "show", "emoji": None},
        {1: 2},
    ],
)
def test_malformed_actions_are_unknown_actions(garbage: Any) -> None:
    table = Table()
    table.play()
    assert table.refused(0, garbage) == "unknown_action"


def test_a_seat_out_of_range_is_refused() -> None:
    table = Table()
    assert table.refused(7, {"type": "ready"}) == "bad_target"


def test_apply_does_not_change_the_state_it_is_given() -> None:
    table = Table()
    table.play()
    state = table.state
    snapshot = QUATRO.inspect(state)
    QUATRO.apply(state, 0, {"type": "exchange", "hand_slot": 0, "center_slot": 0, "expect": "AC"}, 31)
    QUATRO.advance(state, 500)
    assert QUATRO.inspect(state) == snapshot


def test_quatro_is_real_time_nobody_has_the_turn_and_no_clock_actions() -> None:
    table = Table()
    table.play()
    assert QUATRO.to_move(table.state) is None
    assert QUATRO.clock_actions(table.state, 0) == []
    assert table.truth["turn"] is None


def test_every_legal_action_is_accepted() -> None:
    table = Table()
    table.do(1, {"type": "choose_signal", "emoji": FOX})
    table.play()
    table.do(0, {"type": "take_floor"}, at=31)
    table.do(1, {"type": "propose_reshuffle"}, at=31)
    for seat in range(4):
        for action in QUATRO.legal_actions(table.state, seat):
            QUATRO.apply(table.state, seat, action, table.state.clock)
