"""Matchmaking's own Prometheus metrics. Labels are the game id and the mode only (never a player).

``mode`` is ``ranked``, ``casual`` or ``private``.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# From 1 s to 5 min: a ranked wait opens to anyone after a minute; longer waits are worth seeing.
WAIT_BUCKETS = (1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 300.0)

QUEUE_LENGTH = Gauge("cardroom_matchmaking_queue_length", "Tickets waiting, by game and mode.", ["game", "mode"])
QUEUE_WAIT = Histogram(
    "cardroom_matchmaking_queue_wait_seconds",
    "From joining a queue to being seated, by game and mode.",
    ["game", "mode"],
    buckets=WAIT_BUCKETS,
)
PLAYERS_SEATED = Counter("cardroom_matchmaking_players_seated_total", "Players given a seat, by game and mode.", ["game", "mode"])
