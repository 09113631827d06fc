"""Configuration from the environment, one small dataclass per concern.

Every setting has a default that works on a laptop (SQLite files under ``CARDROOM_DATA_DIR``,
services on localhost ports); production sets the environment (see README "Configuration").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# Fixed local ports so that `make run` prints stable addresses (gRPC, metrics).
DEFAULT_PORTS: dict[str, tuple[int, int]] = {
    "profile": (50051, 9101),
    "matchmaking": (50052, 9102),
    "table": (50053, 9103),
    "rating": (50054, 9104),
}

# Used only when CARDROOM_JWT_SECRET is unset: fine on a laptop, refused in production.
DEV_JWT_SECRET = "cardroom-local-development-secret-not-for-production"


def env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw not in (None, "") else default


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return float(raw) if raw not in (None, "") else default


@dataclass(frozen=True)
class ServiceSettings:
    """Where one service listens and what it stores into."""

    name: str
    host: str
    port: int
    metrics_port: int
    database_url: str
    jwt_secret: str
    production: bool
    grace_seconds: float

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def data_dir() -> Path:
    return Path(env("CARDROOM_DATA_DIR", "var"))


def database_url(service: str) -> str:
    """``CARDROOM_<SERVICE>_DATABASE_URL``, else ``DATABASE_URL``, else a SQLite file of its own."""
    specific = os.environ.get(f"CARDROOM_{service.upper()}_DATABASE_URL")
    if specific:
        return specific
    shared = os.environ.get("DATABASE_URL")
    if shared:
        return shared
    return f"sqlite:///{data_dir() / (service + '.sqlite3')}"


def service_settings(name: str) -> ServiceSettings:
    grpc_port, metrics_port = DEFAULT_PORTS[name]
    prefix = f"CARDROOM_{name.upper()}_"
    production = env("CARDROOM_ENV", "development") == "production"
    secret = os.environ.get("CARDROOM_JWT_SECRET", "")
    if not secret:
        if production:
            raise SystemExit("CARDROOM_JWT_SECRET must be set when CARDROOM_ENV=production")
        secret = DEV_JWT_SECRET
    return ServiceSettings(
        name=name,
        host=env(prefix + "HOST", env("CARDROOM_HOST", "127.0.0.1")),
        port=env_int(prefix + "PORT", grpc_port),
        metrics_port=env_int(prefix + "METRICS_PORT", metrics_port),
        database_url=database_url(name),
        jwt_secret=secret,
        production=production,
        grace_seconds=env_float("CARDROOM_SHUTDOWN_GRACE_SECONDS", 20.0),
    )


def service_address(name: str) -> str:
    """Where to reach another service: ``CARDROOM_<NAME>_ADDRESS`` or its local default."""
    grpc_port, _ = DEFAULT_PORTS[name]
    return env(f"CARDROOM_{name.upper()}_ADDRESS", f"127.0.0.1:{grpc_port}")
