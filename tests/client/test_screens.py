"""The per-family screens, from views and events recorded by running the engines."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.client.families import family_for
from services.client.golf_family import GolfFamilyScreen
from services.client.quatro import QuatroScreen
from services.client.tower import TowerScreen
from tests.client.recorded import play_random

CARD = re.compile(r"(?<![0-9A-Z])(?:10|[2-9AJQK])[SHDC](?![a-z])")
NAMES = ["Ann", "Bob", "Cy", "Di"]


def cards_in(value: Any) -> set[str]:
    return set(CARD.findall(str(value)))


@pytest.mark.parametrize(("game_id", "seats", "options"), [
    ("four_down", 2, {}),
    ("golf", 3, {"mode": "extreme", "holes": 1}),
    ("cambio", 2, {"jack_looks": True}),
    ("tower", 2, {"rounds": 1}),
    ("quatro", 4, {}),
])
def test_a_screen_shows_only_cards_from_the_seats_own_view(game_id: str, seats: int, options: dict[str, Any]) -> None:
    screen = family_for(game_id)
    for view, legal, _ in play_random(game_id, seats, options, steps=120):
        drawn = "\n".join(screen.render(view, 0, {}, NAMES[:seats]))
        assert cards_in(drawn) <= cards_in(view), (game_id, cards_in(drawn) - cards_in(view))
        for action in legal:
            assert screen.describe(action, view, 0) and "{" not in screen.describe(action, view, 0)


@pytest.mark.parametrize(("game_id", "seats", "options"), [("four_down", 2, {}), ("cambio", 3, {}), ("tower", 2, {"rounds": 1}), ("quatro", 4, {})])
def test_every_event_the_seat_receives_reads_as_words_without_glimpsed_cards(game_id: str, seats: int, options: dict[str, Any]) -> None:
    screen = family_for(game_id)
    for _, _, events in play_random(game_id, seats, options, steps=150):
        for event in events:
            line = screen.narrate(event, 0, NAMES[:seats])
            if event["kind"] in ("first_look", "card_seen", "drawn_card", "flip_shown", "took_flipped", "dealt", "hand_dealt"):
                private_cards = cards_in({k: v for k, v in event.items() if k != "kind"})
                assert not cards_in(line or "") & private_cards, (event, line)


def test_four_down_actions_are_described_in_words() -> None:
    screen = GolfFamilyScreen("four_down")
    view = {"hand": "9S", "discard_top": "QD"}
    assert screen.describe({"type": "draw", "from": "stock"}, view, 0) == "Draw from stock"
    assert screen.describe({"type": "draw", "from": "discard"}, view, 0) == "Take QD from the discard pile"
    assert screen.describe({"type": "replace", "slot": 1}, view, 0) == "Replace slot 2 with the drawn card (9S)"
    assert screen.describe({"type": "power", "targets": [[1, 2]]}, view, 0) == "Look at seat 2 slot 3 (power)"
    assert screen.describe({"type": "power", "targets": [[0, 0], [1, 3]]}, view, 0) == "Swap your slot 1 with seat 2 slot 4 (power)"
    assert screen.describe({"type": "match", "target": [1, 0]}, view, 0) == "Match seat 2 slot 1 (claim it is a 9)"
    assert screen.describe({"type": "call"}, view, 0) == "Call"
    assert GolfFamilyScreen("golf").describe({"type": "call"}, view, 0) == "Knock"


def test_four_down_row_shows_face_down_empty_and_revealed_slots() -> None:
    view = {"round": 1, "turn": 0, "slots": [[True, False, True, True], [True, True, True, True]], "totals": [3, 9], "discard_top": "5C", "discard_size": 2, "stock_size": 40}
    lines = GolfFamilyScreen("four_down").render(view, 0, {(0, 2): "KD"}, ["Ann", "Bob"])
    assert "1:[?] 2:[ ] 3:[KD] 4:[?]" in lines[2] and "your turn" in lines[0]
    assert "Bob (seat 2)" in lines[3] and "1:[?] 2:[?] 3:[?] 4:[?]" in lines[3]
    assert "Discard pile: 5C" in lines[1] and "Stock: 40" in lines[1]


def test_tower_announcements_are_printed_as_they_arrive() -> None:
    line = TowerScreen().narrate({"kind": "announce", "seat": 1, "text": "THREE JACKS!", "count": 3}, 0, NAMES)
    assert line == "*** THREE JACKS! ***"


def test_tower_screen_shows_hand_face_up_slots_and_arena_count() -> None:
    for view, _, _ in play_random("tower", 2, {"rounds": 1}, steps=30):
        if view.get("arena"):
            lines = TowerScreen().render(view, 0, {}, NAMES[:2])
            assert any(line.startswith("Your hand:") for line in lines)
            assert any(f"top {view['arena_top']} x{view['arena_count']}" in line for line in lines)
            return
    pytest.fail("no arena in 30 moves")


def test_quatro_exchange_command_fills_in_the_centre_card_seen() -> None:
    view = {"center": ["JD", "KC", "JH", "10S"], "hand": ["AS", "10D", "AC", "10C"]}
    action = QuatroScreen().command("x 1 2", view, [])
    assert action == {"type": "exchange", "hand_slot": 0, "center_slot": 1, "expect": "KC"}
    assert QuatroScreen().command("show 🍍", view, []) == {"type": "show", "emoji": "🍍"}
    assert QuatroScreen().command("contra", view, [{"type": "contra", "team": 1}]) == {"type": "contra", "team": 1}
    assert QuatroScreen().command("quatro!", view, []) == {"type": "quatro", "confirm": True}
    assert QuatroScreen().command("dance", view, []) is None


def test_quatro_shows_the_team_signal_only_when_the_view_tells_it() -> None:
    base = {"round": 1, "phase": "signals", "center": ["JD"], "hand": ["AS"], "partner": 2, "team": 0, "totals": [0, 0], "target": 5}
    assert "not yet chosen" in "\n".join(QuatroScreen().render(base, 0, {}, NAMES))
    told = {**base, "signal": {"team": 0, "signal": "🍍"}}
    assert "Team signal: 🍍" in "\n".join(QuatroScreen().render(told, 0, {}, NAMES))
