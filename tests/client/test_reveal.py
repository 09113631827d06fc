"""A card the seat is shown is on screen for the reveal time, then turned back (seed 000, "Controls")."""

from __future__ import annotations

from shared.games.base import Setup
from shared.games.registry import game

from services.client.golf_family import GolfFamilyScreen
from services.client.reveal import RevealBoard
from services.client.wire import plain
from tests.client.recorded import seat_event


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_shown_card_is_visible_until_its_time_is_up_and_then_gone() -> None:
    clock = FakeClock()
    board = RevealBoard(3.0, clock)
    board.show((0, 1), "KD")
    assert board.visible() == {(0, 1): "KD"}
    assert board.seconds_to_next_change() == 3.0
    clock.now += 2.9
    assert board.visible() == {(0, 1): "KD"}
    clock.now += 0.2
    assert board.visible() == {}
    assert board.seconds_to_next_change() is None


def test_a_moved_card_stops_showing_at_once() -> None:
    board = RevealBoard(3.0, FakeClock())
    board.show((1, 2), "7H")
    board.forget((1, 2))
    assert board.visible() == {}


def test_four_down_first_look_is_drawn_face_up_then_face_down_again() -> None:
    engine = game("four_down")
    state, events = engine.start(Setup(seats=2, options=engine.check_options({}, 2), seed=11))
    screen = GolfFamilyScreen("four_down")
    clock = FakeClock()
    board = RevealBoard(3.0, clock)
    received = [e for e in (seat_event(event, 0) for event in events) if e is not None]
    for event in received:
        for place, card in screen.reveals(event, 0):
            board.show(place, card)
    look = next(e for e in received if e["kind"] == "first_look")
    cards = [item["card"] for item in look["cards"]]
    view = plain(engine.view(state, 0))

    row_now = next(line for line in screen.render(view, 0, board.visible(), ["Ann", "Robot"]) if "You" in line)
    assert all(f"[{card}]" in row_now for card in cards)
    assert row_now.count("[?]") == 2  # slots 1 and 4 were never shown

    clock.now += 3.01
    row_later = next(line for line in screen.render(view, 0, board.visible(), ["Ann", "Robot"]) if "You" in line)
    assert not any(card in row_later for card in cards)
    assert row_later.count("[?]") == 4


def test_the_log_never_names_a_card_the_seat_only_glimpsed() -> None:
    screen = GolfFamilyScreen("four_down")
    look = {"kind": "first_look", "cards": [{"slot": 1, "card": "QS"}, {"slot": 2, "card": "4H"}], "private": True}
    seen = {"kind": "card_seen", "target": [1, 3], "card": "9C", "private": True}
    drawn = {"kind": "drawn_card", "card": "JD", "private": True}
    for event, card in ((look, "QS"), (look, "4H"), (seen, "9C"), (drawn, "JD")):
        line = screen.narrate(event, 0, ["Ann", "Bob"]) or ""
        assert card not in line
