"""Views and events recorded by running the real engines (what a seat's Snapshot and stream carry)."""

from __future__ import annotations

import json
import random
from typing import Any

from shared.games.base import Event, Setup
from shared.games.registry import game

from services.client.wire import plain


def seat_event(event: Event, seat: int) -> dict[str, Any] | None:
    """The event as the seat's stream would carry it (``None``: not sent to this seat)."""
    if not event.audience.includes(seat):
        return None
    return plain(json.loads(json.dumps({**dict(event.data), "kind": event.kind, "private": not event.audience.public})))


def play_random(game_id: str, seats: int, options: dict[str, Any], steps: int, seed: int = 3) -> list[tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]]:
    """``steps`` moves of a random game; for seat 0 after each: (view, legal actions, events it received)."""
    engine = game(game_id)
    state, events = engine.start(Setup(seats=seats, options=engine.check_options(options, seats), seed=seed))
    rng = random.Random(seed)
    now = 0.0
    recorded = []
    for _ in range(steps):
        received = [e for e in (seat_event(event, 0) for event in events) if e is not None]
        recorded.append((plain(engine.view(state, 0)), engine.legal_actions(state, 0), received))
        if engine.result(state) is not None:
            break
        now += 0.5
        state, events = engine.advance(state, now)
        mover = engine.to_move(state)
        candidates = [mover] if mover is not None else list(range(seats))
        seat = rng.choice(candidates)
        legal = engine.legal_actions(state, seat)
        if legal:
            state, more = engine.apply(state, seat, rng.choice(legal), now)
            events = list(events) + list(more)
    return recorded
