"""The table service's own Prometheus metrics (labels: game ids only)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from shared.metrics import LATENCY_BUCKETS

ACTION_DELIVERY = Histogram(
    "cardroom_table_action_delivery_seconds",
    "From an accepted input's events being published to each watching stream handing them to gRPC.",
    buckets=LATENCY_BUCKETS,
)
ACTIONS = Counter("cardroom_table_actions_total", "Inputs applied, by game and origin.", ["game", "origin"])
REJECTIONS = Counter("cardroom_table_rejections_total", "Actions refused, by game and reason.", ["game", "reason"])
LIVE_TABLES = Gauge("cardroom_table_live_tables", "Unfinished tables hosted by this shard.")
OPEN_STREAMS = Gauge("cardroom_table_open_streams", "Watch streams open on this shard.")
REPLAYS = Counter("cardroom_table_replays_total", "Tables rebuilt from their log.", ["game"])
REPLAY_SECONDS = Histogram("cardroom_table_replay_seconds", "Time to rebuild one table from its log.", buckets=LATENCY_BUCKETS)
MATCHES_FINISHED = Counter("cardroom_table_matches_finished_total", "Matches played to the end.", ["game"])
OUTBOX_PENDING = Gauge("cardroom_table_outbox_pending", "Results stored but not yet acknowledged by rating.")
OUTBOX_FAILURES = Counter("cardroom_table_outbox_failures_total", "Failed attempts to deliver a result.")
OUTBOX_LAG = Histogram(
    "cardroom_table_outbox_lag_seconds",
    "From a match's end to rating acknowledging its result.",
    buckets=(0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800),
)
