"""Engine throughput: random legal actions through each rules engine, in this process, no I/O."""

from __future__ import annotations

import random
import time

from shared.games import registry
from shared.games.base import Setup

SEATS = {"four_down": 4, "golf": 4, "cambio": 4, "cabo": 4, "quatro": 4, "tower": 4}


def actions_per_second(game_id: str, seconds: float = 2.0) -> tuple[float, int]:
    """Actions applied per second (legal_actions + choice + apply), and matches finished."""
    game = registry.game(game_id)
    seats = SEATS.get(game_id, game.min_seats)
    rng = random.Random(0)
    applied = matches = 0
    now = 0.0
    deadline = time.perf_counter() + seconds
    state = None
    while time.perf_counter() < deadline:
        if state is None or game.result(state) is not None:
            if state is not None:
                matches += 1
            now = 0.0
            state, _ = game.start(Setup(seats=seats, options=game.check_options({}, seats), seed=rng.randrange(1 << 30)))
        mover = game.to_move(state)
        candidates = [mover] if mover is not None else list(range(seats))
        moved = False
        for seat in rng.sample(candidates, len(candidates)):
            legal = game.legal_actions(state, seat)
            if legal:
                state, _ = game.apply(state, seat, rng.choice(legal), now)
                applied += 1
                moved = True
                break
        now += 0.5
        if not moved:
            state, _ = game.advance(state, now)
    return applied / seconds, matches
