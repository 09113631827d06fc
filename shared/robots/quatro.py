"""A robot for Quatro (rules/quatro.md QU-15): plays through its seat's view and events only.

Purpose: a competent, deterministic partner or opponent. It fixes a seeded signal for its team
(a robot partner sees it and follows it, a human partner is told it like any signal, QU-3),
collects the value it holds most of by exchanges (QU-5), respects the cooldowns (QU-6, QU-7) by
choosing only from the legal actions, shows the team signal on the floor once it holds a quartet
(QU-7), calls ¡Quatro! as soon as its partner shows the team signal (QU-8), and calls ¡Contra! on
an opponent whose show looks like a real signal: right after an exchange burst of theirs, or the
same emoji shown again and again (QU-9). It never votes (QU-12) and never proposes a reshuffle.
Limits: it never sees the state; events carry no time, so it dates each event by the ``now`` of
the next ``choose`` call (the table asks a robot to act right after delivering its events).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping

from shared.games.base import Json, SeatView
from shared.games.cards import rank
from shared.games.rng import generator

# An opponent's show this soon after one of their own exchanges reads as "I just completed it".
BURST_WINDOW_SECONDS = 4.0
# A robot waits this long after a suspicious show before accusing, so that the showing player's
# partner (who calls ¡Quatro! at once) keeps the first word on their own signal.
CONTRA_DELAY_SECONDS = 1.0
# The same emoji shown this many separate times by one opponent in a round is read as a signal.
REPEATED_SHOWS = 3


@dataclass
class _Show:
    """An opponent's emoji on the floor, as the robot saw it."""

    emoji: str
    shown_at: float
    after_exchange: bool


class QuatroRobot:
    """One Quatro seat played by the server (QU-15)."""

    def __init__(self, *, game_id: str, seat: int, seats: int, options: Mapping[str, Json], seed: int) -> None:
        self.game_id = game_id
        self.seat = seat
        self.seats = seats
        self.seed = seed
        self._undated: list[Mapping[str, Json]] = []
        self._round = 0
        self._last_exchange_at: dict[int, float] = {}
        self._shows: dict[int, _Show] = {}
        self._show_counts: Counter[tuple[int, str]] = Counter()

    # --- memory ------------------------------------------------------------------------------

    def observe(self, event: Mapping[str, Json]) -> None:
        self._undated.append(event)

    def _remember(self, now: float) -> None:
        """Date the events received since the last choice and file what matters."""
        for event in self._undated:
            kind, seat = event.get("kind"), event.get("seat")
            if kind == "round_dealt":
                self._new_round(event)
            elif kind == "exchanged" and isinstance(seat, int):
                self._last_exchange_at[seat] = now
            elif kind == "shown" and isinstance(seat, int) and not event.get("again"):
                self._saw_show(seat, str(event.get("emoji")), now)
            elif kind == "floor_released" and isinstance(seat, int):
                self._shows.pop(seat, None)
        self._undated.clear()

    def _new_round(self, event: Mapping[str, Json]) -> None:
        number = event.get("round")
        self._round = number if isinstance(number, int) else self._round + 1
        self._last_exchange_at.clear()
        self._shows.clear()
        self._show_counts.clear()

    def _saw_show(self, seat: int, emoji: str, now: float) -> None:
        exchanged_at = self._last_exchange_at.get(seat)
        after_exchange = exchanged_at is not None and now - exchanged_at <= BURST_WINDOW_SECONDS
        self._shows[seat] = _Show(emoji, now, after_exchange)
        self._show_counts[(seat, emoji)] += 1

    # --- choice ------------------------------------------------------------------------------

    def choose(self, view: SeatView, legal: list[dict[str, Json]], now: float) -> dict[str, Json] | None:
        self._remember(now)
        if not legal:
            return None
        phase = view.get("phase")
        if phase == "signals":
            return self._signal_phase(legal)
        if phase == "playing":
            return self._play(view, legal, now)
        return None  # between rounds the host (a human) decides; robots never host

    def _signal_phase(self, legal: list[dict[str, Json]]) -> dict[str, Json] | None:
        """QU-3: the first partner to choose fixes the signal; QU-4: then be ready."""
        signals = [action for action in legal if action.get("type") == "choose_signal"]
        if signals:
            return generator(self.seed, self.seat, "signal", self._round).choice(signals)
        return _find(legal, "ready")

    def _play(self, view: SeatView, legal: list[dict[str, Json]], now: float) -> dict[str, Json] | None:
        team_signal = _team_signal(view)
        hand = [card for card in view.get("hand", []) if isinstance(card, str)]
        holding = any(entry.get("seat") == self.seat for entry in view.get("floor", []))
        showing = {entry.get("seat"): entry.get("emoji") for entry in view.get("floor", [])}
        partner = view.get("partner")
        if team_signal is not None and showing.get(partner) == team_signal:  # QU-8: the partner's cue
            return _find(legal, "quatro")
        accused = self._suspect(view, now)
        if accused is not None:  # QU-9
            return _find(legal, "contra", team=accused)
        if _is_quartet(hand):  # QU-7: tell the partner, never call it ourselves (QU-8)
            if not holding:
                return _find(legal, "take_floor")
            if team_signal is not None and showing.get(self.seat) != team_signal:
                return _find(legal, "show", emoji=team_signal)
            return None
        if holding:
            return _find(legal, "release_floor")
        return self._exchange(hand, view.get("center", []), legal)

    def _suspect(self, view: SeatView, now: float) -> int | None:
        """The opposing team whose player shows an emoji like a real signal, long enough ago."""
        own_team = view.get("team")
        for seat, show in sorted(self._shows.items()):
            team = seat % (self.seats // 2)
            if team == own_team:
                continue
            telling = show.after_exchange or self._show_counts[(seat, show.emoji)] >= REPEATED_SHOWS
            if telling and now - show.shown_at >= CONTRA_DELAY_SECONDS:
                return team
        return None

    def _exchange(self, hand: list[str], center: list[Json], legal: list[dict[str, Json]]) -> dict[str, Json] | None:
        """QU-5: take a centre card of the value held most, giving a card of another value."""
        if not hand:
            return None
        held = Counter(rank(card) for card in hand)
        offered = Counter(rank(card) for card in center if isinstance(card, str))
        target = max(held, key=lambda value: (held[value], offered[value], -_first_slot(hand, value)))
        if offered[target] == 0:
            return None
        center_slot = next(slot for slot, card in enumerate(center) if isinstance(card, str) and rank(card) == target)
        giveaway = min(
            (slot for slot, card in enumerate(hand) if rank(card) != target),
            key=lambda slot: (held[rank(hand[slot])], slot),
            default=None,
        )
        if giveaway is None:
            return None
        return _find(legal, "exchange", hand_slot=giveaway, center_slot=center_slot, expect=center[center_slot])


def _team_signal(view: SeatView) -> str | None:
    told = view.get("signal")
    if isinstance(told, Mapping) and isinstance(told.get("signal"), str):
        return told["signal"]
    return None


def _is_quartet(hand: list[str]) -> bool:
    return len(hand) == 4 and len({rank(card) for card in hand}) == 1


def _first_slot(hand: list[str], value: str) -> int:
    return next(slot for slot, card in enumerate(hand) if rank(card) == value)


def _find(legal: list[dict[str, Json]], kind: str, **fields: Json) -> dict[str, Json] | None:
    """The legal action of this type (with these fields), or None when it is not legal now."""
    for action in legal:
        if action.get("type") == kind and all(action.get(name) == value for name, value in fields.items()):
            return action
    return None
