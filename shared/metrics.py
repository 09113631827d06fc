"""Prometheus metrics shared by every service, served over HTTP by ``start_metrics``.

Labels are method names, status codes and game ids only: never a player, table or card.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

# Buckets from 1 ms to 10 s: phone round trips are tens of ms, database commits single ms.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

GRPC_HANDLING = Histogram(
    "cardroom_grpc_server_handling_seconds",
    "Time from a unary call's arrival to its answer, or a stream's whole life.",
    ["service", "method", "code"],
    buckets=LATENCY_BUCKETS,
)
GRPC_STARTED = Counter("cardroom_grpc_server_started_total", "Calls started.", ["service", "method"])
GRPC_IN_FLIGHT = Gauge("cardroom_grpc_server_in_flight", "Calls being handled now (streams included).", ["service", "method"])


def start_metrics(port: int, host: str = "0.0.0.0") -> None:
    """Serve ``/metrics`` on ``port`` (0: do not serve)."""
    if port:
        start_http_server(port, addr=host)
