"""``make selfplay``: robot-only matches through the engines, to tune robots and check the seeds' figures.

Seed 000 reports, from its own self-play, "about ten" rounds a match and the caller lowest "about seven
times in ten". This plays N matches (default 2,000, two seats) with every seat a robot that sees only its
seat's events and views, and prints for the golf family rounds per match, how often a call (knock)
succeeds (the caller's round score is the lowest, ties included), and the mean round score; for tower,
turns and pick-ups per round and how often the round's first holder wins it.

    python -m tests.bench.selfplay [--game four_down] [--matches 2000] [--seats 2] [--options '{}']
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from collections import Counter
from typing import Any

from shared.games import registry
from shared.games.base import Setup

ACTION_LIMIT = 20_000  # a match longer than this is a robot bug, reported rather than looped on


def play_match(game_id: str, seats: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    game = registry.game(game_id)
    checked = game.check_options(options, seats)
    robots = [registry.robot(game_id, seat, seats, checked, seed * 31 + seat) for seat in range(seats)]
    state, events = game.start(Setup(seats=seats, options=checked, seed=seed, robots=frozenset(range(seats))))
    stats: Counter[str] = Counter()
    scores: list[int] = []
    now = 0.0
    holder = None

    def deliver(batch: list[Any]) -> None:
        nonlocal holder
        for event in batch:
            for seat, robot in enumerate(robots):
                if event.audience.includes(seat):
                    robot.observe(event.to_json())
            data = event.data
            if event.kind == "round_ended":
                stats["rounds"] += 1
                scores.extend(data["scores"])
                if data.get("caller") is not None:
                    stats["calls"] += 1
                    caller_score = data["scores"][data["caller"]]
                    stats["calls_lowest"] += caller_score == min(data["scores"])
                    stats["calls_strictly_lowest"] += sorted(data["scores"]).count(caller_score) == 1 and caller_score == min(data["scores"])
            elif event.kind == "round_started" and "holder" in data:
                holder = data["holder"]
            elif event.kind == "round_over":
                stats["rounds"] += 1
                stats["holder_won"] += data["winner"] == holder
                scores.extend(data["round_scores"])
            elif event.kind == "picked_up":
                stats["pick_ups"] += 1

    deliver(events)
    for _ in range(ACTION_LIMIT):
        if game.result(state) is not None:
            break
        mover = game.to_move(state)
        if mover is None:
            raise SystemExit(f"{game_id} is real time: self-play here covers turn-based games")
        # As at a real table, robots out of turn may act between two moves (snaps in Cambio and
        # Cabo), then the seat to move plays.
        for seat in [s for s in range(seats) if s != mover]:
            legal = game.legal_actions(state, seat)
            action = robots[seat].choose(game.view(state, seat), legal, now) if legal else None
            if action is not None:
                state, events = game.apply(state, seat, action, now)
                stats["actions"] += 1
                stats["out_of_turn"] += 1
                deliver(events)
                break
        else:
            legal = game.legal_actions(state, mover)
            action = robots[mover].choose(game.view(state, mover), legal, now)
            state, events = game.apply(state, mover, action, now)
            stats["actions"] += 1
            if action.get("type") in ("play", "pick_up", "flip", "draw", "call"):
                stats["turns"] += 1
            deliver(events)
        now += 1.0
    else:
        raise SystemExit(f"{game_id} match with seed {seed} did not end in {ACTION_LIMIT} actions")
    return {"stats": dict(stats), "scores": scores}


def _worker(job: tuple[str, int, dict[str, Any], int]) -> dict[str, Any]:
    return play_match(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="four_down")
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--options", default="{}")
    args = parser.parse_args()
    options = json.loads(args.options)
    started = time.perf_counter()
    jobs = [(args.game, args.seats, options, seed) for seed in range(args.matches)]
    with multiprocessing.Pool() as pool:
        results = pool.map(_worker, jobs, chunksize=20)
    totals: Counter[str] = Counter()
    scores: list[int] = []
    for result in results:
        totals.update(result["stats"])
        scores.extend(result["scores"])
    rounds = totals["rounds"] or 1
    print(f"{args.game} {options or ''} · {args.matches} robot matches · {args.seats} seats · {time.perf_counter() - started:.1f} s")
    print(f"  rounds per match        {totals['rounds'] / args.matches:.2f}")
    print(f"  mean round score        {statistics.fmean(scores):.2f}")
    if totals["calls"]:
        print(f"  calls per round         {totals['calls'] / rounds:.2f}")
        print(f"  caller lowest (or tied) {totals['calls_lowest'] / totals['calls']:.1%}")
        print(f"  caller strictly lowest  {totals['calls_strictly_lowest'] / totals['calls']:.1%}")
    if totals["out_of_turn"]:
        print(f"  out-of-turn actions     {totals['out_of_turn'] / args.matches:.2f} per match (snaps)")
    if args.game == "tower":
        print(f"  turns per round         {totals['turns'] / rounds:.1f}")
        print(f"  pick-ups per round      {totals['pick_ups'] / rounds:.2f}")
        print(f"  first holder wins round {totals['holder_won'] / rounds:.1%}")


if __name__ == "__main__":
    main()
