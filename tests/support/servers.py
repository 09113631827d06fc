"""Real servers on real sockets for integration tests: settings, start/stop, authenticated calls."""

from __future__ import annotations

from shared.auth import TokenIssuer
from shared.config import ServiceSettings

from tests.conftest import TEST_SECRET


def settings_for(service: str, database_url: str) -> ServiceSettings:
    """Settings for a test server: any free port (the server reports it), no metrics port."""
    return ServiceSettings(
        name=service,
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        database_url=database_url,
        jwt_secret=TEST_SECRET,
        production=False,
        grace_seconds=0.5,
    )


def issuer() -> TokenIssuer:
    return TokenIssuer(TEST_SECRET)


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def service_metadata(name: str = "tests") -> list[tuple[str, str]]:
    return bearer(issuer().service(name).token)


def player_metadata(player_id: str) -> list[tuple[str, str]]:
    return bearer(issuer().access(player_id).token)
